package study

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/internal/lockfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// Progress receives what a mode reports while it runs: the events of
// package result, in order, from one goroutine at a time (a renderer such
// as report.Progress prints them as plain lines, a live terminal display
// or JSON events).
type Progress interface {
	Emit(e result.Event)
}

// measurement returns the engine's measurement rules.
func (c Config) measurement() engine.Protocol {
	m := c.Measure
	st := measure.DefaultSteadyRule()
	st.Block, st.MaxSpread, st.MaxTrend = int(m.SteadyBlock/time.Second), m.SteadySpread, m.SteadyTrend
	return engine.Protocol{Levels: c.Bench.Threads, WarmupCap: m.Warmup, WarmupMax: m.WarmupMax, Duration: m.Duration, Steady: st,
		Score: m.ScoreRule(), PollEvery: time.Second, Prune: engine.PruneRule{Off: !m.Prune}}
}

// maxConnections is the servers' max_connections: the largest thread
// level plus headroom.
func (c Config) maxConnections() int { return slices.Max(c.Bench.Threads) + 50 }

// run is one mode's run: the parts every mode builds the same way.
type run struct {
	cfg     Config
	prog    Progress
	started time.Time
	host    runner.Host // the host as the study sees it: RAM is the profile's limit
	hostRAM int64       // the machine's own RAM (bytes)
	engine  *engine.Engine
	sp      *space.Space
	base    space.Config
	spaceM  *storage.SpaceManifest
	version string
	facts   expertFacts
	notes   func()            // prints what the study searches
	seeds   []search.Proposal // the --seed-from seeds (search)
	undo    []func() error    // run in reverse order by close
	mode    string            // "search", "worker" or "noise", for the resume hint
	info    space.ServerInfo  // the sandbox's server (onSandbox)
	bin     runner.Binary     // its binary (onSandbox)
	live    *liveWriter       // writes the running trial's samples to the store (nil: not stored)
	skew    engine.Benchmark  // the benchmark under --skew-check's distribution (nil: none)
	skewTag string            // its label ("--rand-type=uniform")
}

func (r *run) logf(format string, a ...any) {
	r.prog.Emit(result.Log{Message: fmt.Sprintf(format, a...)})
}

// shape returns how the study records configurations (search.Shape):
// Base under every proposal, the space's repair and space.Space.Essential,
// except that a knob Base sets (a pin, the baseline my.cnf) is kept at any
// value, so an export against the user's my.cnf still names a knob the
// best sets back to the server's default. Verbatim on an existing server:
// a knob a trial leaves out keeps the server's own setting there
// (engine.ExistingTarget), not the default Essential compares with.
func (r *run) shape() search.Shape {
	return search.Shape{Space: r.sp, Base: r.base, Verbatim: r.cfg.Existing != nil}
}

// close undoes what the run did, last first, and returns the first error
// (e.g. an existing server whose settings could not be put back).
func (r *run) close() error {
	var first error
	for i := len(r.undo) - 1; i >= 0; i-- {
		if err := r.undo[i](); err != nil && first == nil {
			first = err
		}
	}
	r.undo = nil
	return first
}

