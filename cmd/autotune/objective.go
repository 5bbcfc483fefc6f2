package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// trialRunner measures one trial on the sandbox: check the config against
// the memory budget, restore the snapshot, start the server with the
// trial's knobs under the trial's runtime environment (or, in dynamic
// mode, apply dynamic-only changes to the running server), read the knobs
// back, run the benchmark through warm-up and measurement, stop, score.
type trialRunner struct {
	sb      *runner.Sandbox
	bench   runner.Sysbench // the sysbench set-up; builds and placement vary per trial
	meas    measurer        // warm-up detection, thread levels, scoring
	sp      *space.Space
	maxConn int
	logf    func(string, ...any)

	servers servers                    // server builds by name
	benches map[string]string          // benchmark builds by name
	fac     runner.Facilities          // launcher facilities of the host
	vars    map[string]space.ServerVar // the server's variables, for the memory estimate
	budget  int64                      // memory budget in bytes (0: none)
	dynamic bool                       // --apply dynamic

	live        *runner.Server // dynamic mode: the server kept running after a trial
	liveCfg     space.Config   // ... and the config it runs
	liveEnv     string         // ... and its environment and build key
	liveDatadir string         // ... and its datadir

	diskFull int // consecutive server starts that failed on a full disk

	// onPhase and onSample, when set, report progress: the phase a trial
	// enters (phaseRestoring, ...) and each per-second sample.
	onPhase  func(t search.Trial, phase string)
	onSample func(t search.Trial, s search.Sample)
}

// maxDiskFull is how many server starts in a row may fail on a full disk
// before the study stops.
const maxDiskFull = 3

// stopTimeout bounds a clean shutdown before SIGKILL; a 4G pool with many
// dirty pages needs about 2 s here (mariadb-on-this-machine.md §2.4).
const stopTimeout = 2 * time.Minute

// close stops a server kept running by dynamic mode and deletes its
// datadir.
func (r *trialRunner) close() {
	if r.live != nil {
		_ = r.live.Stop(stopTimeout)
		r.live = nil
	}
	r.removeDatadir(r.liveDatadir)
	r.liveDatadir = ""
}

// removeDatadir deletes a trial datadir once its server has stopped, so
// the disk holds one copy of the dataset between trials.
func (r *trialRunner) removeDatadir(dir string) {
	if dir == "" {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		r.logf("warning: remove trial datadir: %v", err)
	}
}

// envKey identifies what a running server cannot change without a
// restart besides its options: build and runtime environment.
func envKey(cfg space.Config) string {
	var b strings.Builder
	for _, n := range []string{"server_build", "benchmark_build", "allocator", "cpu_placement", "numa_policy"} {
		b.WriteString(n + "=" + cfg[n] + ";")
	}
	return b.String()
}

// dynamicChanges returns the SET GLOBAL assignments that turn a server
// running prev into one running cfg, and false when some change needs a
// restart (a read-only knob, a build or environment knob other than the
// benchmark connection, or a knob this space does not know).
func (r *trialRunner) dynamicChanges(prev, cfg space.Config) ([]runner.Assignment, bool) {
	if envKey(prev) != envKey(cfg) {
		return nil, false
	}
	var as []runner.Assignment
	for _, k := range r.sp.All() {
		a, inA := prev[k.Name]
		b, inB := cfg[k.Name]
		if !inA {
			a = k.Default
		}
		if !inB {
			b = k.Default
		}
		if a == b {
			continue
		}
		if k.Layer == space.LayerEnvironment && k.Name == "benchmark_connection" {
			continue // the benchmark's, not the server's
		}
		if k.Layer != space.LayerServer || !k.Dynamic {
			return nil, false
		}
		// Numeric values go unquoted: the variables behind numeric enum
		// knobs (innodb_flush_neighbors) are integers and refuse strings
		// (error 1232); no ENUM variable in the catalogue has numeric names.
		_, numErr := strconv.ParseFloat(b, 64)
		as = append(as, runner.Assignment{Var: r.sp.Variable(k.Name), Value: b, Quoted: numErr != nil})
	}
	for _, n := range cfg.Names() {
		if _, ok := r.sp.Knob(n); !ok {
			return nil, false
		}
	}
	return as, true
}

