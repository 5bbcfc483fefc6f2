package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/internal/secret"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner/sysbench"
	"github.com/autotune/autotune/runner/tpcc"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
	"github.com/autotune/autotune/study"
)

// The flag groups below each add their flags to a command and write them
// into a study.Config, validating on the way: errors name the flag and the
// accepted form, and are usage errors (exit code 2).

// studyFlags name the study and its limits.
type studyFlags struct {
	study, db     string
	budget        time.Duration
	trials        int
	seed          int64
	allowChanges  bool
	json          bool
	withLimitsReq bool // --budget or --trials is required
	noLimits      bool // the mode runs without a budget or trial cap (minimize)
}

func (o *studyFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.study, "study", "default", "study name; the same name resumes the study")
	fs.StringVar(&o.db, "db", "trials.db", "study store: an SQLite file, or a MySQL/MariaDB database mysql://USER@HOST:PORT/DATABASE (password from $AUTOTUNE_DB_PASSWORD or ?password_file=PATH)")
	fs.Var((*daysDuration)(&o.budget), "budget", "wall-clock budget across all runs of the study, e.g. 2d, 1d12h, 50h, 90m (0 = no limit; then --trials is needed)")
	fs.IntVar(&o.trials, "trials", 0, "stop when the study has this many finished trials, baseline included (0 = no cap)")
	fs.Int64Var(&o.seed, "seed", 0, "sampler seed for a new study (0 = random); stored with the study, which keeps it when resumed (another --seed is refused)")
	fs.BoolVar(&o.allowChanges, "allow-changes", false, "resume a study although its manifest changed (server version, host cores/RAM, benchmark settings); the change is recorded, and a change of what measurements mean (server, host, durability, benchmark, dataset) starts a new segment: earlier trials stay in the store, out of the history and the best")
	fs.BoolVar(&o.json, "json", false, "print progress as JSON lines, one event per line (log, phase, sample, trial, done, interrupted)")
}

func (o *studyFlags) apply(c *study.Config) error {
	switch {
	case o.study == "" || strings.ContainsAny(o.study, " \t\n/"):
		return usagef("--study %q: want a non-empty name without spaces or slashes", o.study)
	case o.db == "":
		return usagef("--db: want a file path")
	case o.budget < 0:
		return usagef("--budget %s: want a positive duration such as 2d or 50h", FormatDuration(o.budget))
	case o.trials < 0:
		return usagef("--trials %d: want a positive count (or 0 for no cap)", o.trials)
	case o.budget == 0 && o.trials == 0 && !o.noLimits:
		return usagef("--budget or --trials: give at least one, e.g. --budget 8h")
	}
	c.Study, c.DB, c.Budget, c.Trials, c.Seed, c.AllowChanges = o.study, o.db, o.budget, o.trials, o.seed, o.allowChanges
	return nil
}

// daysDuration is a duration flag that also takes days, for spans a user
// gives in days (--budget 2d, 1d12h): ParseDuration reads it.
type daysDuration time.Duration

func (d *daysDuration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		// pflag names the flag and the value.
		return fmt.Errorf("want %s", DurationForm)
	}
	*d = daysDuration(v)
	return nil
}

func (d *daysDuration) String() string { return FormatDuration(time.Duration(*d)) }

func (d *daysDuration) Type() string { return "duration" }

// benchFlags describe the benchmark and the sandbox.
type benchFlags struct {
	benchmark        string
	workload         string
	threads          []int
	tables           int
	tableSize        int
	sysbench         string
	benchCmd         string
	workdir          string
	warmup, duration time.Duration
	warmupMax        time.Duration
	coldStart        bool
	data             string
	speed            string
	prepared         bool
	warehouses       int
	tpccPath         string
	memoryLimit      string
	hostFaultWait    time.Duration
	rand             sysbench.Distribution
	skewCheck        string         // --skew-check (search's: addSkewFlag)
	fs               *pflag.FlagSet // which flags were given
}

