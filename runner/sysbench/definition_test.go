package sysbench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner"
)

// Every option of the definition is passed to sysbench explicitly, with
// the value the definition records, and the version is sysbench's own.
func TestArgsPassEveryDefinedOption(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "sysbench")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := Bench{Path: fake, Workload: "oltp_read_write", Tables: 8, TableSize: 500000}
	d, err := b.Definition(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)" {
		t.Errorf("version %q", d.Version)
	}
	args := b.Args(&runner.Server{Socket: "/s"}, false, "run")
	if args[0] != d.Options["workload"] {
		t.Errorf("workload %q, definition %q", args[0], d.Options["workload"])
	}
	for _, k := range d.Names() {
		if k == "workload" {
			continue
		}
		if want := "--" + k + "=" + d.Options[k]; !slices.Contains(args, want) {
			t.Errorf("%s not among the arguments %q", want, args)
		}
	}
}

func TestPrepareLimit(t *testing.T) {
	for _, tc := range []struct {
		rows int64
		want time.Duration
	}{
		{0, 10 * time.Minute},
		{4_000_000, 14 * time.Minute}, // the default dataset, about a minute here
		{500_000, 10*time.Minute + 30*time.Second},
		{100_000_000, 110 * time.Minute},
	} {
		if got := PrepareLimit(tc.rows); got != tc.want {
			t.Errorf("PrepareLimit(%d) = %s, want %s", tc.rows, got, tc.want)
		}
	}
}

// Debian's sysbench accepts every option a run passes, over a socket and
// over TCP; a build whose help lacks --rand-spec-* (as sysbench 0.5 did)
// is refused before any work, naming each option it lacks.
func TestProbeRefusesABuildWithoutTheOptions(t *testing.T) {
	ctx := context.Background()
	if path, err := exec.LookPath("sysbench"); err != nil {
		realtest.Program(t, err)
	} else if err := (Bench{Path: path, Workload: "oltp_read_write", Tables: 8, TableSize: 1000}).Probe(ctx); err != nil {
		t.Errorf("Debian's sysbench: %v", err)
	}
	dir := t.TempDir()
	general, err := os.ReadFile("../testdata/help/sysbench-1.0.20-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, l := range strings.Split(string(general), "\n") {
		if !strings.Contains(l, "--rand-spec-") {
			old = append(old, l)
		}
	}
	os.WriteFile(filepath.Join(dir, "general.txt"), []byte(strings.Join(old, "\n")), 0o644)
	workload, _ := os.ReadFile("../testdata/help/sysbench-1.0.20-oltp_read_write-help.txt")
	os.WriteFile(filepath.Join(dir, "workload.txt"), workload, 0o644)
	fake := filepath.Join(dir, "sysbench")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo 'sysbench 0.5';;\n--help) cat " + dir + "/general.txt;;\n*) cat " + dir + "/workload.txt;;\nesac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err = Bench{Path: fake, Workload: "oltp_read_write", Tables: 8, TableSize: 1000}.Probe(ctx)
	if err == nil || !strings.Contains(err.Error(), "(sysbench 0.5) does not accept --rand-spec-iter, --rand-spec-pct, --rand-spec-res") {
		t.Errorf("old build: %v", err)
	}
}
