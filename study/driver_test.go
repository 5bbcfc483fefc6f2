package study

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autotune/autotune/engine"
)

// The tests' fake drivers, registered once for the test binary as a
// built-in driver is (benchmarks.go).
func init() {
	Register("scripted", scriptedDriver{})
	Register("counting", &counting)
}

// scriptedDriver opens the scripted benchmark (modes_test.go) whatever
// the settings.
type scriptedDriver struct{}

func (scriptedDriver) Open(BenchSettings) (engine.Benchmark, error) { return scripted{}, nil }

// countingDriver opens the scripted benchmark and counts its Opens.
type countingDriver struct{ opens atomic.Int64 }

func (d *countingDriver) Open(BenchSettings) (engine.Benchmark, error) {
	d.opens.Add(1)
	return scripted{}, nil
}

// counting is the driver "counting".
var counting countingDriver

// A run measures with the benchmark the command line built while it
// checked the flags (Config.Benchmark): the run's build step does not
// open the driver again. Without one, the run opens it itself, once. The
// run fails on the way (no server at the --dsn), after its build step.
func TestRunUsesTheBenchmarkBuiltOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{Study: "noise", Trials: 1, Space: MeasuredSpace("", ""),
		Bench:    BenchSettings{Driver: "counting", Workload: "scripted", Threads: []int{4}},
		Measure:  Measure{Warmup: time.Second, Duration: time.Second, Objective: "tps", SteadyBlock: time.Second, SteadySpread: 0.1, SteadyTrend: 0.1},
		Existing: &ExistingServer{DSN: "root@unix(" + filepath.Join(dir, "none.sock") + ")/", ConfigFile: filepath.Join(dir, "include.cnf")}}
	noise := func() {
		t.Helper()
		_, err := Noise(ctx, cfg, nil, 2, silent{})
		if err == nil || !strings.Contains(err.Error(), "none.sock") {
			t.Fatalf("Noise on no server: %v, want the failed connection", err)
		}
	}
	n0 := counting.opens.Load()
	b, err := OpenBenchmark(cfg) // as the command line does
	if err != nil {
		t.Fatal(err)
	}
	cfg.Benchmark = b
	noise()
	if got := counting.opens.Load() - n0; got != 1 {
		t.Errorf("the flag check and the run opened the driver %d times, want once", got)
	}
	cfg.Benchmark = nil
	n0 = counting.opens.Load()
	noise()
	if got := counting.opens.Load() - n0; got != 1 {
		t.Errorf("a run without Config.Benchmark opened the driver %d times, want once", got)
	}
}

// Register refuses a second driver under a taken name, a nameless and a
// nil driver: drivers register once.
func TestRegisterRefusesTakenNamesAndNil(t *testing.T) {
	for name, d := range map[string]Driver{"sysbench": scriptedDriver{}, "": scriptedDriver{}, "nil": nil} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %v) did not panic", name, d)
				}
			}()
			Register(name, d)
		}()
	}
	if got := strings.Join(DriverNames(), ","); got != "command,counting,replay,scripted,sysbench,tpcc" {
		t.Errorf("DriverNames = %s", got)
	}
}

// An unknown --benchmark is refused with its name and the registered
// drivers' names, sorted.
func TestUnknownDriverNamesTheRegisteredOnes(t *testing.T) {
	_, err := OpenBenchmark(Config{Bench: BenchSettings{Driver: "hammerdb"}})
	if want := `--benchmark "hammerdb": want one of command, counting, replay, scripted, sysbench, tpcc`; !IsUsage(err) || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// The command line's --benchmark, --workload and --bench-cmd select one
// driver; a --benchmark they contradict is refused.
func TestDriverFor(t *testing.T) {
	for _, tc := range []struct {
		benchmark, workload, benchCmd string
		want, err                     string
	}{
		{"sysbench", "oltp_read_write", "", "sysbench", ""},
		{"sysbench", "tpcc", "", "tpcc", ""},
		{"tpcc", "oltp_read_write", "", "tpcc", ""},
		{"command", "tpcc", "", "command", ""},
		{"sysbench", "replay:w.jsonl", "", "replay", ""},
		{"replay", "replay:w.jsonl", "", "replay", ""},
		{"replay", "oltp_read_write", "", "replay", ""},
		{"command", "replay:w.jsonl", "", "", "--benchmark command: not with --workload replay:w.jsonl (the workload file is the benchmark)"},
		{"sysbench", "replay:w.jsonl", "x", "replay", ""},
		{"sysbench", "oltp_read_write", "x {threads}", "command", ""},
		{"command", "oltp_read_write", "x {threads}", "command", ""},
		{"tpcc", "tpcc", "x", "tpcc", ""}, // tpcc refuses --bench-cmd itself (CheckFlags)
		{"hammerdb", "oltp_read_write", "x", "", "--bench-cmd: not with --benchmark hammerdb (the command is the benchmark)"},
		{"hammerdb", "oltp_read_write", "", "hammerdb", ""}, // unknown: CheckFlags and Open say so
	} {
		got, err := DriverFor(tc.benchmark, tc.workload, tc.benchCmd)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("DriverFor(%q, %q, %q) = %q, %v; want %q, %q", tc.benchmark, tc.workload, tc.benchCmd, got, err, tc.want, tc.err)
		}
	}
}