func (o *benchFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.benchmark, "benchmark", study.DefaultDriver, "benchmark driver: "+strings.Join(study.DriverNames(), ", ")+" (--bench-cmd implies command)")
	o.fs = fs
	fs.StringVar(&o.workload, "workload", "oltp_read_write", "workload: tpcc (TPC-C with go-tpc), a sysbench workload: "+strings.Join(sysbench.Workloads, ", ")+"; or "+study.ReplayPrefix+"FILE to replay a workload file of autotune capture (with --data; docs/workloads.md)")
	fs.StringVar(&o.data, "data", "", "replay: the logical dump (mariadb-dump/mysqldump --single-transaction output, .sql or .sql.gz) loaded into the sandbox once, taken when the capture started")
	fs.StringVar(&o.speed, "speed", "max", "replay: max (or 0) replays the statements back to back and scores statements/s; 1 replays at the captured pace, 2 twice as fast, ... (a fixed load: needs --objective p95)")
	fs.BoolVar(&o.prepared, "prepared", false, "replay: run the statements as server-side prepared statements (literals sent as parameters, each statement prepared once per connection), as an application on prepared statements does (sysbench, JDBC with useServerPrepStmts); default: as the text the log holds. The log does not say which the application used")
	fs.IntVar(&o.warehouses, "warehouses", tpcc.DefaultWarehouses, "TPC-C warehouses in the dataset (--workload tpcc; 1 warehouse is about 150 MB on disk)")
	fs.StringVar(&o.tpccPath, "tpcc-path", "", "go-tpc binary for --workload tpcc (default: go-tpc on PATH, else in $GOBIN, $GOPATH/bin or ~/go/bin, where scripts/install-deps.sh installs it)")
	fs.IntSliceVar(&o.threads, "threads", []int{16}, "benchmark client threads; several levels such as 8,32,128 measure each trial at each (score aggregated)")
	fs.IntVar(&o.tables, "tables", 8, "sysbench tables in the dataset")
	fs.IntVar(&o.tableSize, "table-size", 500000, "rows per sysbench table (8 x 500000 is about 1.1 GB, more than the default 128M buffer pool)")
	fs.StringVar(&o.sysbench, "sysbench", "sysbench", "sysbench binary")
	fs.StringVar(&o.rand.Type, "rand-type", sysbench.DefaultRandType, "sysbench access distribution: "+strings.Join(sysbench.RandTypes, ", ")+
		" (special: 75 % of accesses on 1 % of the rows, sysbench 1.0.x only; zipfian: sysbench built from master only; gaussian is refused on such a build); always passed to sysbench, checked against its --help before any work (docs/workloads.md)")
	fs.IntVar(&o.rand.SpecIter, sysbench.OptSpecIter, 12, "--rand-type special or gaussian: uniform draws summed per number")
	fs.IntVar(&o.rand.SpecPct, sysbench.OptSpecPct, 1, "--rand-type special: percentage of the rows the special values fall on")
	fs.IntVar(&o.rand.SpecRes, sysbench.OptSpecRes, 75, "--rand-type special: percentage of the accesses that fall on the special values")
	fs.Float64Var(&o.rand.ParetoH, sysbench.OptParetoH, 0.2, "--rand-type pareto: shape h (0 < h < 1)")
	fs.Float64Var(&o.rand.ZipfianExp, sysbench.OptZipfianExp, 0.8, "--rand-type zipfian: exponent theta (> 0)")
	fs.StringVar(&o.benchCmd, "bench-cmd", "", "run this command instead of the sysbench workload; it must print per-interval throughput lines (docs/measurement.md, custom benchmarks); placeholders {socket} {port} {threads} {seconds} ...")
	fs.StringVar(&o.workdir, "workdir", "autotune-sandbox", "sandbox directory: dataset snapshot, trial datadir, socket, logs (created 0700)")
	fs.DurationVar(&o.warmup, "warmup", 30*time.Second, "expected warm-up: the measurement window starts once throughput is steady; a series still rising or falling here extends the run up to --warmup-max")
	fs.DurationVar(&o.warmupMax, "warmup-max", 0, "longest warm-up (0 = 3 x --warmup): with no steady start by then the window starts anyway and the trial is marked not steady")
	fs.BoolVar(&o.coldStart, "cold-start", false, "start every trial with an empty buffer pool (default: trials load the page list of the warmed dataset, as a server that has been running would hold)")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "measurement window of each trial")
	fs.DurationVar(&o.hostFaultWait, "host-fault-wait", 10*time.Minute, "how long a trial whose server the host refuses (a kernel or process limit such as fs.aio-max-nr or ulimit -l, a port in use, an I/O backend gone) is retried, waiting 5 s, 10 s, ... up to a minute between attempts, before the study pauses with what to fix (0: pause at once); nothing is learned from such a trial")
	fs.StringVar(&o.memoryLimit, "memory-limit", "", "host profile: run the sandboxed server in a memory cgroup of this size (such as 2G), page cache counted, as on a host with this much RAM; a server over it is killed and its trial fails as out of memory (needs root and a writable cgroup memory controller; default: no limit)")
}

