package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner/replay"
	"github.com/autotune/autotune/study"
)

// planned is what a study command would run: the engine's configuration
// and what the command itself does with the rest of its flags.
type planned struct {
	Cfg   study.Config
	Extra any
}

// studyCmd is a command that turns flags into a study.Config.
type studyCmd struct {
	name string
	// base are arguments every case needs.
	base []string
	// plan builds the command and returns what it would run for args.
	plan func(t *testing.T, args []string) (planned, error)
}

func planWith[O interface {
	config(*pflag.FlagSet) (study.Config, error)
}](o O, cmd *cobra.Command, extra func() any) func(t *testing.T, args []string) (planned, error) {
	return func(t *testing.T, args []string) (planned, error) {
		if err := cmd.ParseFlags(args); err != nil {
			return planned{}, usageError{Err: err}
		}
		c, err := o.config(cmd.Flags())
		return planned{Cfg: c, Extra: extra()}, err
	}
}

func studyCmds() []studyCmd {
	search := func(base ...string) studyCmd {
		return studyCmd{name: "search " + strings.Join(base, " "), base: base, plan: func(t *testing.T, args []string) (planned, error) {
			o := &searchOptions{}
			return planWith(o, newSearchCmdWith(o), func() any { return o.json })(t, args)
		}}
	}
	return []studyCmd{
		search("--trials", "3"),
		search("--trials", "3", "--dsn", "root@unix(/s)/", "--config-file", "x.cnf"),
		{name: "worker", base: []string{"--trials", "3", "--db", "mysql://u@127.0.0.1:3306/d"}, plan: func(t *testing.T, args []string) (planned, error) {
			o := &workerOptions{}
			return planWith(o, newWorkerCmdWith(o), func() any { return o.json })(t, args)
		}},
		{name: "minimize", plan: func(t *testing.T, args []string) (planned, error) {
			o := &minimizeOptions{}
			return planWith(o, newMinimizeCmdWith(o), func() any { return o.json })(t, args)
		}},
		{name: "noise", plan: func(t *testing.T, args []string) (planned, error) {
			o := &noiseOptions{}
			return planWith(o, newNoiseCmdWith(o), func() any { return [2]any{o.repeats, o.set} })(t, args)
		}},
		{name: "verify", plan: func(t *testing.T, args []string) (planned, error) {
			f := filepath.Join(t.TempDir(), "best.cnf")
			if err := os.WriteFile(f, []byte("[mysqld]\ninnodb_buffer_pool_size = 1G\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			o := &verifyOptions{}
			return planWith(o, newVerifyCmdWith(o), func() any { return [3]any{o.pairs, o.baselineCnf, o.reference} })(t, append([]string{f}, args...))
		}},
	}
}

// altValues are values other than the default for every flag of the
// study commands; each must change what runs or be refused.
func altValues(t *testing.T) map[string]string {
	dir := t.TempDir()
	cnf := filepath.Join(dir, "my.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\ninnodb_io_capacity = 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"study": "other", "db": "other.db", "budget": "1h", "trials": "5", "seed": "7", "allow-changes": "true", "json": "true",
		"benchmark": "command", "workload": "oltp_read_only", "threads": "8", "tables": "4", "table-size": "1000", "sysbench": "/opt/sysbench",
		"bench-cmd": "mybench {threads}", "workdir": "w2", "warmup": "10s", "duration": "30s", "warmup-max": "120s", "cold-start": "true", "memory-limit": "2G", "host-fault-wait": "1m", "reference": "other.cnf", "prune": "false",
		"lambda": "1", "objective": "qps", "max-p95": "50", "dip-share": "0.3", "steady-block": "3s", "steady-spread": "0.2", "steady-trend": "0.2",
		"strategy": "tpe", "warm-start": "false", "confirm": "3", "recheck-every": "5", "ab-pairs": "4", "ab-share": "0.2",
		"mysqld": "/opt/mariadbd", "durability": "relaxed", "space": "../../examples/space-conservative.toml",
		"server-build": "a=/bin/true", "benchmark-build": "b=/bin/true", "memory-budget": "50%", "apply": "dynamic", "baseline-cnf": cnf,
		"dsn": "root@tcp(127.0.0.1:3307)/", "config-file": "y.cnf", "restart-cmd": "/bin/restart now", "allow-restart": "true",
		"i-understand-this-is-not-a-sandbox": "true", "password-file": "pw.cnf",
		"seed-from": cnf, "data": "dump.sql", "speed": "1", "prepared": "true",
		"warehouses": "2", "tpcc-path": "/opt/go-tpc",
		"heartbeat": "5s", "repeats": "3", "set": "innodb_io_capacity=1000", "pairs": "3",
		"minimize": "false", "minimize-pairs": "3", "minimize-share": "0.4",
		"rand-type": "uniform", "rand-spec-iter": "8", "rand-spec-pct": "5", "rand-spec-res": "60", "rand-pareto-h": "0.3", "rand-zipfian-exp": "1.2",
		"skew-check": "uniform",
	}
}

// TestEveryFlagChangesTheRunOrIsRefused walks every flag of search (in
// both modes), worker, noise and verify: set to another value, each flag must
// change the configuration the command hands to the engine (or the
// command's own output mode), or be refused with a usage error naming it.
// No flag is accepted and ignored.
func TestEveryFlagChangesTheRunOrIsRefused(t *testing.T) {
	alt := altValues(t)
	for _, sc := range studyCmds() {
		t.Run(sc.name, func(t *testing.T) {
			base, err := sc.plan(t, sc.base)
			if err != nil {
				t.Fatalf("base %v: %v", sc.base, err)
			}
			o := &searchOptions{}
			var names []string
			probe := newSearchCmdWith(o)
			if strings.HasPrefix(sc.name, "worker") {
				probe = newWorkerCmd()
			} else if sc.name == "noise" {
				probe = newNoiseCmd()
			} else if sc.name == "verify" {
				probe = newVerifyCmd()
			} else if sc.name == "minimize" {
				probe = newMinimizeCmd()
			}
			probe.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
			sort.Strings(names)
			changed, refused := 0, 0
			for _, name := range names {
				v, ok := alt[name]
				if !ok {
					t.Errorf("--%s: no test value: add one to altValues", name)
					continue
				}
				got, err := sc.plan(t, append(append([]string{}, sc.base...), "--"+name+"="+v))
				switch {
				case err != nil:
					if !study.IsUsage(err) || !strings.Contains(err.Error(), "--"+name) {
						t.Errorf("--%s=%s: error %v: want a usage error naming --%s", name, v, err, name)
					}
					refused++
				case reflect.DeepEqual(got, base):
					t.Errorf("--%s=%s: accepted but changes nothing that runs", name, v)
				default:
					changed++
				}
			}
			t.Logf("%d flags change the run, %d are refused", changed, refused)
		})
	}
}

func TestSearchFlagValidation(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--threads", "8,0"}, "--threads 0"},
		{[]string{"--objective", "latency"}, "--objective"},
		{[]string{"--max-p95", "-1"}, "--max-p95"},
		{[]string{"--confirm", "-1"}, "--confirm"},
		{[]string{"--confirm", "21"}, "want auto or a count 0..20"},
		{[]string{"--confirm", "often"}, "want auto or a count 0..20"},
		{[]string{"--bench-cmd", "x {nope}"}, "unknown placeholder"},
		{[]string{"--bench-cmd", "'"}, "--bench-cmd"},
		{[]string{"--steady-block", "1500ms"}, "--steady-block"},
		{[]string{"--ab-share", "0.95"}, "--ab-share"},
		{[]string{"--strategy", "genetic"}, "--strategy"},
		{[]string{"--config-file", "x.cnf"}, "needs --dsn"},
		{[]string{"--dsn", "root@unix(/s)/"}, "--config-file"},
		{[]string{"--dsn", "root:pw@unix(/s)/", "--config-file", "x"}, "holds a password"},
		{[]string{"--dsn", "@unix(/s)/", "--config-file", "x"}, "no user"},
		{[]string{"--baseline-cnf", os.TempDir()}, "not a regular file"},
		{[]string{"--space", os.TempDir()}, "not a regular file"},
		{[]string{"--sysbench", "/usr/bin/sysbench", "--benchmark-build", "a=/bin/true"}, "--sysbench and --benchmark-build: give one"},
		{[]string{"--objective", "p95", "--prune"}, "--prune: early stopping judges one thread level's throughput"},
		{[]string{"--threads", "4,8", "--prune=true"}, "--prune: early stopping"},
		{[]string{"--dsn", "root@unix(/s)/", "--config-file", "x", "--allow-restart"}, "--restart-cmd"},
		{[]string{"--dsn", "root@unix(/s)/", "--config-file", "x", "--restart-cmd", `sh -c 'unterminated`}, "--restart-cmd"},
		{[]string{"--dsn", "root@unix(/s)/", "--config-file", "x", "--workdir", "w"}, "--workdir: not with --dsn"},
		{[]string{"--warehouses", "2"}, "--warehouses: only with --workload tpcc"},
		{[]string{"--tpcc-path", "/x/go-tpc"}, "--tpcc-path: only with --workload tpcc"},
		{[]string{"--workload", "tpcc", "--tables", "4"}, "--tables: not with --workload tpcc"},
		{[]string{"--workload", "tpcc", "--warehouses", "0"}, "--warehouses 0"},
		{[]string{"--workload", "tpcc", "--tpcc-path", "/nonexistent/go-tpc"}, "--tpcc-path"},
		{[]string{"--benchmark", "tpcc"}, "--benchmark tpcc runs --workload tpcc"},
		{[]string{"--workload", "tpcc", "--bench-cmd", "x"}, "--bench-cmd: not with --workload tpcc (its dataset is sized by --warehouses, and go-tpc runs it)"},
		{[]string{"--workload", "tpcc", "--benchmark-build", "a=/bin/true"}, "--benchmark-build: not with --workload tpcc (go-tpc is found by --tpcc-path)"},
		{[]string{"--workload", "tpcc", "--dsn", "root@unix(/s)/", "--config-file", "x"}, "--workload tpcc: not with --dsn (go-tpc takes a password on its command line"},
		{[]string{"--bench-cmd", "x {threads}", "--benchmark-build", "a=/bin/true"}, "--benchmark-build: not with --bench-cmd (the command is the benchmark; sysbench only loads its dataset)"},
		{[]string{"--prepared"}, "--prepared: needs --workload replay:FILE (a replay)"},
		{[]string{"--benchmark", "hammerdb"}, `--benchmark "hammerdb": want one of command, replay, sysbench, tpcc`},
		{[]string{"--benchmark", "hammerdb", "--bench-cmd", "x"}, "--bench-cmd: not with --benchmark hammerdb (the command is the benchmark)"},
	} {
		cmd := newSearchCmd()
		command.Prepare(cmd) // as under the root command
		cmd.SetArgs(append([]string{"--trials", "3"}, tc.args...))
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		cmd.RunE = func(*cobra.Command, []string) error { return nil }
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.err)
		}
		if err != nil && !study.IsUsage(err) {
			t.Errorf("%v: %T is not a usage error (exit 2)", tc.args, err)
		}
		if err != nil && strings.Contains(err.Error(), ":pw@") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
	// Without --prune (on by default) or with --prune=false, p95 and
	// several thread levels are accepted: they are measured in full.
	for _, args := range [][]string{{"--objective", "p95"}, {"--threads", "4,8"}, {"--objective", "p95", "--prune=false"}} {
		cmd := newSearchCmd()
		cmd.SetArgs(append([]string{"--trials", "3"}, args...))
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		cmd.RunE = func(*cobra.Command, []string) error { return nil }
		if err := cmd.Execute(); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	// A restart command is split like a shell would, and run without one.
	o := &searchOptions{}
	cmd := newSearchCmdWith(o)
	if err := cmd.ParseFlags([]string{"--trials", "3", "--dsn", "root@unix(/s)/", "--config-file", "x", "--restart-cmd", `/bin/restart "a b" c`, "--allow-restart"}); err != nil {
		t.Fatal(err)
	}
	c, err := o.config(cmd.Flags())
	if err != nil || !reflect.DeepEqual(c.Existing.RestartCmd, []string{"/bin/restart", "a b", "c"}) {
		t.Fatalf("%v %+v", err, c.Existing)
	}
}

// TestBudgetTakesDays: an overnight or weekend budget may be given in days,
// alone or with hours, as well as in Go's duration units.
func TestBudgetTakesDays(t *testing.T) {
	for in, want := range map[string]time.Duration{"2d": 48 * time.Hour, "1d12h": 36 * time.Hour, "50h": 50 * time.Hour, "90m": 90 * time.Minute} {
		o := &searchOptions{}
		cmd := newSearchCmdWith(o)
		if err := cmd.ParseFlags([]string{"--budget", in}); err != nil {
			t.Fatalf("--budget %s: %v", in, err)
		}
		c, err := o.config(cmd.Flags())
		if err != nil || c.Budget != want {
			t.Errorf("--budget %s: budget %v, %v; want %v", in, c.Budget, err, want)
		}
	}
	for _, in := range []string{"2x", "12h1d", "-1d"} {
		root := newRootCmd()
		root.SetArgs([]string{"search", "--trials", "3", "--budget", in})
		root.SetOut(new(bytes.Buffer))
		root.SetErr(new(bytes.Buffer))
		err := root.Execute()
		want := `invalid argument "` + in + `" for "--budget" flag: want a duration such as 2d, 1d12h, 50h or 90m`
		if err == nil || !strings.Contains(err.Error(), want) || !study.IsUsage(err) {
			t.Errorf("--budget %s: err %v (usage %v), want a usage error %q", in, err, study.IsUsage(err), want)
		}
	}
}

// TestEveryFlagOfTheOtherCommandsChangesTheOutputOrIsRefused walks every
// flag of the commands that read a study (and of knobs and capture): set
// to another value, each must change what the command prints or writes, or
// make it fail with an error naming the flag.
func TestEveryFlagOfTheOtherCommandsChangesTheOutputOrIsRefused(t *testing.T) {
	db := fixtureDB(t)
	work := t.TempDir()
	cnf := filepath.Join(work, "in.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\ninnodb_buffer_pool_size = 1G\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := db + ".missing"
	study := map[string]string{"study": "small", "db": missing}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		base []string
		alt  map[string]string
		real bool // needs a server
	}{
		{[]string{"export", "--study", "fix", "--db", db}, with(study, "format", "sql", "output", filepath.Join(work, "x.cnf"), "trial", "1", "full", "true"), false},
		{[]string{"trials", "--study", "fix", "--db", db}, study, false},
		{[]string{"show", "best", "--study", "fix", "--db", db}, with(study, "samples", "false"), false},
		{[]string{"studies", "--db", db}, study, false},
		{[]string{"compare", "--db", db, "fix", "small"}, study, false},
		{[]string{"report", "--study", "fix", "--db", db, "--out", filepath.Join(work, "r1")}, with(study, "out", filepath.Join(work, "r2")), false},
		{[]string{"diff", cnf, "--study", "fix", "--db", db}, with(study, "trial", "1", "dsn", "root@tcp(127.0.0.1:1)/", "password-file", "pw.cnf", "timeout", "5s"), false},
		{[]string{"capture", "--from-slow-log", "../../workload/testdata/mysql-8.0-slow.log", "--out", filepath.Join(work, "capture.jsonl")},
			map[string]string{"from-slow-log": "../../workload/testdata/percona-8.0-slow.log", "from-general-log": "../../workload/testdata/mysql-8.0-general.log",
				"out": filepath.Join(work, "capture2.jsonl.gz"), "mask-literals": "true", "dsn": "root@tcp(127.0.0.1:1)/", "for": "5s",
				"password-file": "pw.cnf", "server-log": "/tmp/capture.log", "mix-servers": "true"}, false},
		{[]string{"knobs"}, map[string]string{"durability": "relaxed", "mysqld": "/bin/false", "space": "../../examples/space-conservative.toml",
			"server-build": "a=/bin/true", "benchmark-build": "b=/bin/true", "verbose": "true"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.base[0], func(t *testing.T) {
			if tc.real {
				realtest.Require(t)
			}
			base, err := runCommand(work, tc.base)
			if err != nil {
				t.Fatalf("%v: %v", tc.base, err)
			}
			cmd, _, err := newRootCmd().Find(tc.base[:1])
			if err != nil {
				t.Fatal(err)
			}
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				v, ok := tc.alt[f.Name]
				if !ok {
					t.Errorf("--%s: no test value: add one", f.Name)
					return
				}
				got, err := runCommand(work, append(append([]string{}, tc.base...), "--"+f.Name+"="+v))
				switch {
				case err != nil:
					if !strings.Contains(err.Error(), "--"+f.Name) {
						t.Errorf("--%s=%s: error %v does not name the flag", f.Name, v, err)
					}
				case got == base:
					t.Errorf("--%s=%s: accepted but changes nothing", f.Name, v)
				}
			})
		})
	}
}

