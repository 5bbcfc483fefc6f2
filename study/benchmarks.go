package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/runner/benchcmd"
	"github.com/autotune/autotune/runner/replay"
	"github.com/autotune/autotune/runner/sysbench"
	"github.com/autotune/autotune/runner/tpcc"
)

// The built-in benchmark drivers, one line each. A new driver is one
// package (its benchmark implementing engine.Benchmark) plus one line here
// and an adapter from Bench below.
func init() {
	Register("sysbench", sysbenchDriver{})
	Register("command", commandDriver{})
	Register("replay", replayDriver{})
	Register("tpcc", tpccDriver{})
}

// DefaultDriver is --benchmark's default.
const DefaultDriver = "sysbench"

// ReplayPrefix starts a --workload that names a captured workload file
// (replay:FILE): it selects the replay driver.
const ReplayPrefix = "replay:"

// DriverFor returns the driver that runs a command line's benchmark:
// --workload replay:FILE selects the replay driver, --workload tpcc the
// tpcc driver and --bench-cmd (benchCmd) the command driver, unless
// --benchmark (benchmark, DefaultDriver when not given) names another;
// else the driver benchmark names. The error refuses a --benchmark other
// than replay with --workload replay:FILE, and a --bench-cmd with a
// --benchmark that is not registered or would ignore it (does not refuse
// it).
func DriverFor(benchmark, workload, benchCmd string) (string, error) {
	switch {
	case strings.HasPrefix(workload, ReplayPrefix):
		if benchmark != DefaultDriver && benchmark != "replay" {
			return "", fmt.Errorf("--benchmark %s: not with --workload %s (the workload file is the benchmark)", benchmark, workload)
		}
		return "replay", nil
	case workload == "tpcc" && benchmark == DefaultDriver:
		return "tpcc", nil
	case benchCmd != "" && (benchmark == DefaultDriver || benchmark == "command"):
		return "command", nil
	case benchCmd != "":
		// A driver that refuses --bench-cmd says why (CheckFlags).
		if _, err := lookupDriver(benchmark); err != nil || HonoursFlag(benchmark, "bench-cmd") {
			return "", fmt.Errorf("--bench-cmd: not with --benchmark %s (the command is the benchmark)", benchmark)
		}
	}
	return benchmark, nil
}

// sysbenchDriver runs a sysbench OLTP workload (runner/sysbench).
type sysbenchDriver struct{}

// Open refuses a --workload that is not one of sysbench.Workloads and a
// distribution out of range (sysbench.Distribution.Check).
func (sysbenchDriver) Open(b BenchSettings) (engine.Benchmark, error) {
	if !slices.Contains(sysbench.Workloads, b.Workload) {
		return nil, fmt.Errorf("--workload %q: want one of %s", b.Workload, strings.Join(sysbench.Workloads, ", "))
	}
	if err := b.Rand.Check(); err != nil {
		return nil, err
	}
	return sysbench.Bench{Path: b.Path, Workload: b.Workload, Tables: b.Tables, TableSize: b.TableSize, Rand: b.Rand}, nil
}

// OpenSkewed opens b under the distribution dist with b's shape
// options; it refuses a dist that is not one of sysbench.RandTypes or
// is b's own --rand-type.
func (d sysbenchDriver) OpenSkewed(b BenchSettings, dist string) (engine.Benchmark, string, error) {
	if !slices.Contains(sysbench.RandTypes, dist) {
		return nil, "", fmt.Errorf("--skew-check %q: want one of %s", dist, strings.Join(sysbench.RandTypes, ", "))
	}
	if dist == b.Rand.Name() {
		return nil, "", fmt.Errorf("--skew-check %s: it is the study's own --rand-type; want another distribution to measure the best under", dist)
	}
	b.Rand = b.Rand.With(dist)
	bench, err := d.Open(b)
	if err != nil {
		return nil, "", err
	}
	return bench, b.Rand.String(), nil
}

// OwnFlags are the access distribution's flags and --skew-check: only
// sysbench's OLTP workloads have them.
func (sysbenchDriver) OwnFlags() []Refusal {
	const why = "only with a sysbench workload (--workload oltp_*): the access distribution is sysbench's"
	out := []Refusal{{"rand-type", why}}
	for _, o := range sysbench.ShapeOptions {
		out = append(out, Refusal{o, why})
	}
	return append(out, Refusal{"skew-check", why})
}

// tpccDriver runs TPC-C with go-tpc (runner/tpcc).
type tpccDriver struct{}

