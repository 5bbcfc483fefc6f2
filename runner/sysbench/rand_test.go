package sysbench

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autotune/autotune/runner"
)

// randCase is the case sysbench-rand-type-drift: the --help lines of
// sysbench 1.0.x and of a build from master, as found (expected.md).
const randCase = "../testdata/help/sysbench-rand-type-drift"

func readCase(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(randCase, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The --rand-type line is read from both builds' help as found, and
// from Debian's full help; spacing inside the braces does not matter; a
// line without values or with an empty one is an error, not a guess.
func TestParseRandTypeHelp(t *testing.T) {
	debian, err := os.ReadFile("../testdata/help/sysbench-1.0.20-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, help string
		values     []string
		def        string
		found      bool
		err        string
	}{
		{"case 1.0.x", readCase(t, "help-1.0.x.txt"), []string{"uniform", "gaussian", "special", "pareto"}, "special", true, ""},
		{"case master", readCase(t, "help-1.1-master.txt"), []string{"uniform", "gaussian", "pareto", "zipfian"}, "uniform", true, ""},
		{"debian 1.0.20", string(debian), []string{"uniform", "gaussian", "special", "pareto"}, "special", true, ""},
		{"spaces everywhere", "  --rand-type=STRING\t distribution {  uniform ,gaussian,  zipfian } default [ uniform ]\n", []string{"uniform", "gaussian", "zipfian"}, "uniform", true, ""},
		{"no default", "--rand-type=STRING distribution {uniform,pareto}\n", []string{"uniform", "pareto"}, "", true, ""},
		{"no line", "General options:\n  --threads=N number of threads to use [1]\n", nil, "", false, ""},
		{"no braces", "  --rand-type=STRING random numbers distribution [special]\n", nil, "", true, "lists no {...} distributions"},
		{"empty value", "  --rand-type=STRING distribution {uniform,,pareto} [uniform]\n", nil, "", true, `malformed distribution ""`},
		{"odd value", "  --rand-type=STRING distribution {uniform,Pareto-1} [uniform]\n", nil, "", true, `malformed distribution "Pareto-1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, found, err := ParseRandTypeHelp(tc.help)
			if found != tc.found {
				t.Errorf("found %v, want %v", found, tc.found)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Values, tc.values) || h.Default != tc.def {
				t.Errorf("got %q [%s], want %q [%s]", h.Values, h.Default, tc.values, tc.def)
			}
		})
	}
}

// What each build offers, as expected.md asks: zipfian is refused on
// 1.0.x, special on master, gaussian on master (its generator is broken
// without special, PR #455); each refusal names the binary, its version
// and the values it accepts.
func TestCheckOffered(t *testing.T) {
	old, _, err := ParseRandTypeHelp(readCase(t, "help-1.0.x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	master, _, err := ParseRandTypeHelp(readCase(t, "help-1.1-master.txt"))
	if err != nil {
		t.Fatal(err)
	}
	const oldBin, masterBin = "/usr/bin/sysbench (sysbench 1.0.20)", "/opt/sb/sysbench (sysbench 1.1.0-2ca9e3f)"
	for _, tc := range []struct {
		h        RandTypeHelp
		bin, typ string
		want     []string // nil: offered
	}{
		{old, oldBin, "uniform", nil},
		{old, oldBin, "special", nil},
		{old, oldBin, "gaussian", nil},
		{old, oldBin, "pareto", nil},
		{old, oldBin, "zipfian", []string{oldBin, "does not offer --rand-type=zipfian", "uniform, gaussian, special, pareto (default special)"}},
		{master, masterBin, "uniform", nil},
		{master, masterBin, "pareto", nil},
		{master, masterBin, "zipfian", nil},
		{master, masterBin, "special", []string{masterBin, "does not offer --rand-type=special", "uniform, gaussian, pareto, zipfian (default uniform)"}},
		{master, masterBin, "gaussian", []string{masterBin, "gaussian is refused on a build without the special distribution", "PR #455"}},
	} {
		err := tc.h.CheckOffered(tc.bin, tc.typ)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s on %s: %v", tc.typ, tc.bin, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s on %s: offered, want refused", tc.typ, tc.bin)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s on %s: %q does not say %q", tc.typ, tc.bin, err, w)
			}
		}
	}
}

// helpSysbench writes a sysbench that prints version for --version,
// general for --help and workload for anything else; it returns its path.
func helpSysbench(t *testing.T, version, general, workload string) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "general.txt"), []byte(general), 0o644)
	os.WriteFile(filepath.Join(dir, "workload.txt"), []byte(workload), 0o644)
	fake := filepath.Join(dir, "sysbench")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo '" + version + "';;\n--help) cat " + dir + "/general.txt; exit 1;;\n*) cat " + dir + "/workload.txt;;\nesac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return fake
}

// The probe refuses a distribution the binary lacks before any work, by
// the binary's own --help (the case's files as found); a distribution it
// offers passes with Debian's full help.
func TestProbeRefusesADistributionTheBinaryLacks(t *testing.T) {
	ctx := context.Background()
	general, err := os.ReadFile("../testdata/help/sysbench-1.0.20-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	workload, err := os.ReadFile("../testdata/help/sysbench-1.0.20-oltp_read_write-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	debian := helpSysbench(t, "sysbench 1.0.20", string(general), string(workload))
	old := helpSysbench(t, "sysbench 1.0.20", readCase(t, "help-1.0.x.txt"), string(workload))
	master := helpSysbench(t, "sysbench 1.1.0-2ca9e3f", readCase(t, "help-1.1-master.txt"), string(workload))
	for _, tc := range []struct {
		path, typ string
		want      string // "": accepted
	}{
		{debian, "special", ""},
		{debian, "uniform", ""},
		{debian, "pareto", ""},
		{debian, "gaussian", ""},
		{debian, "zipfian", "does not offer --rand-type=zipfian: it accepts uniform, gaussian, special, pareto (default special)"},
		{old, "zipfian", "(sysbench 1.0.20) does not offer --rand-type=zipfian"},
		{master, "special", "(sysbench 1.1.0-2ca9e3f) does not offer --rand-type=special: it accepts uniform, gaussian, pareto, zipfian (default uniform)"},
		{master, "gaussian", "gaussian is refused on a build without the special distribution"},
	} {
		err := Bench{Path: tc.path, Workload: "oltp_read_write", Tables: 8, TableSize: 1000, Rand: Distribution{Type: tc.typ}}.Probe(ctx)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s on %s: %v", tc.typ, tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path)):
			t.Errorf("%s on %s: %v, want the path and %q", tc.typ, tc.path, err, tc.want)
		}
	}
}

// The default distribution's argv and definition are those of every
// stored study of the default workload (their fingerprints rest on
// them): the options below, in this order.
func TestDefaultDistributionArgsUnchanged(t *testing.T) {
	want := []string{"oltp_read_write", "--db-driver=mysql", "--mysql-socket=/s", "--mysql-user=root", "--mysql-db=sbtest", "--tables=8", "--table-size=500000",
		"--rand-type=special", "--rand-spec-iter=12", "--rand-spec-pct=1", "--rand-spec-res=75", "--rand-pareto-h=0.2",
		"--db-ps-mode=auto", "--mysql-ignore-errors=1213,1020,1205", "--rate=0", "--percentile=95", "--range_size=100",
		"--point_selects=10", "--simple_ranges=1", "--sum_ranges=1", "--order_ranges=1", "--distinct_ranges=1",
		"--index_updates=1", "--non_index_updates=1", "--delete_inserts=1", "--range_selects=on", "--skip_trx=off",
		"--auto_inc=on", "--secondary=off", "--create_secondary=on", "--mysql_storage_engine=innodb", "run"}
	srv := &runner.Server{Socket: "/s"}
	got := Bench{Workload: "oltp_read_write", Tables: 8, TableSize: 500000}.Args(srv, false, "run")
	if !slices.Equal(got, want) {
		t.Errorf("default args\n got %q\nwant %q", got, want)
	}
	// The default given explicitly is the default.
	explicit := Bench{Workload: "oltp_read_write", Tables: 8, TableSize: 500000, Rand: Distribution{Type: "special", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8}}
	if e := explicit.Args(srv, false, "run"); !slices.Equal(e, got) {
		t.Errorf("explicit default args %q, want %q", e, got)
	}
}

// Each distribution passes --rand-type and the shape options it reads,
// and the definition records exactly what is passed; its label names
// the shape options that are not their defaults.
func TestDistributionOptions(t *testing.T) {
	fake := helpSysbench(t, "sysbench 1.0.20", "", "")
	for _, tc := range []struct {
		d           Distribution
		want, label string // passed; String
	}{
		{Distribution{}, "--rand-type=special --rand-spec-iter=12 --rand-spec-pct=1 --rand-spec-res=75 --rand-pareto-h=0.2", "--rand-type=special"},
		{Distribution{Type: "special", SpecPct: 5}, "--rand-type=special --rand-spec-iter=12 --rand-spec-pct=5 --rand-spec-res=75 --rand-pareto-h=0.2", "--rand-type=special --rand-spec-pct=5"},
		{Distribution{Type: "uniform", ParetoH: 0.5}, "--rand-type=uniform", "--rand-type=uniform"},
		{Distribution{Type: "gaussian"}, "--rand-type=gaussian --rand-spec-iter=12", "--rand-type=gaussian"},
		{Distribution{Type: "pareto", ParetoH: 0.3}, "--rand-type=pareto --rand-pareto-h=0.3", "--rand-type=pareto --rand-pareto-h=0.3"},
		{Distribution{Type: "zipfian"}, "--rand-type=zipfian --rand-zipfian-exp=0.8", "--rand-type=zipfian"},
		{Distribution{Type: "zipfian", ZipfianExp: 1.2}, "--rand-type=zipfian --rand-zipfian-exp=1.2", "--rand-type=zipfian --rand-zipfian-exp=1.2"},
	} {
		if got := tc.d.String(); got != tc.label {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.label)
		}
		b := Bench{Path: fake, Workload: "oltp_read_only", Tables: 2, TableSize: 100, Rand: tc.d}
		def, err := b.Definition(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var rand []string
		for _, k := range slices.Sorted(maps.Keys(def.Options)) {
			if strings.HasPrefix(k, "rand-") {
				rand = append(rand, "--"+k+"="+def.Options[k])
			}
		}
		passed := strings.Fields(tc.want)
		slices.Sort(passed)
		if !slices.Equal(rand, passed) {
			t.Errorf("%+v: definition holds %q, want %q", tc.d, rand, passed)
		}
		args := b.Args(&runner.Server{Socket: "/s"}, false, "run")
		for _, o := range strings.Fields(tc.want) {
			if !slices.Contains(args, o) {
				t.Errorf("%+v: %s not passed: %q", tc.d, o, args)
			}
		}
	}
}

// The tuner's command of the case passes no --rand-type; autotune's
// passes one on every distribution, prepare and run alike.
func TestEveryRunPassesTheDistribution(t *testing.T) {
	for _, l := range strings.Split(readCase(t, "trial-command.txt"), "\n") {
		if !strings.HasPrefix(l, "#") && strings.Contains(l, "--rand-type") {
			t.Fatalf("the case's trial command was meant to lack --rand-type: %q", l)
		}
	}
	srv := &runner.Server{Socket: "/s"}
	for _, typ := range RandTypes {
		b := Bench{Workload: "oltp_read_write", Tables: 8, TableSize: 500000, Rand: Distribution{Type: typ}}
		for _, args := range [][]string{b.Args(srv, false, "prepare"), b.runArgs(srv, false, 16, 120), b.runArgs(srv, true, 16, 120)} {
			if !slices.Contains(args, "--rand-type="+typ) {
				t.Errorf("%s: %q lacks --rand-type=%s", typ, args, typ)
			}
		}
	}
}

func TestDistributionCheck(t *testing.T) {
	for _, tc := range []struct {
		d    Distribution
		want string
	}{
		{Distribution{}, ""},
		{Distribution{Type: "zipfian", ZipfianExp: 1.5}, ""},
		{Distribution{Type: "exponential"}, `--rand-type "exponential": want one of uniform, gaussian, special, pareto, zipfian`},
		{Distribution{SpecIter: -1}, "--rand-spec-iter -1: want >= 1"},
		{Distribution{SpecPct: 101}, "--rand-spec-pct 101: want a percentage 1..100"},
		{Distribution{SpecRes: -3}, "--rand-spec-res -3: want a percentage 1..100"},
		{Distribution{Type: "pareto", ParetoH: 1}, "--rand-pareto-h 1: want 0 < h < 1"},
		{Distribution{Type: "zipfian", ZipfianExp: -0.5}, "--rand-zipfian-exp -0.5: want an exponent > 0"},
	} {
		err := tc.d.Check()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%#v: %v, want %q", tc.d, err, tc.want)
		}
	}
}
