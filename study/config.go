package study

import (
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner/sysbench"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// Config is everything a mode needs, built from the command line. It is
// plain data, with the benchmark built from it: two runs with equal
// Configs do the same thing.
type Config struct {
	// Study is the study name; DB the study store (an SQLite file or a
	// mysql:// URL, see storage.Open).
	Study, DB string
	// Budget is the wall-clock budget across all runs (0: none); Trials
	// caps the finished trials (0: none).
	Budget time.Duration
	Trials int
	// Seed seeds a new study's sampler (0: random).
	Seed int64
	// AllowChanges resumes a study whose manifest changed, recording the
	// change.
	AllowChanges bool
	// Workdir is the sandbox directory.
	Workdir string
	// MemoryLimit is the host profile (bytes; 0: none): the sandboxed
	// server, and the restore of its datadir, run in a memory cgroup of
	// this size that counts the page cache (runner.Cgroup), and the
	// host's RAM is taken to be this much for the memory budget, the
	// expert warm start and --seed-from rescaling. Sandbox only.
	MemoryLimit int64
	// HostFaultWait is how long a trial whose server the host refuses
	// (engine.HostFaultError: a kernel or process limit, a port in use,
	// an AIO backend gone) is retried before the study pauses with what
	// to fix (0: not retried; engine.Engine.HostFaultWait).
	HostFaultWait time.Duration
	// Bench is the benchmark.
	Bench BenchSettings
	// Benchmark is the benchmark OpenBenchmark built from this Config,
	// which the run measures with, so a driver's work (a replay reads and
	// hashes its workload file and dump) is done once; nil: the run
	// builds it.
	Benchmark engine.Benchmark
	// Measure says how a trial is measured, scored and re-measured.
	Measure Measure
	// PolicyGiven says which re-measurement flags the user gave: a
	// resumed study takes the others from its manifest (keepPolicy).
	PolicyGiven PolicyGiven
	// Space shapes the knob space.
	Space Space
	// Strategy names the search strategy (strategy.StrategyNames); WarmStart
	// measures an expert configuration right after the baseline.
	Strategy  string
	WarmStart bool
	// SeedFrom are the --seed-from values (ParseSeedFrom): my.cnf files
	// and earlier studies whose configurations are measured right after
	// the baseline, before the warm start (search only).
	SeedFrom []string
	// Existing, when set, tunes a server autotune did not start.
	Existing *ExistingServer
	// Heartbeat is a worker's heartbeat period (Worker only).
	Heartbeat time.Duration
	// Minimize minimises the best as the search's last phase
	// (search.Loop.Minimize); MinimizePairs are the pairs of each step
	// (search.Minimization.Pairs) and MinimizeShare its share of Budget.
	// Minimize (the mode) uses MinimizePairs whatever Minimize says.
	Minimize      bool
	MinimizePairs int
	MinimizeShare float64
	// SkewCheck is the second access distribution the search's final
	// phase measures the best and the baseline under (--skew-check:
	// search.SkewCheck; a driver that implements SkewVariant), "" for
	// none. Search only.
	SkewCheck string
}

// minimization returns the minimisation policy over the knob space sp.
func (c Config) minimization(sp *space.Space) *search.Minimization {
	return &search.Minimization{Pairs: c.MinimizePairs, Share: c.MinimizeShare, Space: sp}
}

// BenchSettings is the benchmark of a study.
type BenchSettings struct {
	// Driver names a registered driver (Register: "sysbench",
	// "command", "replay", "tpcc").
	Driver string
	// Path is the sysbench executable.
	Path string
	// Workload is the sysbench workload or "tpcc"; Tables and TableSize
	// size a sysbench dataset (rows per table), Warehouses a TPC-C one.
	Workload          string
	Tables, TableSize int
	Warehouses        int
	// Rand is the access distribution of a sysbench workload
	// (--rand-type and its shape flags; the zero value is the default,
	// special).
	Rand sysbench.Distribution
	// TPCCPath is the go-tpc executable ("" finds it, tpcc.Find).
	TPCCPath string
	// Command is the --bench-cmd command line (driver "command").
	Command string
	// Data is the logical dump a replay loads (--data; driver "replay");
	// Speed its pace (0: as fast as possible, 1: the captured pace);
	// Prepared runs the statements as server-side prepared statements
	// (replay.Options.Prepared).
	Data     string
	Speed    float64
	Prepared bool
	// ExistingServer says the run measures a server autotune did not
	// start: a replay runs only its read-only statements there, and tpcc
	// refuses it. OpenBenchmark sets it from Config.Existing (--dsn).
	ExistingServer bool
	// Threads are the client thread levels, measured in order.
	Threads []int
}

// Measure are the measurement settings.
type Measure struct {
	// Warmup is the warm-up cap, Duration the measurement window;
	// WarmupMax is the longest warm-up when the series still moves at the
	// cap (engine.Protocol).
	Warmup, Duration, WarmupMax time.Duration
	// ColdStart starts every sandbox trial with an empty buffer pool
	// instead of loading the snapshot's page list.
	ColdStart bool
	// Prune stops new configurations early when they are clearly worse
	// than the incumbent (search.Loop.Prune).
	Prune bool
	// Lambda weighs the variance penalty; Objective is tps, qps or p95;
	// MaxP95 (ms, 0: none) makes slower trials infeasible; DipShare is the
	// share of the median under which a second is a dip.
	Lambda    float64
	Objective string
	MaxP95    float64
	DipShare  float64
	// Confirm, RecheckEvery, ABPairs and ABShare are the re-measurement
	// policy (search.Confirmation).
	Confirm, RecheckEvery, ABPairs int
	ABShare                        float64
	// SteadyBlock, SteadySpread and SteadyTrend tune warm-up detection
	// (measure.SteadyRule).
	SteadyBlock               time.Duration
	SteadySpread, SteadyTrend float64
}

// Space are the settings that shape the knob space.
type Space struct {
	// Mysqld is the server binary ("" finds mariadbd or mysqld).
	Mysqld string
	// Durability is strict or relaxed.
	Durability string
	// File is a space file (TOML), "" for none.
	File string
	// ServerBuilds and BenchBuilds are NAME=PATH choices (absolute paths).
	ServerBuilds, BenchBuilds []storage.Build
	// MemoryBudget is a size ("12G") or a share of RAM ("75%").
	MemoryBudget string
	// Apply is restart or dynamic.
	Apply string
	// BaselineCnf is the user's my.cnf, trial 0 ("" for the defaults).
	BaselineCnf string

	// benchTCPOnly is space.Env.BenchTCPOnly, set by the run from its
	// benchmark (TCPOnly).
	benchTCPOnly string
}

// MeasuredSpace is the Space of a mode that measures a configuration it is
// given (verify, noise) rather than searching: durability relaxed and the
// whole RAM allowed, so the configuration is measured as it is, whatever a
// search would have been allowed to propose; every change applied with a
// restart. mysqld and baselineCnf are the --mysqld and --baseline-cnf
// flags ("" for the defaults).
func MeasuredSpace(mysqld, baselineCnf string) Space {
	return Space{Mysqld: mysqld, Durability: string(space.Relaxed), MemoryBudget: "100%", Apply: ApplyRestart, BaselineCnf: baselineCnf}
}

// ExistingServer says how to reach and change a server autotune did not start.
type ExistingServer struct {
	// DSN is USER@unix(/socket)/ or USER@tcp(HOST:PORT)/, without password.
	DSN string
	// PasswordFile is an option file with the password ([client]
	// password=); $AUTOTUNE_PASSWORD wins over it.
	PasswordFile string
	// ConfigFile is the include file each trial's knobs are written into.
	ConfigFile string
	// RestartCmd restarts the server (argv, no shell); AllowRestart lets
	// the study tune static knobs with it.
	RestartCmd   []string
	AllowRestart bool
	// NotSandbox runs although the server holds other schemas.
	NotSandbox bool
}

// Apply modes of Space.Apply.
const (
	ApplyRestart = "restart"
	ApplyDynamic = "dynamic"
)

// UsageError is a bad flag value, argument or combination (the command
// line's exit code 2). Test with errors.As.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// IsUsage reports whether err is (or wraps) a UsageError.
func IsUsage(err error) bool {
	var ue UsageError
	return errors.As(err, &ue)
}

// ScoreRule returns the score rule of the measurement settings.
func (m Measure) ScoreRule() measure.ScoreRule {
	r := measure.DefaultScoreRule()
	r.Goal, r.Lambda, r.DipShare, r.MaxP95MS = measure.Goal(m.Objective), m.Lambda, m.DipShare, m.MaxP95
	return r
}

// PolicyGiven says which of the re-measurement flags (--confirm,
// --recheck-every, --ab-pairs, --ab-share) were given.
type PolicyGiven struct{ Confirm, RecheckEvery, ABPairs, ABShare bool }

// keepPolicy sets the re-measurement settings of m that given does not
// name to those a stored study was run with (stored): a study resumed
// with the same command keeps its own policy, whatever today's defaults
// are. A flag given with another value than the stored one is left, and
// the manifest check refuses it.
func keepPolicy(m *Measure, stored storage.MeasureManifest, given PolicyGiven) {
	if !given.Confirm {
		m.Confirm = stored.Confirm
	}
	if !given.RecheckEvery {
		m.RecheckEvery = stored.RecheckEvery
	}
	if !given.ABPairs {
		m.ABPairs = stored.ABPairs
	}
	if !given.ABShare {
		m.ABShare = stored.ABShare
	}
}

// priorCost is the cost of one trial a budget plan assumes before any
// trial finished: the warm-up (--warmup) and the measurement window of every
// thread level (each level warms up and is measured in turn), plus 5 s
// for the restart.
func (c Config) priorCost() time.Duration {
	return time.Duration(max(1, len(c.Bench.Threads)))*(c.Measure.Warmup+c.Measure.Duration) + 5*time.Second
}

// Confirmation returns the re-measurement policy (nil when all off).
func (m Measure) Confirmation() *search.Confirmation {
	if m.Confirm == 0 && m.RecheckEvery == 0 && m.ABPairs == 0 && m.ABShare == 0 {
		return nil
	}
	return &search.Confirmation{Repeats: m.Confirm, RecheckEvery: m.RecheckEvery, ABPairs: m.ABPairs, ABShare: m.ABShare}
}

// manifest returns what the study measures, for the store.
func (c Config) manifest(sp *storage.SpaceManifest) storage.Manifest {
	m := c.Measure
	man := storage.Manifest{Workload: c.Bench.Workload, Threads: c.Bench.Threads[0], Tables: c.Bench.Tables, TableSize: c.Bench.TableSize,
		Warehouses: c.Bench.Warehouses,
		WarmupS:    m.Warmup.Seconds(), DurationS: m.Duration.Seconds(), Lambda: m.Lambda, Space: sp,
		Measure: storage.MeasureManifest{Objective: m.Objective, MaxP95MS: m.MaxP95, DipShare: m.DipShare, Confirm: m.Confirm,
			RecheckEvery: m.RecheckEvery, ABPairs: m.ABPairs, ABShare: m.ABShare, BenchCmd: c.Bench.Command,
			SteadyBlockS: int(m.SteadyBlock / time.Second), SteadySpread: m.SteadySpread, SteadyTrend: m.SteadyTrend,
			WarmupMaxS: m.WarmupMax.Seconds(), ColdStart: m.ColdStart, ScoreRule: measure.ScoreRuleVersion}}
	if len(c.Bench.Threads) > 1 {
		man.ThreadLevels = c.Bench.Threads
	}
	if c.Bench.Driver != "sysbench" && c.Bench.Driver != "command" && c.Bench.Driver != "tpcc" {
		man.Benchmark = c.Bench.Driver
	}
	if c.MemoryLimit > 0 {
		man.HostProfile = &storage.HostProfile{MemoryLimitBytes: c.MemoryLimit}
	}
	if c.Bench.Driver == "replay" {
		// The workload file is identified by its content (the
		// definition's workload_sha256), not by the path it was given
		// as: a resume from another directory or host is the same study.
		man.Workload = "replay"
	}
	return man
}