// Open refuses another --workload than tpcc, a warehouse count outside
// 1..10000, a server autotune did not start and a go-tpc it cannot find
// (tpcc.Find).
func (tpccDriver) Open(b BenchSettings) (engine.Benchmark, error) {
	switch {
	case b.Workload != "tpcc":
		return nil, fmt.Errorf("--benchmark tpcc runs --workload tpcc, not %q", b.Workload)
	case b.Warehouses < 1 || b.Warehouses > 10000:
		return nil, fmt.Errorf("--warehouses %d: want 1..10000", b.Warehouses)
	case b.ExistingServer:
		return nil, fmt.Errorf("--workload tpcc: not with --dsn (go-tpc takes a password on its command line, which autotune does not do: TPC-C runs on the sandbox)")
	}
	if _, err := tpcc.Find(b.TPCCPath); err != nil {
		return nil, err
	}
	return tpcc.Bench{Path: b.TPCCPath, Warehouses: b.Warehouses}, nil
}

// RefusedFlags are the sysbench dataset and program flags.
func (tpccDriver) RefusedFlags() []Refusal {
	const why = "not with --workload tpcc (its dataset is sized by --warehouses, and go-tpc runs it)"
	return []Refusal{{"tables", why}, {"table-size", why}, {"sysbench", why}, {"bench-cmd", why},
		{"benchmark-build", "not with --workload tpcc (go-tpc is found by --tpcc-path)"}}
}

// OwnFlags are --warehouses and --tpcc-path.
func (tpccDriver) OwnFlags() []Refusal {
	const why = "only with --workload tpcc"
	return []Refusal{{"warehouses", why}, {"tpcc-path", why}}
}

// commandDriver runs the --bench-cmd command on a sysbench dataset
// (runner/benchcmd).
type commandDriver struct{}

// Open refuses a missing or malformed --bench-cmd and, as the sysbench
// driver, a --workload sysbench cannot load.
func (commandDriver) Open(b BenchSettings) (engine.Benchmark, error) {
	if b.Command == "" {
		return nil, fmt.Errorf("--benchmark command needs --bench-cmd 'COMMAND'")
	}
	args, err := benchcmd.ParseBenchCmd(b.Command)
	if err != nil {
		return nil, err
	}
	loader, err := sysbenchDriver{}.Open(BenchSettings{Path: b.Path, Workload: b.Workload, Tables: b.Tables, TableSize: b.TableSize})
	if err != nil {
		return nil, err
	}
	return benchcmd.Command{Args: args, Tables: b.Tables, TableSize: b.TableSize, Loader: loader.(sysbench.Bench)}, nil
}

// RefusedFlags is --benchmark-build: sysbench only loads the dataset.
func (commandDriver) RefusedFlags() []Refusal {
	return []Refusal{{"benchmark-build", "not with --bench-cmd (the command is the benchmark; sysbench only loads its dataset)"}}
}

// replayDriver replays a workload file of autotune capture
// (runner/replay).
type replayDriver struct{}

// Open reads the workload file and hashes the dump (replay.New and its
// errors); it refuses a --workload without replay:FILE.
func (replayDriver) Open(b BenchSettings) (engine.Benchmark, error) {
	file, ok := strings.CutPrefix(b.Workload, ReplayPrefix)
	if !ok || file == "" {
		return nil, fmt.Errorf("--workload %q: the replay driver wants replay:FILE, a workload file written by autotune capture", b.Workload)
	}
	return replay.New(replay.Options{File: file, Dump: b.Data, Speed: b.Speed, ReadOnly: b.ExistingServer, Prepared: b.Prepared})
}

// RefusedFlags are the flags of a sysbench dataset, its program and its
// concurrency: the workload file is the benchmark.
func (replayDriver) RefusedFlags() []Refusal {
	const why = "not with --workload " + ReplayPrefix + "FILE: the workload file is the benchmark (its connections are the concurrency, the --data dump the dataset)"
	var out []Refusal
	for _, f := range []string{"threads", "tables", "table-size", "sysbench", "bench-cmd", "benchmark-build"} {
		out = append(out, Refusal{f, why})
	}
	return out
}

// OwnFlags are --data, --speed and --prepared.
func (replayDriver) OwnFlags() []Refusal {
	const why = "needs --workload " + ReplayPrefix + "FILE (a replay)"
	return []Refusal{{"data", why}, {"speed", why}, {"prepared", why}}
}