// closeInto closes the run and keeps its error in *err unless *err
// already holds one.
func (r *run) closeInto(err *error) {
	if cerr := r.close(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// newRun builds the benchmark and the engine on the sandbox or, with
// cfg.Existing, on the existing server. close undoes what it did (stops
// servers, restores an existing server, releases locks) even after an
// error.
func newRun(ctx context.Context, cfg Config, prog Progress, mode string) (*run, error) {
	r := &run{cfg: cfg, prog: prog, mode: mode}
	if err := r.build(ctx); err != nil {
		return r, err
	}
	return r, r.prepare(ctx)
}

// prepare loads the benchmark's dataset on the target (once: a sandbox
// keeps its snapshot).
func (r *run) prepare(ctx context.Context) error {
	return r.engine.Target.Prepare(ctx, r.engine.Bench, r.logf)
}

// build reads the host, builds the benchmark and the engine on its target;
// the dataset is prepared afterwards (Target.Prepare), once the study is
// known to accept this run.
func (r *run) build(ctx context.Context) error {
	cfg, prog := r.cfg, r.prog
	if r.started.IsZero() {
		r.started = time.Now()
	}
	var err error
	if r.host, err = runner.ReadHost(); err != nil {
		return err
	}
	r.hostRAM = r.host.RAMBytes
	if cfg.MemoryLimit > 0 {
		// The profile is a smaller host: every rule sized by RAM reads
		// the limit.
		r.host.RAMBytes = min(r.host.RAMBytes, cfg.MemoryLimit)
	}
	// The benchmark the command line built while checking its flags, or
	// one built here.
	b := cfg.Benchmark
	if b == nil {
		if b, err = OpenBenchmark(cfg); err != nil {
			return err
		}
	}
	if err := r.fitBenchmark(b); err != nil {
		return err
	}
	if err := probeBenchmarks(ctx, b, cfg.runBench(), cfg.Space.BenchBuilds); err != nil {
		return err
	}
	if cfg.SkewCheck != "" {
		var bench BenchSettings
		if r.skew, bench, r.skewTag, err = skewBenchmark(cfg.runBench(), cfg.SkewCheck); err != nil {
			return err
		}
		// The variant is refused before any work as the study's own
		// benchmark is (a distribution the binary lacks).
		if err := probeBenchmarks(ctx, r.skew, bench, cfg.Space.BenchBuilds); err != nil {
			return err
		}
	}
	cfg = r.cfg
	r.engine = &engine.Engine{Bench: b, Measure: cfg.measurement(), MaxConnections: cfg.maxConnections(),
		HostFaultWait: cfg.HostFaultWait, Logf: r.logf,
		OnPhase: func(t search.Trial, phase string) { prog.Emit(result.Phase{Trial: t, Phase: phase}) },
		OnSample: func(t search.Trial, s measure.Sample) {
			prog.Emit(result.Sample{Trial: t, Sample: s})
			r.live.add(t, s)
		}}
	if cfg.Existing != nil {
		err = r.onExisting(ctx)
	} else {
		err = r.onSandbox(ctx)
	}
	if err != nil {
		return err
	}
	r.engine.Space = r.sp
	return nil
}

// errorShiftLimit returns the error-rate limit of the run's benchmark (0:
// none).
func (r *run) errorShiftLimit() float64 {
	if ec, ok := r.engine.Bench.(ErrorShiftLimiter); ok {
		return ec.ErrorShiftLimit()
	}
	return 0
}

// fitBenchmark adapts the run's settings to a benchmark that brings its
// own concurrency (FixedConcurrency: its connection count becomes the only
// thread level) and prints its notes (Noter). A replay at a fixed pace
// needs --objective p95: its throughput is the captured workload's,
// whatever the configuration.
func (r *run) fitBenchmark(b engine.Benchmark) error {
	if fc, ok := b.(FixedConcurrency); ok {
		r.cfg.Bench.Threads = []int{fc.Connections()}
		if r.cfg.Bench.Speed > 0 && r.cfg.Measure.Objective != string(measure.GoalP95) {
			return Usagef("--speed %g replays at the captured pace, a fixed load whose throughput is the workload's: score it on latency with --objective p95 (or replay as fast as possible with --speed max)", r.cfg.Bench.Speed)
		}
	}
	if n, ok := b.(Noter); ok {
		for _, l := range n.Notes() {
			r.logf("%s", l)
		}
	}
	return nil
}

// hostAIO sets what the engine checks of the host's asynchronous I/O
// before every start of bin (info: its probe): the events of the
// backend the probe reported, for the configuration's I/O threads (the
// server's defaults where it sets none), and that backend for every
// trial's server; a retried host fault waits --host-fault-wait. Where the
// kernel charges io_uring's rings to the locked-memory limit (before
// Linux 5.12), the limit the servers inherit is raised to what the
// largest I/O thread counts need, or the shortfall is logged.
func (r *run) hostAIO(e *engine.Engine, bin runner.Binary, info space.ServerInfo) {
	threads := func(cfg space.Config, name string) int {
		if v, err := strconv.Atoi(cfg[name]); err == nil && v > 0 {
			return v
		}
		if v, ok := info.Vars[name]; ok {
			if n, err := strconv.Atoi(v.Default); err == nil && n > 0 {
				return n
			}
		}
		return 4
	}
	backend := info.AIO
	if backend == "" {
		backend = runner.AIOLibaio // unknown: count as the one that reserves events
	}
	e.HostAIO = runner.ReadHostAIO
	e.AIONeed = func(cfg space.Config) runner.AIONeed {
		return runner.AIONeedOf(bin.Flavor, backend, threads(cfg, "innodb_read_io_threads"), threads(cfg, "innodb_write_io_threads"))
	}
	e.AIOBackend = info.AIO
	if info.AIO == runner.AIOIOUring && runner.KernelChargesIOUringToMemlock() {
		if _, err := runner.EnsureMemlock(runner.IOUringMemlock(64, 64)); err != nil {
			r.logf("warning: %v; a server whose io_uring cannot lock its rings falls back to libaio, and its trial waits as a host fault", err)
		}
	}
}

// onSandbox resolves the space against the sandbox's server and makes the
// sandbox the target.
func (r *run) onSandbox(ctx context.Context) error {
	cfg := r.cfg
	// One autotune per sandbox (before the live server is probed in it).
	probe, err := runner.OpenSandbox(cfg.Workdir, runner.Binary{})
	if err != nil {
		return err
	}
	lock, err := lockfile.Acquire(filepath.Join(probe.Dir, "lock"))
	if errors.Is(err, lockfile.ErrLocked) {
		return fmt.Errorf("--workdir %q is used by another autotune (%v); give each running study its own --workdir", cfg.Workdir, err)
	}
	if err != nil {
		return err
	}
	r.undo = append(r.undo, func() error { lock.Release(); return nil })
	if t, ok := r.engine.Bench.(TCPOnly); ok {
		cfg.Space.benchTCPOnly = t.TCPOnly()
	}
	// What the host must offer, before the first server starts (the
	// probe below): disk for the dataset's copies. What each server's
	// asynchronous I/O asks of it is checked before every start, once
	// the probe has told its backend (Engine.HostAIO).
	_, serr := os.Stat(filepath.Join(probe.Dir, "snapshot"))
	pf := runner.Preflight{Dir: probe.Dir, DataBytes: r.engine.Bench.Dataset().EstimatedBytes(), Snapshot: serr == nil}
	if err := pf.Check(); err != nil {
		return err
	}
	rs, err := resolveSpace(ctx, cfg.Space, cfg.Workdir)
	if err != nil {
		return err
	}
	plan, err := planSpace(ctx, cfg.Space, rs, r.host, cfg.MemoryLimit > 0)
	if err != nil {
		return err
	}
	bin := rs.servers.first()
	sb, err := runner.OpenSandbox(cfg.Workdir, bin)
	if err != nil {
		return err
	}
	// The server that loads the dataset holds it whole in its pool for
	// the page list: a quarter of the RAM, within the memory budget. It
	// runs outside the host profile (loading is not measured); a trial's
	// smaller pool loads the part of the list it holds.
	sb.WarmPool = r.host.RAMBytes / 4
	if plan.budget > 0 {
		sb.WarmPool = min(sb.WarmPool, plan.budget/2)
	}
	if cfg.MemoryLimit > 0 {
		sb.WarmPool = r.hostRAM / 4 // the machine's: loading runs outside the profile
		cg, err := runner.NewCgroup("autotune-"+shortHash(sb.Dir), cfg.MemoryLimit)
		if err != nil {
			return Usagef("--memory-limit %s: %v", space.FormatBytes(cfg.MemoryLimit), err)
		}
		sb.Cgroup = cg
		r.undo = append(r.undo, cg.Remove) // after the target's Close below
		r.logf("host profile: the sandboxed server runs under a %s, page cache counted; memory rules read %s of RAM", cg, space.FormatBytes(r.host.RAMBytes))
	}
	target := &engine.SandboxTarget{Box: sb, Space: rs.sp, Builds: rs.servers.bins, Default: bin,
		MaxConnections: cfg.maxConnections(), Dynamic: cfg.Space.Apply == ApplyDynamic, Logf: r.logf,
		Preload: !cfg.Measure.ColdStart && sb.WarmPool > 0}
	r.undo = append(r.undo, func() error { return target.Close(context.Background()) })
	e := r.engine
	e.Target, e.MemoryBudget, e.ServerVars, e.Facilities = target, plan.budget, rs.info.Vars, rs.fac
	if sb.Cgroup != nil {
		// Under a host profile the kernel's limit judges what a
		// configuration really touches; the estimate (every buffer at
		// its size, allocated or not) would refuse the server defaults
		// on a small profile. The budget still bounds the buffer pool
		// and the warm start.
		e.MemoryBudget = 0
	}
	limit := cfg.MemoryLimit
	e.Available = func() int64 {
		a, err := runner.MemAvailable()
		if err != nil {
			return 0 // unknown: a failed allocation is the configuration's
		}
		if limit > 0 {
			a = min(a, limit)
		}
		return a
	}
	r.hostAIO(e, bin, rs.info)
	e.BenchBuilds = map[string]string{}
	for _, b := range cfg.Space.BenchBuilds {
		e.BenchBuilds[b.Name] = b.Path
	}
	r.sp, r.base, r.spaceM, r.version = rs.sp, plan.base, plan.manifest, bin.Version
	r.info, r.bin = rs.info, bin
	r.facts = expertFacts{ramBytes: r.host.RAMBytes, memLimit: cfg.MemoryLimit, dataBytes: sb.DataBytes,
		fsyncPS: func(ctx context.Context) (float64, error) { return runner.ProbeFsync(ctx, sb.Dir, fsyncProbeTime) }}
	r.notes = func() { plan.report(r.logf, rs.sp) }
	return nil
}

// skewBenchmark returns the benchmark of the skew check: bench under the
// --skew-check distribution dist (SkewVariant), the settings it is
// built from (for the other --benchmark-build) and its label
// ("--rand-type=uniform"). The error is a UsageError naming --skew-check:
// the driver cannot vary its workload, dist is not a distribution or is
// the study's own.
func skewBenchmark(bench BenchSettings, dist string) (engine.Benchmark, BenchSettings, string, error) {
	d, err := lookupDriver(bench.Driver)
	if err != nil {
		return nil, bench, "", UsageError{Err: err}
	}
	sv, ok := d.(SkewVariant)
	if !ok {
		return nil, bench, "", Usagef("--skew-check %s: not with --benchmark %s (its runs have no access distribution to vary)", dist, bench.Driver)
	}
	b, label, err := sv.OpenSkewed(bench, dist)
	if err != nil {
		return nil, bench, "", UsageError{Err: err}
	}
	bench.Rand = bench.Rand.With(dist)
	return b, bench, label, nil
}

// probeBenchmarks checks the benchmark b of bench and every other
// --benchmark-build with it (Prober): a binary that cannot honour the
// definition is a UsageError naming it and what it lacks, before the
// sandbox or the dataset costs anything.
func probeBenchmarks(ctx context.Context, b engine.Benchmark, bench BenchSettings, builds []storage.Build) error {
	p, ok := b.(Prober)
	if !ok {
		return nil
	}
	if err := p.Probe(ctx); err != nil {
		return UsageError{Err: err}
	}
	for i, build := range builds {
		if i == 0 {
			continue // the default benchmark binary: b
		}
		bb := bench
		bb.Path, bb.TPCCPath = build.Path, build.Path
		nb, err := newBenchmark(bb)
		if err != nil {
			return UsageError{Err: fmt.Errorf("--benchmark-build %s: %w", build.Name, err)}
		}
		if p, ok := nb.(Prober); ok {
			if err := p.Probe(ctx); err != nil {
				return UsageError{Err: fmt.Errorf("--benchmark-build %s: %w", build.Name, err)}
			}
		}
	}
	return nil
}

// Search runs (or resumes) the study of cfg until its budget or trial cap:
// the baseline, the seeds (cfg.SeedFrom), the warm start, the strategy's proposals and the
// re-measurements, each committed to the store as it ends. It returns
// context.Canceled (after a result.Interrupted event) when interrupted, a UsageError for
// a bad combination of settings, and other errors when the study cannot go
// on (the store, the sandbox, a failing baseline).
func Search(ctx context.Context, cfg Config, prog Progress) (err error) {
	r, db, op, err := start(ctx, cfg, prog, "search")
	defer r.closeInto(&err)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	// Vary the seed on each resume so a resumed sampler does not replay the
	// random draws of the first run.
	strategy, warm, err := newStrategy(ctx, cfg.Strategy, cfg.WarmStart, r.seeds, r.shape(), op.Study.Seed+int64(op.Next), cfg.Trials, r.facts, r.logf)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	store := storage.SegmentStore{DB: db, Key: op.Fingerprint.Key()}
	history, err := store.Trials(ctx, cfg.Study)
	if err != nil {
		return err
	}
	prog.Emit(result.Opened{Study: cfg.Study, Budget: cfg.Budget, MaxTrials: cfg.Trials, Spent0: op.Study.Spent, Start: r.started, Space: r.sp, History: history})
	prog.Emit(result.TrialLength{Warmup: cfg.Measure.Warmup, Window: cfg.Measure.Duration})
	sp := r.sp
	st := &search.Loop{
		Name: cfg.Study, Strategy: strategy, Objective: r.engine.Run, Store: store, FirstNumber: op.Next,
		Budget: cfg.Budget, Spent: op.Study.Spent, Start: r.started, MaxTrials: cfg.Trials, WarmStart: warm,
		Confirm: r.cfg.Measure.Confirmation(), Base: r.base, Space: r.sp, Verbatim: r.cfg.Existing != nil,
		PriorCost: cfg.priorCost(),
		OnPlan:    func(p search.Plan) { r.logPlan(p) },
		OnTrial:   func(e search.Standing) { prog.Emit(result.TrialEnded{Standing: e}) },
		Prune:     cfg.Measure.Prune, Goal: measure.Goal(cfg.Measure.Objective),
		MaxErrorShift: r.errorShiftLimit(),
	}
	if r.skew != nil {
		// The same server, dataset, threads and durations: only the
		// benchmark differs.
		variant := *r.engine
		variant.Bench = r.skew
		st.Skew = &search.SkewCheck{Label: r.skewTag, Objective: variant.Run}
		r.logf("skew check: after the final A/B runs the best and the baseline are measured again under %s (--skew-check %s)", r.skewTag, cfg.SkewCheck)
	}
	if cfg.Minimize {
		st.Minimize = cfg.minimization(sp)
		if err := samePairs(ctx, db, cfg, history); err != nil {
			return err
		}
	}
	res, err := st.Run(ctx)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	goal := measure.Goal(cfg.Measure.Objective)
	hint := fmt.Sprintf("autotune export --study %s --db %s -o best.cnf", cfg.Study, cfg.DB)
	sum := result.Summary{Goal: goal, Space: sp, Trials: append(slices.Clone(res.Trials), res.SkewRuns...), Best: res.Best, ExportHint: "write it as a my.cnf with " + hint}
	if m, err := op.Study.Manifest(); err == nil {
		sum.Workload = storage.WorkloadText(m)
	}
	if err := saveImportance(ctx, db, cfg.Study, sp, res.Trials, &sum); err != nil {
		return err
	}
	if st.Minimize != nil {
		if m := search.Minimize(res.Trials, st.Minimize, goal); m.Runs > 0 {
			sum.Minimization = &result.Minimization{Space: sp, Result: m}
		}
	}
	prog.Emit(sum)
	prog.Emit(result.Done{Result: res, Hint: "write it as a my.cnf with: " + hint})
	return nil
}

// Minimize minimises the best trial of the study cfg.Study, which search
// ran (search.Loop.MinimizeOnly, the same phase search ends with): it
// resumes a minimisation that stopped part-way, runs it to its end (no
// budget) and prints its steps and result. The study must exist and the
// run's settings match its manifest, as for a resumed search. It returns
// context.Canceled (after a result.Interrupted event) when interrupted, a UsageError
// for a missing study or changed settings, and other errors when the
// store or the sandbox fails.
func Minimize(ctx context.Context, cfg Config, prog Progress) (err error) {
	r, db, op, err := start(ctx, cfg, prog, "minimize")
	defer r.closeInto(&err)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	store := storage.SegmentStore{DB: db, Key: op.Fingerprint.Key()}
	history, err := store.Trials(ctx, cfg.Study)
	if err != nil {
		return err
	}
	prog.Emit(result.Opened{Study: cfg.Study, Spent0: op.Study.Spent, Start: r.started, Space: r.sp, History: history})
	prog.Emit(result.TrialLength{Warmup: cfg.Measure.Warmup, Window: cfg.Measure.Duration})
	goal := measure.Goal(cfg.Measure.Objective)
	pol := cfg.minimization(r.sp)
	if err := samePairs(ctx, db, cfg, history); err != nil {
		return err
	}
	m := search.Minimize(history, pol, goal)
	switch {
	case m.Best < 0:
		return Usagef("study %q: nothing to minimise (no complete best trial other than the baseline, or the best changes nothing)", cfg.Study)
	case m.Done:
		r.logf("study %q: the minimisation of trial %d is done (%d runs)", cfg.Study, m.Best, m.Runs)
	default:
		r.logf("minimising trial %d of study %q: %d changes from the baseline, %d pairs a step; %s", m.Best, cfg.Study, m.Changes, pol.Pairs, search.MinimizeRule)
	}
	st := &search.Loop{Name: cfg.Study, Objective: r.engine.Run, Store: store, FirstNumber: op.Next, Spent: op.Study.Spent, Start: r.started,
		Base: r.base, OnTrial: func(e search.Standing) { prog.Emit(result.TrialEnded{Standing: e}) }, Goal: goal, Minimize: pol, MinimizeOnly: true, MaxErrorShift: r.errorShiftLimit()}
	res, err := st.Run(ctx)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	m = search.Minimize(res.Trials, pol, goal)
	if err := db.SaveMinimization(ctx, cfg.Study, m); err != nil {
		return err
	}
	prog.Emit(result.Minimization{Space: r.sp, Result: m})
	prog.Emit(result.Done{Result: res, Hint: fmt.Sprintf("write the minimal configuration as a my.cnf with: autotune export --study %s --db %s -o minimal.cnf", cfg.Study, cfg.DB)})
	return nil
}

// samePairs refuses to resume a minimisation of the study's best begun
// with other --minimize-pairs: its steps are read back from its runs in
// groups of that many pairs.
func samePairs(ctx context.Context, db *storage.DB, cfg Config, history []search.Trial) error {
	m, found, err := db.Minimization(ctx, cfg.Study)
	if err != nil || !found || m.Pairs == 0 || m.Pairs == cfg.MinimizePairs {
		return err
	}
	if best, _ := search.Best(history); best.Number != m.Best {
		return nil // a new best: a new minimisation
	}
	return Usagef("--minimize-pairs %d: the minimisation of trial %d in study %q was begun with %d pairs a step; resume it with --minimize-pairs %d",
		cfg.MinimizePairs, m.Best, cfg.Study, m.Pairs, m.Pairs)
}

// start builds the run, opens the store and opens (or creates) the study;
// the run's close undoes all of it, even after an error.
func start(ctx context.Context, cfg Config, prog Progress, mode string) (*run, *storage.DB, Opened, error) {
	worker := mode == "worker"
	r := &run{cfg: cfg, prog: prog, started: time.Now(), mode: mode}
	if mode == "minimize" && !strings.HasPrefix(cfg.DB, "mysql://") {
		// A finished study's store: a mistyped --db creates nothing.
		if _, err := os.Stat(cfg.DB); err != nil {
			return r, nil, Opened{}, Usagef("--db %s: %v (autotune minimize works on a finished study's store)", cfg.DB, errors.Unwrap(err))
		}
	}
	db, err := storage.Open(cfg.DB)
	if err != nil {
		return r, nil, Opened{}, err
	}
	r.undo = append(r.undo, func() error { db.Close(); return nil })
	// The running trial's samples as they arrive, for autotune dashboard
	// (stopped before the store closes: undo runs last first).
	r.live = newLiveWriter(db, r.logf)
	r.undo = append(r.undo, r.live.close)
	// The study's lock first: a second autotune on the study is told so
	// before it touches the sandbox.
	release, err := Lock(ctx, db, cfg.DB, cfg.Study, worker)
	if err != nil {
		return r, db, Opened{}, err
	}
	r.undo = append(r.undo, func() error { release(); return nil })
	// What the stored study refuses, before the sandbox is built: a
	// mistyped --study for minimize, another --seed (Open checks both
	// again, and the rest of the settings once they are known).
	switch st, found, err := db.Study(ctx, cfg.Study); {
	case err != nil:
		return r, db, Opened{}, err
	case !found && mode == "minimize":
		return r, db, Opened{}, noSuchStudy(cfg.Study, db)
	case found:
		if err := seedConflict(st, cfg.Seed); err != nil {
			return r, db, Opened{}, err
		}
		// The study's re-measurement policy is its own where no flag
		// names it (minimize refuses those flags): a resume with the
		// same command keeps it whatever today's defaults are.
		m, err := st.Manifest()
		if err != nil {
			return r, db, Opened{}, err
		}
		if st.Settings != "" {
			keepPolicy(&r.cfg.Measure, m.Measure, r.cfg.PolicyGiven)
		}
	}
	if err := r.build(ctx); err != nil {
		return r, db, Opened{}, err
	}
	// Seeds are read and checked before the study is created or its
	// dataset loaded: a refused seed costs nothing.
	if mode == "search" {
		if r.seeds, err = r.loadSeeds(ctx); err != nil {
			return r, db, Opened{}, err
		}
	} else if len(cfg.SeedFrom) > 0 {
		return r, db, Opened{}, Usagef("--seed-from: only autotune search seeds a study")
	}
	man, err := r.manifest(ctx)
	if err != nil {
		return r, db, Opened{}, err
	}
	op, err := Open(ctx, db, OpenRequest{Name: cfg.Study, Manifest: man, Seed: cfg.Seed,
		ServerVersion: r.version, Host: r.host, AllowChanges: cfg.AllowChanges, Worker: worker, MustExist: mode == "minimize",
		Started: r.started, Logf: r.logf})
	if err != nil {
		return r, db, op, err
	}
	if r.notes != nil {
		r.notes()
	}
	return r, db, op, r.prepare(ctx)
}

// manifest is what this run's study measures, with the benchmark's
// definition (its program's version and options, and the thread levels
// as "threads"); the error says why the definition could not be read.
func (r *run) manifest(ctx context.Context) (storage.Manifest, error) {
	m := r.cfg.manifest(r.spaceM)
	if x := r.cfg.Existing; x != nil {
		m.Target, m.AllowRestart = "existing "+r.existingAddr(), x.AllowRestart
	}
	def, err := r.engine.Bench.Definition(ctx)
	if err != nil {
		return m, fmt.Errorf("benchmark definition: %w", err)
	}
	def.Options["threads"] = joinInts(r.cfg.Bench.Threads)
	m.Definition = &def
	if r.cfg.Existing == nil {
		m.AIOBackend = r.info.AIO
	}
	return m, nil
}

// joinInts renders counts as "4,16".
func joinInts(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// logPlan prints a budget plan line by line.
func (r *run) logPlan(p search.Plan) {
	for _, l := range splitLines(p.String()) {
		r.logf("%s", l)
	}
}

// interrupted turns a cancelled run's error into the resume hint and
// context.Canceled (exit code 130); other errors pass.
func (r *run) interrupted(ctx context.Context, err error) error {
	if err == nil || (ctx.Err() == nil && !errors.Is(err, context.Canceled)) {
		return err
	}
	c := r.cfg
	switch {
	case r.mode == "noise":
		return r.interruptedBy("interrupted: the running measurement was abandoned and the server stopped")
	case r.mode == "minimize":
		return r.interruptedBy(fmt.Sprintf("interrupted: the running minimisation run was abandoned and the server stopped.\nresume with the same command: autotune minimize --study %s --db %s ...", c.Study, c.DB))
	case r.mode == "worker":
		return r.interruptedBy(fmt.Sprintf("interrupted: the running trial was abandoned (not counted) and the server stopped.\nrestart the worker with the same command to rejoin study %q", c.Study))
	case c.Existing != nil:
		return r.interruptedBy(fmt.Sprintf("interrupted: the running trial was abandoned (not counted); the server's original settings are put back next.\nresume with the same command: autotune search --dsn ... --study %s --db %s ...", c.Study, c.DB))
	}
	return r.interruptedBy(fmt.Sprintf("interrupted: the running trial was abandoned (not counted) and the server stopped.\nresume with the same command: autotune search --study %s --db %s ...", c.Study, c.DB))
}

// interruptedBy reports Ctrl-C with the resume hint and returns
// context.Canceled (exit code 130).
func (r *run) interruptedBy(hint string) error {
	r.prog.Emit(result.Interrupted{Hint: hint})
	return context.Canceled
}

// shortHash is the first 12 hex digits of s's SHA-256: a name for a
// host resource (a cgroup) that is the same for the same sandbox.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}