// Each driver refuses, with its own reason, the flags its runs cannot
// honour and the other drivers' own flags; what it does not refuse it
// honours (HonoursFlag).
func TestDriversRefuseFlagsTheyCannotHonour(t *testing.T) {
	const (
		replayOnly = "needs --workload replay:FILE (a replay)"
		tpccOnly   = "only with --workload tpcc"
		notTPCC    = "not with --workload tpcc (its dataset is sized by --warehouses, and go-tpc runs it)"
		notReplay  = "not with --workload replay:FILE: the workload file is the benchmark (its connections are the concurrency, the --data dump the dataset)"
	)
	want := map[string]map[string]string{ // driver → flag → why ("": honoured)
		"sysbench": {"threads": "", "tables": "", "table-size": "", "sysbench": "", "benchmark-build": "",
			"data": replayOnly, "speed": replayOnly, "prepared": replayOnly, "warehouses": tpccOnly, "tpcc-path": tpccOnly},
		"command": {"threads": "", "tables": "", "table-size": "", "sysbench": "", "bench-cmd": "",
			"benchmark-build": "not with --bench-cmd (the command is the benchmark; sysbench only loads its dataset)",
			"data":            replayOnly, "warehouses": tpccOnly},
		"tpcc": {"threads": "", "warehouses": "", "tpcc-path": "", "tables": notTPCC, "table-size": notTPCC, "sysbench": notTPCC, "bench-cmd": notTPCC,
			"benchmark-build": "not with --workload tpcc (go-tpc is found by --tpcc-path)", "data": replayOnly, "prepared": replayOnly},
		"replay": {"data": "", "speed": "", "prepared": "", "threads": notReplay, "tables": notReplay, "table-size": notReplay,
			"sysbench": notReplay, "bench-cmd": notReplay, "benchmark-build": notReplay, "warehouses": tpccOnly, "tpcc-path": tpccOnly},
	}
	for driver, flags := range want {
		for flag, why := range flags {
			err := CheckFlags(driver, func(name string) bool { return name == flag })
			switch {
			case why == "" && err != nil:
				t.Errorf("%s --%s: %v, want it honoured", driver, flag, err)
			case why != "" && (err == nil || err.Error() != "--"+flag+": "+why || !IsUsage(err)):
				t.Errorf("%s --%s: %v, want a usage error --%s: %s", driver, flag, err, flag, why)
			}
			if HonoursFlag(driver, flag) != (why == "") {
				t.Errorf("HonoursFlag(%s, %s) = %v", driver, flag, !(why == ""))
			}
		}
	}
	// An unknown driver refuses the drivers' own flags first, then
	// itself.
	if err := CheckFlags("hammerdb", func(n string) bool { return n == "warehouses" }); err == nil || err.Error() != "--warehouses: "+tpccOnly {
		t.Errorf("hammerdb --warehouses: %v", err)
	}
	if err := CheckFlags("hammerdb", func(string) bool { return false }); !IsUsage(err) || !strings.Contains(err.Error(), `--benchmark "hammerdb": want one of`) {
		t.Errorf("hammerdb: %v", err)
	}
	if HonoursFlag("hammerdb", "threads") {
		t.Error("an unknown driver honours --threads")
	}
}