// apply writes the benchmark and sandbox flags into c, refusing those the
// driver cannot honour; the driver checks the settings it reads when the
// command opens the benchmark of the finished configuration
// (openBenchmark).
func (o *benchFlags) apply(c *study.Config) error {
	if err := study.CheckRunSettings(o.tables, o.tableSize, o.threads, o.warmup, o.warmupMax, o.duration, o.workdir); err != nil {
		return err
	}
	if f := o.fs.Lookup("benchmark-build"); f != nil && f.Changed && o.fs.Changed("sysbench") {
		return usagef("--sysbench and --benchmark-build: give one (the first --benchmark-build is the default sysbench)")
	}
	driver, err := study.DriverFor(o.benchmark, o.workload, o.benchCmd)
	if err != nil {
		return usageError{Err: err}
	}
	// The driver refuses what its runs cannot honour.
	if err := study.CheckFlags(driver, o.fs.Changed); err != nil {
		return err
	}
	// A flag the driver does not honour leaves its setting zero: it is
	// none of the study's (its manifest).
	honours := func(flag string) bool { return study.HonoursFlag(driver, flag) }
	c.Bench = study.BenchSettings{Driver: driver, Workload: o.workload, Threads: o.threads}
	b := &c.Bench
	if honours("sysbench") {
		b.Path = o.sysbench
	}
	if honours("tables") {
		b.Tables = o.tables
	}
	if honours("table-size") {
		b.TableSize = o.tableSize
	}
	if honours("bench-cmd") {
		b.Command = o.benchCmd
	}
	if honours("warehouses") {
		b.Warehouses = o.warehouses
	}
	if honours("tpcc-path") {
		b.TPCCPath = o.tpccPath
	}
	if honours("data") {
		b.Data = o.data
	}
	if honours("prepared") {
		b.Prepared = o.prepared
	}
	if honours("rand-type") {
		if err := o.applyRand(b); err != nil {
			return err
		}
		c.SkewCheck = o.skewCheck
	}
	if honours("speed") {
		switch sp, err := strconv.ParseFloat(o.speed, 64); {
		case o.speed == "max":
		case err != nil || !(sp >= 0) || math.IsInf(sp, 0): // !(sp >= 0) also refuses NaN
			return usagef("--speed %q: want max (or 0) for as fast as possible, or a pace factor > 0 such as 1", o.speed)
		default:
			b.Speed = sp
		}
	}
	c.Workdir = o.workdir
	if o.hostFaultWait < 0 {
		return usagef("--host-fault-wait %s: want a duration of 0 or more", o.hostFaultWait)
	}
	c.HostFaultWait = o.hostFaultWait
	if o.memoryLimit != "" {
		n, err := ParseMemoryLimit(o.memoryLimit)
		if err != nil {
			return err
		}
		c.MemoryLimit = n
	}
	c.Measure.Warmup, c.Measure.Duration, c.Measure.WarmupMax, c.Measure.ColdStart = o.warmup, o.duration, o.warmupMax, o.coldStart
	if o.warmupMax == 0 {
		c.Measure.WarmupMax = 3 * o.warmup
	}
	return nil
}