// runCommand runs autotune with args in-process and returns what it
// printed and every file under dir (name and content), as one text.
func runCommand(dir string, args []string) (string, error) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(context.Background())
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			fmt.Fprintf(&out, "\n--- %s\n%s", p, b)
		}
		return nil
	})
	return out.String(), err
}

func TestReplayFlags(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.jsonl")
	if err := os.WriteFile(wl, []byte(`{"format":"autotune-workload","version":1,"source":"slow-log","duration_us":1000,"resolution_us":1,"masked":false,"schemas":["shop"],"connections":1,"statements":1}
{"connection":1,"schema":"shop","statements":1}
{"at_us":0,"sql":"SELECT 1"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(dir, "d.sql")
	if err := os.WriteFile(dump, []byte("CREATE DATABASE shop;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	replay := []string{"--workload", "replay:" + wl, "--data", dump}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{replay, ""},
		{append(replay, "--speed", "1"), ""},
		{append(replay, "--speed", "fast"), "--speed"},
		{append(replay, "--speed", "-1"), "--speed"},
		{append(replay, "--speed", "NaN"), "--speed"},
		{append(replay, "--threads", "8"), "--threads: not with --workload replay:FILE"},
		{append(replay, "--table-size", "10"), "--table-size: not with --workload replay:FILE"},
		{append(replay, "--benchmark", "command"), "--benchmark command: not with --workload replay:"},
		{append(replay, "--sysbench", "/x"), "--sysbench: not with --workload replay:FILE"},
		{append(replay, "--benchmark-build", "a=/bin/true"), "--benchmark-build: not with --workload replay:FILE"},
		{append(replay, "--warehouses", "2"), "--warehouses: only with --workload tpcc"},
		{[]string{"--workload", "replay:" + wl}, "needs --data DUMP.sql"},
		{[]string{"--workload", "replay:" + filepath.Join(dir, "none.jsonl"), "--data", dump}, "workload file"},
		{[]string{"--workload", "replay:" + wl, "--data", filepath.Join(dir, "none.sql")}, "--data"},
		{[]string{"--data", dump}, "--data: needs --workload replay:FILE"},
		{[]string{"--speed", "1"}, "--speed: needs --workload replay:FILE"},
		{append(replay, "--dsn", "root@unix(/s)/", "--config-file", "x"), "--data " + dump + ": a server autotune does not own"},
		{[]string{"--workload", "replay:" + wl, "--dsn", "root@unix(/s)/", "--config-file", "x"}, ""},
	} {
		cmd := newSearchCmd()
		cmd.SetArgs(append([]string{"--trials", "3"}, tc.args...))
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		cmd.RunE = func(*cobra.Command, []string) error { return nil }
		err := cmd.Execute()
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.err != "" && (err == nil || !study.IsUsage(err) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want a usage error with %q", tc.args, err, tc.err)
		}
	}
}

// The benchmark the flag check builds is the one the run measures with:
// a replay reads its workload file while the flags are checked, and the
// run does not read it again. With the file gone after the check, the run
// still gets as far as the server (which is not there).
func TestBenchmarkIsBuiltOncePerRun(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.jsonl")
	if err := os.WriteFile(wl, []byte(`{"format":"autotune-workload","version":1,"source":"slow-log","duration_us":1000,"resolution_us":1,"masked":false,"schemas":["shop"],"connections":1,"statements":1}
{"connection":1,"schema":"shop","statements":1}
{"at_us":0,"sql":"SELECT 1"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &searchOptions{}
	cmd := newSearchCmdWith(o)
	sock := filepath.Join(dir, "none.sock")
	if err := cmd.ParseFlags([]string{"--trials", "3", "--db", filepath.Join(dir, "t.db"), "--workload", "replay:" + wl,
		"--dsn", "root@unix(" + sock + ")/", "--config-file", filepath.Join(dir, "include.cnf")}); err != nil {
		t.Fatal(err)
	}
	c, err := o.config(cmd.Flags())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Benchmark.(*replay.Replay); !ok {
		t.Fatalf("the flag check built %T, want the replay", c.Benchmark)
	}
	if err := os.Remove(wl); err != nil {
		t.Fatal(err)
	}
	err = runSearch(context.Background(), c, false, io.Discard)
	if err == nil || !strings.Contains(err.Error(), sock) {
		t.Fatalf("run: %v; want the failed connection to %s, not a second read of the workload file", err, sock)
	}
}

// $AUTOTUNE_PASSWORD (even empty) and --password-file both set: search and
// capture refuse (exit 2) instead of using one and ignoring the other.
func TestPasswordSources(t *testing.T) {
	t.Setenv(study.PasswordEnv, "")
	for _, args := range [][]string{
		{"search", "--trials", "3", "--dsn", "root@unix(/s)/", "--config-file", "x", "--password-file", "pw.cnf"},
		{"capture", "--dsn", "root@unix(/s)/", "--for", "1s", "--out", "w", "--password-file", "pw.cnf"},
		{"diff", "--dsn", "root@unix(/s)/", "--password-file", "pw.cnf"},
	} {
		_, err := runCommand(t.TempDir(), args)
		if want := `--password-file "pw.cnf" and $AUTOTUNE_PASSWORD both give`; err == nil || !strings.Contains(err.Error(), want) || !study.IsUsage(err) {
			t.Errorf("%v: %v, want a usage error saying %q", args, err, want)
		}
	}
	// Either alone is accepted.
	cmd := newSearchCmdWith(&searchOptions{})
	cmd.SetArgs([]string{"--trials", "3", "--dsn", "root@unix(/s)/", "--config-file", "x"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	cmd.RunE = func(*cobra.Command, []string) error { return nil }
	if err := cmd.Execute(); err != nil {
		t.Errorf("$%s alone: %v", study.PasswordEnv, err)
	}
}

// Argument mistakes, unknown commands and non-finite float flags are usage
// errors (exit 2) that name what was wrong, refused before anything runs.
func TestUsageExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify"}, "requires at least 1 arg(s), only received 0 (usage: autotune verify FILE.cnf [FILE.cnf ...]"},
		{[]string{"verify", "a.cnf", "b.cnf"}, `verify "a.cnf"`},
		{[]string{"diff"}, "(usage: autotune diff FILE"},
		{[]string{"search", "foo", "--trials", "3"}, `unknown command "foo" for "autotune search"`},
		{[]string{"bogus"}, `unknown command "bogus" for "autotune"`},
		{[]string{"search", "--trials", "3", "--lambda", "NaN"}, "--lambda NaN: want a finite number"},
		{[]string{"search", "--trials", "3", "--max-p95", "Inf"}, "--max-p95 +Inf: want a finite number"},
	} {
		dir := t.TempDir()
		out, err := runCommand(dir, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want exit 2 saying %q", tc.args, err, exitCode(err), tc.want)
		}
		if strings.Contains(out, "\n--- ") {
			t.Errorf("%v: wrote files before refusing:\n%s", tc.args, out)
		}
	}
}

// The distribution's flags: a shape flag only where --rand-type or
// --skew-check reads it, --skew-check a second distribution of a run
// with the final A/B phase, and none of them with another driver than
// sysbench (exit code 2, naming the flag).
func TestDistributionFlags(t *testing.T) {
	search := studyCmds()[0]
	plan := func(args ...string) (study.Config, error) {
		p, err := search.plan(t, append(append([]string{}, search.base...), args...))
		return p.Cfg, err
	}
	for _, tc := range []struct {
		args []string
		want string // "": accepted
	}{
		{nil, ""},
		{[]string{"--rand-type", "uniform"}, ""},
		{[]string{"--rand-type", "pareto", "--rand-pareto-h", "0.3"}, ""},
		{[]string{"--rand-type", "zipfian", "--rand-zipfian-exp", "1.1"}, ""},
		{[]string{"--rand-type", "gaussian", "--rand-spec-iter", "6"}, ""},
		{[]string{"--rand-type", "uniform", "--skew-check", "pareto", "--rand-pareto-h", "0.3"}, ""},
		{[]string{"--rand-type", "uniform", "--skew-check", "special"}, ""},
		{[]string{"--rand-type", "exponential"}, `--rand-type "exponential": want one of uniform, gaussian, special, pareto, zipfian`},
		{[]string{"--rand-pareto-h", "0.3"}, "--rand-pareto-h: not read by --rand-type special (no flag is accepted and ignored); it shapes --rand-type pareto"},
		{[]string{"--rand-type", "uniform", "--rand-spec-pct", "5"}, "--rand-spec-pct: not read by --rand-type uniform"},
		{[]string{"--rand-type", "uniform", "--skew-check", "gaussian", "--rand-spec-pct", "5"}, "--rand-spec-pct: not read by --rand-type uniform nor --skew-check gaussian"},
		{[]string{"--rand-type", "pareto", "--rand-pareto-h", "1.5"}, "--rand-pareto-h 1.5: want 0 < h < 1"},
		{[]string{"--skew-check", "special"}, "--skew-check special: it is --rand-type; want a second distribution, such as uniform"},
		{[]string{"--skew-check", "lognormal"}, `--skew-check "lognormal": want one of`},
		{[]string{"--skew-check", "uniform", "--ab-pairs", "0", "--ab-share", "0"}, "--skew-check uniform: needs the final A/B phase"},
		{[]string{"--workload", "tpcc", "--rand-type", "uniform"}, "--rand-type: only with a sysbench workload"},
		{[]string{"--workload", "tpcc", "--skew-check", "uniform"}, "--skew-check: only with a sysbench workload"},
		{[]string{"--bench-cmd", "mybench {threads}", "--rand-type", "uniform"}, "--rand-type: only with a sysbench workload"},
		{[]string{"--workload", "replay:w.jsonl", "--rand-zipfian-exp", "1.1"}, "--rand-zipfian-exp: only with a sysbench workload"},
	} {
		c, err := plan(tc.args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !study.IsUsage(err) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want a usage error saying %q", tc.args, err, tc.want)
		case tc.want == "" && tc.args == nil && (c.Bench.Rand.Name() != "special" || c.SkewCheck != ""):
			t.Errorf("defaults: %+v, skew %q", c.Bench.Rand, c.SkewCheck)
		}
	}
	c, err := plan("--rand-type", "uniform", "--skew-check", "pareto", "--rand-pareto-h", "0.3")
	if err != nil || c.Bench.Rand.Type != "uniform" || c.Bench.Rand.ParetoH != 0.3 || c.SkewCheck != "pareto" {
		t.Errorf("settings %+v, skew %q, %v", c.Bench.Rand, c.SkewCheck, err)
	}
	// Workers and minimize refuse the skew check.
	for _, sc := range studyCmds()[2:4] {
		_, err := sc.plan(t, append(append([]string{}, sc.base...), "--skew-check", "uniform"))
		if err == nil || !study.IsUsage(err) || !strings.Contains(err.Error(), "--skew-check") {
			t.Errorf("%s --skew-check: %v, want refused", sc.name, err)
		}
	}
}