// run implements search.Objective.
func (r *trialRunner) run(ctx context.Context, t search.Trial) (search.Outcome, error) {
	out := search.Outcome{Phases: map[string]float64{}}
	phase := func(name string, since time.Time) { out.Phases[name] = time.Since(since).Seconds() }
	cfg := t.Params
	enter := func(p string) {
		if r.onPhase != nil {
			r.onPhase(t, p)
		}
	}

	// Rejected before any server starts: over the memory budget.
	if r.budget > 0 {
		est := space.EstimateMemory(cfg, r.vars, r.maxConn)
		if est.Total > r.budget {
			r.close()
			out.Rejected = true
			out.Failure = fmt.Sprintf("rejected before start: estimated memory %s exceeds the memory budget %s (--memory-budget)", est, space.HumanBytes(r.budget))
			return out, nil
		}
	}
	place, err := runner.PlacementFor(cfg, r.fac)
	if err != nil {
		r.close()
		out.Failure = "runtime environment: " + err.Error()
		return out, nil
	}
	bin := r.servers.first()
	if name := cfg["server_build"]; name != "" {
		b, ok := r.servers.bins[name]
		if !ok {
			out.Failure = fmt.Sprintf("server_build %q: not among the builds of this run (--server-build)", name)
			return out, nil
		}
		bin = b
	}
	bench := r.bench
	if name := cfg["benchmark_build"]; name != "" {
		p, ok := r.benches[name]
		if !ok {
			out.Failure = fmt.Sprintf("benchmark_build %q: not among the builds of this run (--benchmark-build)", name)
			return out, nil
		}
		bench.Path = p
	}
	bench.Launch, bench.TCP = place.Bench, place.TCP

	var srv *runner.Server
	var datadir string
	keep := false
	// Runs last (deferred first): the datadir goes once its server stopped.
	defer func() {
		if !keep {
			r.removeDatadir(datadir)
		}
	}()
	if as, ok := r.dynamicChanges(r.liveCfg, cfg); r.dynamic && r.live != nil && !r.live.Exited() && ok {
		enter(phaseStarting)
		t0 := time.Now()
		if err := r.live.SetGlobals(ctx, as); err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			r.close()
			out.Failure = "the server refused a dynamic change: " + err.Error()
			return out, nil
		}
		phase("apply", t0)
		srv = r.live
		datadir, r.liveDatadir = r.liveDatadir, ""
		out.ServerVersion = srv.Version
	} else {
		r.close()
		enter(phaseRestoring)
		t0 := time.Now()
		dir, err := r.sb.Restore(ctx)
		if err != nil {
			return out, err
		}
		datadir = dir
		phase("restore", t0)

		var opts bytes.Buffer
		if err := r.sp.WriteOptions(&opts, cfg); err != nil {
			return out, err
		}
		o := r.sb.Options(datadir, opts.String(), runner.NextLogName(t.Number), r.maxConn)
		o.Launch = place.Server
		enter(phaseStarting)
		t0 = time.Now()
		s, err := runner.Start(ctx, bin, o)
		var se *runner.StartError
		if errors.As(err, &se) {
			if runner.DiskFull(se.Excerpt) {
				// A config may need more disk than the sandbox has (a 4G
				// redo log): that fails the trial. Several in a row mean
				// the disk itself is full: the machine's fault, so the
				// study stops (this trial is not counted) rather than
				// teach the sampler that every config fails.
				r.diskFull++
				if r.diskFull >= maxDiskFull {
					return out, fmt.Errorf("the sandbox disk is full (No space left on device at %d server starts in a row; --workdir %s): free space and run the same command to resume: %w", r.diskFull, r.sb.Dir, se)
				}
				out.Failure = "sandbox disk full: " + se.Error()
				out.ErrorLog = se.Excerpt
				return out, nil
			}
			out.Failure = se.Error()
			out.ErrorLog = se.Excerpt
			return out, nil
		}
		if err != nil {
			return out, err
		}
		phase("start", t0)
		r.diskFull = 0
		srv = s
		out.Restarted = true
		out.ServerVersion = srv.Version
	}
	defer func() {
		if keep {
			r.live, r.liveCfg, r.liveEnv, r.liveDatadir = srv, cfg.Clone(), envKey(cfg), datadir
			return
		}
		if r.live == srv {
			r.live = nil
		}
		if !srv.Exited() {
			_ = srv.Stop(stopTimeout)
		}
	}()

	// The server must run what the trial records (read-back).
	if fail, err := r.readBack(ctx, srv, cfg); err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		out.Failure = "read back the knobs: " + err.Error()
		out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
		return out, nil
	} else if fail != "" {
		out.Failure = fail
		out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
		return out, nil
	}

	m := r.meas
	if _, ok := m.bench.(runner.Sysbench); ok || m.bench == nil {
		m.bench = bench // this trial's sysbench build, placement and connection
	}
	if r.meas.warmupCap > 0 {
		enter(phaseWarmingUp)
	} else {
		enter(phaseMeasuring)
	}
	m.onMeasuring = func() { enter(phaseMeasuring) }
	m.onSample = func(s search.Sample) {
		if r.onSample != nil {
			r.onSample(t, s)
		}
	}
	berr := m.measure(ctx, srv, &out)
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	var ns errNotScored
	if errors.As(berr, &ns) {
		out.Failure = ns.Error()
		berr = nil
	}
	if berr != nil {
		if srv.ExitedWithin(2 * time.Second) {
			out.Failure = "server crashed during the benchmark: " + firstNonEmpty(runnerErrorLine(srv.ErrorLog), berr.Error())
			out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
			return out, nil
		}
		out.Failure = berr.Error()
		var be *runner.BenchError
		if errors.As(berr, &be) {
			out.ErrorLog = "benchmark output:\n" + be.Output + "\n\nserver error log:\n" + runner.LogExcerpt(srv.ErrorLog)
		}
		return out, nil
	}

	if r.dynamic && !srv.Exited() {
		keep = true // the next trial may reuse it
		return out, nil
	}
	enter(phaseStopping)
	t0 := time.Now()
	keep = false
	if err := srv.Stop(stopTimeout); err != nil {
		// Measured fine; a slow or failed shutdown does not void the numbers
		// (the next trial restores the snapshot anyway), but is recorded.
		out.ErrorLog = "shutdown: " + err.Error() + "\n" + runner.LogExcerpt(srv.ErrorLog)
	}
	phase("stop", t0)
	return out, nil
}