// addSkewFlag adds --skew-check (autotune search).
func (o *benchFlags) addSkewFlag(fs *pflag.FlagSet) {
	fs.StringVar(&o.skewCheck, "skew-check", "", "after the final A/B runs, measure the best and the baseline again in as many interleaved pairs under this second sysbench distribution ("+strings.Join(sysbench.RandTypes, ", ")+
		"; same server, dataset, threads and durations) and report both gains; a gain shown under --rand-type but not under this one marks the export WORKLOAD-FRAGILE (needs the final A/B phase)")
}

// applyRand writes the distribution flags into b: --rand-type and the
// shape flags, each refused when neither --rand-type nor --skew-check
// reads it (no flag is accepted and ignored), then checked
// (sysbench.Distribution.Check); --skew-check is refused when it is not a
// distribution or is --rand-type.
func (o *benchFlags) applyRand(b *study.BenchSettings) error {
	d := o.rand
	if err := d.Check(); err != nil {
		return usageError{Err: err}
	}
	if o.skewCheck != "" {
		switch {
		case !slices.Contains(sysbench.RandTypes, o.skewCheck):
			return usagef("--skew-check %q: want one of %s", o.skewCheck, strings.Join(sysbench.RandTypes, ", "))
		case o.skewCheck == d.Type:
			return usagef("--skew-check %s: it is --rand-type; want a second distribution, such as %s", o.skewCheck, otherRand(d.Type))
		}
	}
	for _, opt := range sysbench.ShapeOptions {
		if !o.fs.Changed(opt) || sysbench.Reads(d.Type, opt) || (o.skewCheck != "" && sysbench.Reads(o.skewCheck, opt)) {
			continue
		}
		reads := "--rand-type " + d.Type
		if o.skewCheck != "" {
			reads += " nor --skew-check " + o.skewCheck
		}
		return usagef("--%s: not read by %s (no flag is accepted and ignored); it shapes %s", opt, reads, readers(opt))
	}
	b.Rand = d
	return nil
}

// readers names the distributions that read shape option opt:
// "--rand-type special or gaussian".
func readers(opt string) string {
	var out []string
	for _, t := range sysbench.RandTypes {
		if sysbench.Reads(t, opt) {
			out = append(out, t)
		}
	}
	return "--rand-type " + strings.Join(out, " or ")
}

// otherRand suggests a distribution other than typ: uniform, or special
// for uniform.
func otherRand(typ string) string {
	if typ == sysbench.RandUniform {
		return sysbench.RandSpecial
	}
	return sysbench.RandUniform
}

// measureFlags are the score and warm-up detection rules.
type measureFlags struct {
	lambda       float64
	objective    string
	maxP95       float64
	dipShare     float64
	steadyBlock  time.Duration
	steadySpread float64
	steadyTrend  float64
}

