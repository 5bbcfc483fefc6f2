package study

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/autotune/autotune/engine"
)

// The benchmark driver contract, in the manner of database/sql/driver: a
// Driver is registered once under its --benchmark name (Register; the
// built-in ones in benchmarks.go) and builds engine.Benchmark values from
// a study's Bench. Everything else a driver or its benchmarks may do is
// an optional interface below, type-asserted where it is used.

// Driver builds the benchmarks of one --benchmark name.
type Driver interface {
	// Open returns the benchmark b describes. The error names the flag
	// of a setting the driver cannot take ("--warehouses 0: want
	// 1..10000").
	Open(b BenchSettings) (engine.Benchmark, error)
}

// Refusal is a flag a run of a driver cannot honour, and why: the
// command line's usage error reads "--Flag: Why".
type Refusal struct {
	// Flag is the flag's name without the dashes ("tables").
	Flag string
	// Why says why ("not with --workload tpcc (...)").
	Why string
}

// FlagRefuser is a Driver whose runs cannot honour some of the flags
// other drivers honour (--tables with tpcc).
type FlagRefuser interface {
	// RefusedFlags returns those flags, in the order the command line
	// checks them.
	RefusedFlags() []Refusal
}

// FlagOwner is a Driver with flags of its own, which no other driver
// honours (--data, --speed and --prepared are the replay's): a run of
// any other driver refuses them.
type FlagOwner interface {
	// OwnFlags returns those flags, each with why a run of another
	// driver refuses it ("needs --workload replay:FILE (a replay)").
	OwnFlags() []Refusal
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

// SkewVariant is a Driver whose benchmarks can measure their workload
// under another access distribution (sysbench's --rand-type), on the
// same dataset: search --skew-check measures the best and the baseline
// under it (search.SkewCheck).
type SkewVariant interface {
	// OpenSkewed returns the benchmark of b under distribution dist and
	// the label of that variant as its options ("--rand-type=uniform").
	// The error names --skew-check and what it accepts, or says that
	// dist is b's own distribution.
	OpenSkewed(b BenchSettings, dist string) (engine.Benchmark, string, error)
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
// (search.Loop.MaxErrorShift).
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
	return sortedNames()
}

// sortedNames returns the registered names, sorted; the caller holds
// the registry's lock.
func sortedNames() []string {
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

// newBenchmark returns the benchmark of b from the driver b.Driver names;
// the error names the unknown driver (and the registered ones) or the
// setting the driver cannot take.
func newBenchmark(b BenchSettings) (engine.Benchmark, error) {
	d, err := lookupDriver(b.Driver)
	if err != nil {
		return nil, err
	}
	return d.Open(b)
}

// runBench is the Bench a run of c measures with: c.Bench on the first
// --benchmark-build (the default benchmark program), on a server autotune
// did not start when c.Existing is set.
func (c Config) runBench() BenchSettings {
	b := c.Bench
	if len(c.Space.BenchBuilds) > 0 {
		b.Path, b.TPCCPath = c.Space.BenchBuilds[0].Path, c.Space.BenchBuilds[0].Path
	}
	b.ExistingServer = c.Existing != nil
	return b
}

// OpenBenchmark builds the benchmark a run of c measures with: the driver
// c.Bench.Driver names opens c.Bench on the first --benchmark-build, on a
// server autotune did not start when c.Existing is set. The command line
// builds it once, when it checks its flags, and hands it to the run as
// c.Benchmark. The error is a UsageError naming the unknown driver (and
// the registered ones) or the setting the driver cannot take.
func OpenBenchmark(c Config) (engine.Benchmark, error) {
	b, err := newBenchmark(c.runBench())
	if err != nil {
		return nil, UsageError{Err: err}
	}
	return b, nil
}

// CheckFlags returns a UsageError for the first flag the command line
// gives (given reports whether it gives the flag name, without the
// dashes) that a run of the driver named driver cannot honour (refusals),
// then the UsageError of an unknown driver.
func CheckFlags(driver string, given func(name string) bool) error {
	for _, r := range refusals(driver) {
		if given(r.Flag) {
			return UsageError{Err: fmt.Errorf("--%s: %s", r.Flag, r.Why)}
		}
	}
	if _, err := lookupDriver(driver); err != nil {
		return UsageError{Err: err}
	}
	return nil
}

// HonoursFlag reports whether a run of the driver named driver honours
// the flag name (without the dashes): the driver is registered and the
// flag is none of its refusals. A setting of a flag the driver does not
// honour is none of its study's.
func HonoursFlag(driver, name string) bool {
	if _, err := lookupDriver(driver); err != nil {
		return false
	}
	return !slices.ContainsFunc(refusals(driver), func(r Refusal) bool { return r.Flag == name })
}

// refusals returns the flags a run of the driver named driver cannot
// honour, in the order they are checked: the other drivers' own flags
// (FlagOwner; drivers by name), then those the driver refuses
// (FlagRefuser). An unknown driver refuses the others' own flags.
func refusals(driver string) []Refusal {
	registry.RLock()
	defer registry.RUnlock()
	var out []Refusal
	for _, name := range sortedNames() {
		if o, ok := registry.drivers[name].(FlagOwner); ok && name != driver {
			out = append(out, o.OwnFlags()...)
		}
	}
	if r, ok := registry.drivers[driver].(FlagRefuser); ok {
		out = append(out, r.RefusedFlags()...)
	}
	return out
}