// readBack reads every server knob of cfg back from the server (SELECT
// @@GLOBAL) and returns a failure text naming each knob the server does
// not run as configured, classified as in
// shared/cases/mycnf-readback-normalization ("" when all match).
func (r *trialRunner) readBack(ctx context.Context, srv *runner.Server, cfg space.Config) (string, error) {
	var names, vars []string
	for _, n := range cfg.Names() {
		k, ok := r.sp.Knob(n)
		if !ok || k.Layer != space.LayerServer {
			continue
		}
		names = append(names, k.Name)
		vars = append(vars, r.sp.Variable(k.Name))
	}
	got, err := srv.ReadGlobals(ctx, vars)
	if err != nil {
		return "", err
	}
	log, _ := os.ReadFile(srv.ErrorLog)
	warnings := space.ServerWarnings(string(log))
	var bad []string
	for i, n := range names {
		k, _ := r.sp.Knob(n)
		rb := space.CompareValue(&k, vars[i], cfg[n], got[vars[i]], warnings)
		if rb.Status == space.Match {
			continue
		}
		s := fmt.Sprintf("%s: configured %s, server runs %s (%s)", n, k.Render(cfg[n]), got[vars[i]], rb.Status)
		if rb.Warning != "" {
			s += ": " + rb.Warning
		}
		bad = append(bad, s)
	}
	if len(bad) == 0 {
		return "", nil
	}
	return "the server does not run the configured values: " + strings.Join(bad, "; "), nil
}

// runnerErrorLine returns the first [ERROR] line of an error log.
func runnerErrorLine(path string) string {
	for _, l := range strings.Split(runner.LogExcerpt(path), "\n") {
		if strings.Contains(l, "[ERROR]") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