func (m *measureFlags) AddFlags(fs *pflag.FlagSet) {
	d := measure.DefaultScoreRule()
	st := measure.DefaultSteadyRule()
	fs.Float64Var(&m.lambda, "lambda", measure.DefaultLambda, "weight of the variance penalty: score = mean tps - lambda x slow swings of tps around its level (5 s blocks, detrended, beyond per-second jitter) - other penalties")
	fs.StringVar(&m.objective, "objective", string(measure.GoalTPS), "what to optimise: tps, qps, or p95 (lower p95 latency is better)")
	fs.Float64Var(&m.maxP95, "max-p95", 0, "p95 latency limit (ms, median of the per-second values; 0 = no limit): a trial over it is infeasible (search: kept, never the best; verify: its pair does not count and the verdict is NOT VERIFIED; noise: marked)")
	fs.Float64Var(&m.dipShare, "dip-share", d.DipShare, "a second under this share of the window's median throughput is a dip (penalised)")
	fs.DurationVar(&m.steadyBlock, "steady-block", time.Duration(st.Block)*time.Second, "warm-up detection: block length; throughput is steady when 3 consecutive block means are flat and close")
	fs.Float64Var(&m.steadySpread, "steady-spread", st.MaxSpread, "warm-up detection: largest (max-min)/mean of the block means")
	fs.Float64Var(&m.steadyTrend, "steady-trend", st.MaxTrend, "warm-up detection: largest rise (least-squares) across the blocks, as a share of their mean")
}

func (m *measureFlags) apply(c *study.Config) error {
	switch {
	case m.lambda < 0:
		return usagef("--lambda %g: want a number >= 0", m.lambda)
	case !slices.Contains(measure.Goals, measure.Goal(m.objective)):
		return usagef("--objective %q: want tps, qps or p95", m.objective)
	case m.maxP95 < 0:
		return usagef("--max-p95 %g: want milliseconds >= 0 (0 = no limit)", m.maxP95)
	case m.dipShare < 0 || m.dipShare >= 1:
		return usagef("--dip-share %g: want 0 <= share < 1", m.dipShare)
	case m.steadyBlock < time.Second || m.steadyBlock%time.Second != 0:
		return usagef("--steady-block %s: want whole seconds >= 1s", m.steadyBlock)
	case m.steadySpread <= 0:
		return usagef("--steady-spread %g: want > 0", m.steadySpread)
	case m.steadyTrend <= 0:
		return usagef("--steady-trend %g: want > 0", m.steadyTrend)
	}
	c.Measure.Lambda, c.Measure.Objective, c.Measure.MaxP95, c.Measure.DipShare = m.lambda, m.objective, m.maxP95, m.dipShare
	c.Measure.SteadyBlock, c.Measure.SteadySpread, c.Measure.SteadyTrend = m.steadyBlock, m.steadySpread, m.steadyTrend
	return nil
}

// searchFlags choose the strategy and the re-measurement policy.
type searchFlags struct {
	strategy     string
	warmStart    bool
	confirm      search.ConfirmCount
	recheckEvery int
	abPairs      int
	abShare      float64
	prune        bool
	seedFrom     []string
	minimize
}

// minimize are the flags of the minimisation (search's last phase and
// autotune minimize).
type minimize struct {
	on    bool
	pairs int
	share float64
}

func (o *minimize) addFlags(fs *pflag.FlagSet, phase bool) {
	if phase {
		fs.BoolVar(&o.on, "minimize", true, "after the final A/B runs, minimise the best: revert its changes that do not pay to the baseline's values, in dependency groups, least important first, each step measured in interleaved pairs (on when --minimize-share of the budget holds a step and the final check; the plan says so)")
		fs.Float64Var(&o.share, "minimize-share", search.DefaultMinimizeShare, "share of --budget reserved for the minimisation (--minimize)")
	}
	fs.IntVar(&o.pairs, "minimize-pairs", search.DefaultMinimizePairs, "interleaved pairs (current, reverted; reverted, current) per minimisation step (up to 3 times as many when a step leans toward a loss without showing it) and for its final check against the full best")
}

// apply checks the flags and sets the study's minimisation.
func (o *minimize) apply(c *study.Config) error {
	switch {
	case o.pairs < 2 || o.pairs > search.MaxABPairs:
		return usagef("--minimize-pairs %d: want 2..%d", o.pairs, search.MaxABPairs)
	case o.share < 0 || o.share >= 0.9:
		return usagef("--minimize-share %g: want 0 <= share < 0.9", o.share)
	}
	c.Minimize, c.MinimizePairs, c.MinimizeShare = o.on, o.pairs, o.share
	return nil
}

