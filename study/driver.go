package study

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/autotune/autotune/trial"
)

// The benchmark driver contract, in the manner of database/sql/driver: a
// Driver is registered once under its --benchmark name (Register; the
// built-in ones in benchmarks.go) and builds trial.Benchmark values from
// a study's Bench. Everything else a driver or its benchmarks may do is
// an optional interface below, type-asserted where it is used.

// Driver builds the benchmarks of one --benchmark name.
type Driver interface {
	// Open returns the benchmark b describes. The error names the flag
	// of a setting the driver cannot take ("--warehouses 0: want
	// 1..10000").
	Open(b Bench) (trial.Benchmark, error)
}

// Prober is a benchmark that checks, before any work starts, that its
// program accepts every option its definition passes (sysbench.Bench,
// tpcc.Bench). A run probes it, and the same benchmark on every other
// --benchmark-build, before the sandbox or the dataset costs anything.
type Prober interface {
	// Probe returns an error naming the program, its version and each
	// option it lacks.
	Probe(ctx context.Context) error
}

// FixedConcurrency is a benchmark whose concurrency is its own, not
// --threads (the replay: one connection per captured connection).
type FixedConcurrency interface {
	// Connections is the run's only thread level (client connections).
	Connections() int
}

// Noter is a benchmark with lines to print before the study: what it
// runs, what it leaves out.
type Noter interface {
	// Notes returns the lines, without line ends.
	Notes() []string
}

// ErrorShiftLimiter is a benchmark whose trials are invalid when their
// error rate moves from the baseline's by more than a limit
// (search.Study.MaxErrorShift).
type ErrorShiftLimiter interface {
	// ErrorShiftLimit is the limit, a share of the statements run (0.01
	// is one percentage point).
	ErrorShiftLimit() float64
}

// TCPOnly is a benchmark whose client cannot connect over the server's
// unix socket: the space leaves out the benchmark_connection knob
// (space.Env.BenchTCPOnly).
type TCPOnly interface {
	// TCPOnly says why ("go-tpc connects over TCP only").
	TCPOnly() string
}

// registry holds the drivers by --benchmark name.
var registry = struct {
	sync.RWMutex
	drivers map[string]Driver
}{drivers: map[string]Driver{}}

// Register makes d the driver of --benchmark name. Drivers register once,
// when the program starts (benchmarks.go; a test's fake in its init): it
// panics when name is empty, d is nil or name is taken.
func Register(name string, d Driver) {
	registry.Lock()
	defer registry.Unlock()
	switch _, taken := registry.drivers[name]; {
	case name == "":
		panic("study: Register of a driver without a name")
	case d == nil:
		panic("study: Register of a nil driver " + name)
	case taken:
		panic("study: Register called twice for driver " + name)
	}
	registry.drivers[name] = d
}

// DriverNames returns the names of the registered drivers, sorted
// (--benchmark).
func DriverNames() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.drivers))
	for n := range registry.drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lookupDriver returns the driver of --benchmark name, or an error naming
// name and the registered ones.
func lookupDriver(name string) (Driver, error) {
	registry.RLock()
	d, ok := registry.drivers[name]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("--benchmark %q: want one of %s", name, strings.Join(DriverNames(), ", "))
	}
	return d, nil
}

// NewBenchmark returns the benchmark b describes, from the driver
// b.Driver names; the error names the unknown driver (and the registered
// ones) or the setting the driver cannot take.
func NewBenchmark(b Bench) (trial.Benchmark, error) {
	d, err := lookupDriver(b.Driver)
	if err != nil {
		return nil, err
	}
	return d.Open(b)
}
