package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autotune/autotune/runner/benchcmd"
	"github.com/autotune/autotune/runner/replay"
	"github.com/autotune/autotune/runner/sysbench"
	"github.com/autotune/autotune/runner/tpcc"
	"github.com/autotune/autotune/trial"
)

// The built-in benchmark drivers, one line each. A new driver is one
// package (its benchmark implementing trial.Benchmark) plus one line here
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

// DriverFor returns the driver that runs workload when the command line
// names driver (--benchmark, DefaultDriver by default): --workload
// replay:FILE selects the replay driver, --workload tpcc the tpcc driver;
// sysbench's workload names keep driver.
func DriverFor(driver, workload string) string {
	switch {
	case strings.HasPrefix(workload, ReplayPrefix):
		return "replay"
	case workload == "tpcc" && driver == DefaultDriver:
		return "tpcc"
	}
	return driver
}

// sysbenchDriver runs a sysbench OLTP workload (runner/sysbench).
type sysbenchDriver struct{}

// Open refuses a --workload that is not one of sysbench.Workloads.
func (sysbenchDriver) Open(b Bench) (trial.Benchmark, error) {
	if !slices.Contains(sysbench.Workloads, b.Workload) {
		return nil, fmt.Errorf("--workload %q: want one of %s", b.Workload, strings.Join(sysbench.Workloads, ", "))
	}
	return sysbench.Bench{Path: b.Path, Workload: b.Workload, Tables: b.Tables, TableSize: b.TableSize}, nil
}

// tpccDriver runs TPC-C with go-tpc (runner/tpcc).
type tpccDriver struct{}

// Open refuses another --workload than tpcc, a warehouse count outside
// 1..10000 and a go-tpc it cannot find (tpcc.Find).
func (tpccDriver) Open(b Bench) (trial.Benchmark, error) {
	switch {
	case b.Workload != "tpcc":
		return nil, fmt.Errorf("--benchmark tpcc runs --workload tpcc, not %q", b.Workload)
	case b.Warehouses < 1 || b.Warehouses > 10000:
		return nil, fmt.Errorf("--warehouses %d: want 1..10000", b.Warehouses)
	}
	if _, err := tpcc.Find(b.TPCCPath); err != nil {
		return nil, err
	}
	return tpcc.Bench{Path: b.TPCCPath, Warehouses: b.Warehouses}, nil
}

// commandDriver runs the --bench-cmd command on a sysbench dataset
// (runner/benchcmd).
type commandDriver struct{}

// Open refuses a missing or malformed --bench-cmd and, as the sysbench
// driver, a --workload sysbench cannot load.
func (commandDriver) Open(b Bench) (trial.Benchmark, error) {
	if b.Command == "" {
		return nil, fmt.Errorf("--benchmark command needs --bench-cmd 'COMMAND'")
	}
	args, err := benchcmd.ParseBenchCmd(b.Command)
	if err != nil {
		return nil, err
	}
	loader, err := sysbenchDriver{}.Open(Bench{Path: b.Path, Workload: b.Workload, Tables: b.Tables, TableSize: b.TableSize})
	if err != nil {
		return nil, err
	}
	return benchcmd.Command{Args: args, Tables: b.Tables, TableSize: b.TableSize, Loader: loader.(sysbench.Bench)}, nil
}

// replayDriver replays a workload file of autotune capture
// (runner/replay).
type replayDriver struct{}

// Open reads the workload file and hashes the dump (replay.New and its
// errors); it refuses a --workload without replay:FILE.
func (replayDriver) Open(b Bench) (trial.Benchmark, error) {
	file, ok := strings.CutPrefix(b.Workload, ReplayPrefix)
	if !ok || file == "" {
		return nil, fmt.Errorf("--workload %q: the replay driver wants replay:FILE, a workload file written by autotune capture", b.Workload)
	}
	return replay.New(replay.Options{File: file, Dump: b.Data, Speed: b.Speed, ReadOnly: b.ReadOnly, Prepared: b.Prepared})
}