func (o *searchFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.strategy, "strategy", "hybrid", "search strategy: "+strings.Join(strategy.StrategyNames(), ", ")+
		" (hybrid: screening, then a model-guided local search alternating with multivariate TPE over every knob and the model's best configuration, then a race of the two best)")
	fs.BoolVar(&o.warmStart, "warm-start", true, "measure an expert configuration derived from the host and the dataset right after the baseline")
	o.confirm = search.ConfirmAuto
	fs.Var(&o.confirm, "confirm", "re-measure a trial that beats the best this many times before it becomes the best, up to twice as many in a close race with it (0 = off; auto: 1 while the score's run-to-run noise the study has measured is at most 4.5 %, else 2, and 2 until it is measured)")
	fs.IntVar(&o.recheckEvery, "recheck-every", 10, "re-measure the baseline after every N trials so drift of the machine shows (0 = never)")
	fs.IntVar(&o.abPairs, "ab-pairs", 6, "final interleaved best/baseline pairs (A B, B A, ...) that give the gain on the objective with a 95 % confidence interval; 6 pairs give about ±10 % at this kind of machine's 7 % run-to-run noise; fewer (at least 3) when the run-to-run noise the study measured gives ±3 % with fewer (0 with --ab-share 0 = none); with an expert warm start other than the best, rounds of three that measure it too (best, baseline, warm start, rotated)")
	fs.Float64Var(&o.abShare, "ab-share", 0.1, "share of --budget reserved for the final A/B pairs (at least --ab-pairs of them)")
	fs.StringArrayVar(&o.seedFrom, "seed-from", nil, "seed the study with what is known: "+study.SeedForms+"; repeatable or a comma list. Each seed is measured right after the baseline (before the warm start) and the strategy learns from it; memory and thread knobs from another host are rescaled to this one")
	fs.BoolVar(&o.prune, "prune", true, "stop a trial early when, after its warm-up, its throughput stays clearly below the best (at least 20 % and 3 x the measured noise); --prune=false measures every trial in full")
	o.minimize.addFlags(fs, true)
}

func (o *searchFlags) apply(c *study.Config) error {
	switch {
	case !slices.Contains(strategy.StrategyNames(), o.strategy):
		return usagef("--strategy %q: want one of %s", o.strategy, strings.Join(strategy.StrategyNames(), ", "))
	case o.recheckEvery < 0:
		return usagef("--recheck-every %d: want >= 0 (0 = never)", o.recheckEvery)
	case o.abPairs < 0 || o.abPairs > search.MaxABPairs:
		return usagef("--ab-pairs %d: want 0..%d", o.abPairs, search.MaxABPairs)
	case o.abShare < 0 || o.abShare >= 0.9:
		return usagef("--ab-share %g: want 0 <= share < 0.9", o.abShare)
	}
	c.SeedFrom = study.SplitSeedList(o.seedFrom)
	for _, v := range c.SeedFrom {
		if _, err := study.ParseSeedFrom(v); err != nil {
			return err
		}
	}
	c.Strategy, c.WarmStart, c.Measure.Prune = o.strategy, o.warmStart, o.prune
	c.Measure.Confirm, c.Measure.RecheckEvery, c.Measure.ABPairs, c.Measure.ABShare = int(o.confirm), o.recheckEvery, o.abPairs, o.abShare
	return o.minimize.apply(c)
}

// spaceFlags shape the knob space.
type spaceFlags struct {
	mysqld       string
	durability   string
	spaceFile    string
	serverBuilds []string
	benchBuilds  []string
	memoryBudget string
	applyMode    string
	baselineCnf  string
}

