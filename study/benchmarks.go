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

// Drivers are the benchmark drivers by name (--benchmark NAME). A new
// driver is one package (implementing trial.Benchmark) plus one line here;
// its constructor reads what it needs from Bench and returns an error
// naming the flag for a setting it cannot take.
var Drivers = map[string]func(Bench) (trial.Benchmark, error){
	"sysbench": newSysbench,
	"command":  newCommand,
	"replay":   newReplay,
	"tpcc":     newTPCC,
}

// ReplayPrefix starts a --workload that names a captured workload file
// (replay:FILE): it selects the replay driver.
const ReplayPrefix = "replay:"

// DriverFor returns the driver that runs workload when the command line
// names driver (--benchmark, "sysbench" by default): --workload
// replay:FILE selects the replay driver, --workload tpcc the tpcc driver;
// sysbench's workload names keep driver.
func DriverFor(driver, workload string) string {
	switch {
	case strings.HasPrefix(workload, ReplayPrefix):
		return "replay"
	case workload == "tpcc" && driver == "sysbench":
		return "tpcc"
	}
	return driver
}

// NewBenchmark returns the benchmark b describes, or an error naming the
// unknown driver or the bad setting.
func NewBenchmark(b Bench) (trial.Benchmark, error) {
	d, ok := Drivers[b.Driver]
	if !ok {
		return nil, fmt.Errorf("--benchmark %q: want one of %s", b.Driver, strings.Join(DriverNames(), ", "))
	}
	return d(b)
}

// DriverNames are the names of Drivers, sorted (--benchmark).
func DriverNames() []string {
	names := make([]string, 0, len(Drivers))
	for n := range Drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func newSysbench(b Bench) (trial.Benchmark, error) {
	if !slices.Contains(sysbench.Workloads, b.Workload) {
		return nil, fmt.Errorf("--workload %q: want one of %s", b.Workload, strings.Join(sysbench.Workloads, ", "))
	}
	return sysbench.Bench{Path: b.Path, Workload: b.Workload, Tables: b.Tables, TableSize: b.TableSize}, nil
}

func newTPCC(b Bench) (trial.Benchmark, error) {
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

func newCommand(b Bench) (trial.Benchmark, error) {
	if b.Command == "" {
		return nil, fmt.Errorf("--benchmark command needs --bench-cmd 'COMMAND'")
	}
	args, err := benchcmd.ParseBenchCmd(b.Command)
	if err != nil {
		return nil, err
	}
	loader, err := newSysbench(Bench{Path: b.Path, Workload: b.Workload, Tables: b.Tables, TableSize: b.TableSize})
	if err != nil {
		return nil, err
	}
	return benchcmd.Command{Args: args, Tables: b.Tables, TableSize: b.TableSize, Loader: loader.(sysbench.Bench)}, nil
}

func newReplay(b Bench) (trial.Benchmark, error) {
	file, ok := strings.CutPrefix(b.Workload, ReplayPrefix)
	if !ok || file == "" {
		return nil, fmt.Errorf("--workload %q: the replay driver wants replay:FILE, a workload file written by autotune capture", b.Workload)
	}
	return replay.New(replay.Options{File: file, Dump: b.Data, Speed: b.Speed, ReadOnly: b.ReadOnly, Prepared: b.Prepared})
}