func (o *spaceFlags) AddFlags(fs *pflag.FlagSet) {
	o.addResolveFlags(fs)
	fs.StringVar(&o.memoryBudget, "memory-budget", "75%", "memory a config may use, as a size (12G) or a share of RAM (75%); a config whose MySQLTuner-style estimate (global buffers + per-connection buffers x max_connections) exceeds it is rejected without starting a server; under --memory-limit, a share of the limit, and only the buffer pool's range and the warm start follow it (the limit itself judges what a server touches)")
	fs.StringVar(&o.baselineCnf, "baseline-cnf", "", "your current my.cnf: read by the MySQL option-file rules, its knob values become trial 0 and the base of every trial; export then shows the change against it")
	fs.StringVar(&o.applyMode, "apply", study.ApplyRestart, "restart: every trial restores the dataset and restarts the server; dynamic: when only dynamic knobs change from the previous trial, apply them with SET GLOBAL on the running server (faster, but the trial inherits the previous trial's dataset and cache state)")
}

// addResolveFlags adds the flags that decide the space a server offers
// (search and knobs).
func (o *spaceFlags) addResolveFlags(fs *pflag.FlagSet) {
	o.addServerFlag(fs)
	fs.StringVar(&o.durability, "durability", "strict", "strict pins innodb_flush_log_at_trx_commit=1, innodb_doublewrite=ON and sync_binlog=1 (where binary logging is on); relaxed lets the search change them")
	fs.StringVar(&o.spaceFile, "space", "", "space file (TOML): include/exclude knobs, narrow ranges, fix values (see examples/)")
	fs.StringArrayVar(&o.serverBuilds, "server-build", nil, "NAME=PATH of a server binary to choose among (repeatable; two or more make server_build a searched knob; the first is the default and builds the dataset)")
	fs.StringArrayVar(&o.benchBuilds, "benchmark-build", nil, "NAME=PATH of a sysbench binary to choose among (repeatable; two or more make benchmark_build a searched knob)")
}

func (o *spaceFlags) addServerFlag(fs *pflag.FlagSet) {
	fs.StringVar(&o.mysqld, "mysqld", "", "server binary (default: mariadbd or mysqld on PATH or in /usr/sbin)")
}

func (o *spaceFlags) apply(c *study.Config) error {
	if err := o.applyResolve(c); err != nil {
		return err
	}
	if o.baselineCnf != "" {
		if err := regularFile("--baseline-cnf", o.baselineCnf); err != nil {
			return err
		}
	}
	if _, err := study.ParseMemoryBudget(o.memoryBudget, 1<<40); err != nil {
		return usagef("--memory-budget: %v", err)
	}
	if o.applyMode != study.ApplyRestart && o.applyMode != study.ApplyDynamic {
		return usagef("--apply %q: want %s or %s", o.applyMode, study.ApplyRestart, study.ApplyDynamic)
	}
	c.Space.MemoryBudget, c.Space.Apply, c.Space.BaselineCnf = o.memoryBudget, o.applyMode, o.baselineCnf
	return nil
}

// applyResolve writes the flags of addResolveFlags into c.Space.
func (o *spaceFlags) applyResolve(c *study.Config) error {
	if _, err := space.ParseDurability(o.durability); err != nil {
		return usagef("--durability: %v", err)
	}
	if len(o.serverBuilds) > 0 && o.mysqld != "" {
		return usagef("--mysqld and --server-build: give one (the first --server-build is the default server)")
	}
	sb, err := ParseBuilds("--server-build", o.serverBuilds)
	if err != nil {
		return err
	}
	bb, err := ParseBuilds("--benchmark-build", o.benchBuilds)
	if err != nil {
		return err
	}
	if o.spaceFile != "" {
		if err := regularFile("--space", o.spaceFile); err != nil {
			return err
		}
	}
	c.Space = study.Space{Mysqld: o.mysqld, Durability: o.durability, File: o.spaceFile, ServerBuilds: sb, BenchBuilds: bb}
	return nil
}

// existingFlags tune a server autotune did not start.
type existingFlags struct {
	dsn          string
	configFile   string
	restartCmd   string
	allowRestart bool
	notSandbox   bool
	passwordFile string
}

// existingOnly are the flags that need --dsn.
var existingOnly = []string{"config-file", "restart-cmd", "allow-restart", "i-understand-this-is-not-a-sandbox", "password-file"}

func (o *existingFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dsn, "dsn", "", "tune an existing server instead of a sandbox: USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/ (no password here: $"+study.PasswordEnv+" or --password-file)")
	fs.StringVar(&o.configFile, "config-file", "", "with --dsn: option file autotune writes each trial's knobs into; the server's my.cnf must !include it (autotune never edits my.cnf itself); restored at the end")
	fs.StringVar(&o.restartCmd, "restart-cmd", "", "with --dsn --allow-restart: command that restarts the server, split into words like a shell does (quotes and backslashes) but run without a shell: no $VARS, globs, pipes or ;")
	fs.BoolVar(&o.allowRestart, "allow-restart", false, "with --dsn: also tune knobs that need a restart, running --restart-cmd (without it, only knobs SET GLOBAL can change are tuned)")
	fs.BoolVar(&o.notSandbox, "i-understand-this-is-not-a-sandbox", false, "with --dsn: run although the server holds schemas other than sbtest (its data is not touched, but its users will feel the benchmark and the trial settings)")
	fs.StringVar(&o.passwordFile, "password-file", "", "with --dsn: MySQL option file with a [client] password= line for the --dsn user (mode 0600)")
}

// regularFile refuses (exit 2) a path given with flag (or "verify", ...)
// that does not name a regular file: missing, unreadable to stat, or a
// directory.
func regularFile(flag, path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return usagef("%s %q: %v", flag, path, err)
	case !st.Mode().IsRegular():
		return usagef("%s %q: not a regular file", flag, path)
	}
	return nil
}

// checkDSN refuses (exit 2) a --dsn that secret.ParseUserDSN refuses, and
// a password given both in $AUTOTUNE_PASSWORD and by --password-file
// (study.CheckPasswordSources).
func checkDSN(dsn, passwordFile string) error {
	if _, err := secret.ParseUserDSN(dsn); err != nil {
		return usagef("%v", err)
	}
	return study.CheckPasswordSources(passwordFile)
}

func (o *existingFlags) apply(c *study.Config) error {
	if o.dsn == "" {
		return nil
	}
	if err := checkDSN(o.dsn, o.passwordFile); err != nil {
		return err
	}
	if o.configFile == "" {
		return usagef("--dsn needs --config-file PATH: the include file autotune writes each trial's settings into")
	}
	if o.allowRestart && o.restartCmd == "" {
		return usagef("--allow-restart needs --restart-cmd 'COMMAND', e.g. 'systemctl restart mariadb'")
	}
	var argv []string
	if o.restartCmd != "" {
		var err error
		if argv, err = shlex.Split(o.restartCmd); err != nil || len(argv) == 0 {
			return usagef("--restart-cmd %q: want a command and its arguments (quoted like in a shell; no shell features): %v", o.restartCmd, err)
		}
	}
	c.Existing = &study.ExistingServer{DSN: o.dsn, PasswordFile: o.passwordFile, ConfigFile: o.configFile, RestartCmd: argv,
		AllowRestart: o.allowRestart, NotSandbox: o.notSandbox}
	return nil
}

// openBenchmark builds the benchmark of the finished configuration c
// (study.OpenBenchmark) into c.Benchmark, which the run measures with: the
// driver checks the settings it reads (workload, command line, files), and
// does its work (a replay reads and hashes its files) once. Its errors are
// usage errors.
func openBenchmark(c *study.Config) error {
	b, err := study.OpenBenchmark(*c)
	if err != nil {
		return err
	}
	c.Benchmark = b
	return nil
}
