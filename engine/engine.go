package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Benchmark is a benchmark driver: it loads its dataset once and then runs
// against a ready server as often as the engine asks. Implemented by
// runner/sysbench.Bench, runner/tpcc.Bench, runner/benchcmd.Command and
// runner/replay.Replay.
type Benchmark interface {
	// Prepare loads the dataset into srv: a fresh server with an empty
	// schema sbtest, or, for a dataset with a dump (runner.Dataset.Dump),
	// a fresh server without it (the dump brings its own schemas). On a
	// server autotune does not own it is called when the sbtest tables
	// are missing, and always for a dataset without them (Tables 0: the
	// replay, which then only checks that its schemas are there); see
	// Existing.Prepare.
	Prepare(ctx context.Context, srv *runner.Server) error
	// Run runs the benchmark as r says and calls onSample for every
	// per-interval report as it arrives. It returns a *runner.BenchError
	// when the run failed and ctx.Err() when cancelled (the engine cancels
	// a run once its measurement window is complete).
	Run(ctx context.Context, srv *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error)
	// Dataset identifies the data Prepare loads (a change means a new
	// prepare and a new snapshot).
	Dataset() runner.Dataset
	// Definition is what the benchmark measures: its program's version
	// and every option that changes the measurement, each passed to the
	// program explicitly (the study manifest records it; a resume under
	// another definition is refused). The error says why the program or
	// its version could not be found.
	Definition(ctx context.Context) (benchdef.Definition, error)
}

// Target is where a trial's configuration goes: a sandboxed server
// (Sandbox) or a server autotune did not start (Existing).
type Target interface {
	// Prepare makes sure b's dataset is there before the first trial
	// (a sandbox builds its snapshot once; an existing server is loaded
	// when the schema is missing). Progress lines go to logf.
	Prepare(ctx context.Context, b Benchmark, logf func(string, ...any)) error
	// Apply puts the request's configuration in effect and returns the
	// server to measure. A configuration the server refuses (it does not
	// start, a SET GLOBAL fails) is a *Refused error: the trial fails with
	// the server's message. Any other error stops the study.
	Apply(ctx context.Context, req Request) (Applied, error)
	// Close gives the target back as it was found: it stops a server
	// kept running between trials, or restores an existing server's
	// original settings.
	Close(ctx context.Context) error
}

// Request is one trial's configuration for Target.Apply.
type Request struct {
	// Trial is the trial; its Params are the configuration.
	Trial search.Trial
	// Launch wraps the server process (allocator, CPU placement, NUMA);
	// a target that does not start the server ignores it, and its space
	// has no such knobs.
	Launch runner.Launch
	// Out is the trial's outcome: the target records its phases
	// (restore, start, apply; seconds), Restarted and ServerVersion.
	Out *measure.Outcome
	// Enter reports the phase the trial enters (measure.PhaseRestoring, ...).
	Enter func(phase string)
}

// Applied is a server with a trial's configuration in effect.
type Applied struct {
	// Server is the server to measure.
	Server *runner.Server
	// Release ends the trial's use of the server. measured is true when
	// the benchmark ran to the end; the target may keep the server for the
	// next trial, else it stops it (recording the stop phase in out).
	Release func(measured bool, out *measure.Outcome)
	// KilledForMemory, when set, reports whether the kernel killed the
	// server for memory (the host profile's limit) since Apply: a server
	// that died during the benchmark then failed for the configuration's
	// memory, which the study learns.
	KilledForMemory func() bool
}

// Refused is a configuration the target's server refused: the trial fails
// with Failure (the server's own message) and ErrorLog (an excerpt of the
// server's error log, may be empty). Cause classifies a server that did
// not start (runner.StartDiagnosis; "" when unknown or not a start).
type Refused struct {
	Failure, ErrorLog string
	Cause             runner.StartCause
	// Limit and Fix name the host's limit and what to change on the host
	// (runner.CauseHostLimit: the host's fault, not the configuration's);
	// Resource is runner.ResourceAIO for asynchronous I/O events.
	Limit, Fix, Resource string
	// ProfileKill is set when the kernel killed the server at the host
	// profile's memory limit: the configuration needs more than the
	// profile gives.
	ProfileKill bool
	// Start is set when the server did not start (rather than refusing a
	// SET GLOBAL): the engine then asks whether the server defaults
	// start (BaselineStarter).
	Start bool
}

func (r *Refused) Error() string { return r.Failure }

// Engine measures trials: it implements search.Objective (Run).
type Engine struct {
	// Target receives each trial's configuration.
	Target Target
	// Bench is the benchmark.
	Bench Benchmark
	// Space is the knob space the configurations come from.
	Space *space.Space
	// Measure says how a running server is measured and scored.
	Measure Protocol
	// MemoryBudget rejects, before anything starts, a configuration whose
	// estimated memory (space.EstimateMemory) is larger (bytes; 0: none).
	MemoryBudget int64
	// ServerVars are the server's variables for that estimate (nil: the
	// catalogue's defaults).
	ServerVars map[string]space.ServerVar
	// MaxConnections is the connection count of the estimate.
	MaxConnections int
	// Facilities are the host's launcher facilities, for the runtime
	// environment knobs (allocator, CPU placement, NUMA, connection).
	Facilities runner.Facilities
	// BenchBuilds maps a benchmark_build knob value to an executable.
	BenchBuilds map[string]string
	// OnPhase and OnSample, when set, report progress: the phase a trial
	// enters and each per-second sample.
	OnPhase  func(t search.Trial, phase string)
	OnSample func(t search.Trial, s measure.Sample)

	// HostAIO, when set, reads what the host gives a new server's
	// asynchronous I/O now (runner.ReadHostAIO), and AIONeed what a
	// server of a configuration asks of it (nil or empty configuration:
	// the server defaults'). Before every start, a configuration whose
	// request does not fit while the server defaults' does is rejected
	// (the configuration's fault); when the defaults' does not fit
	// either, the host is at fault (see HostFaultWait).
	HostAIO func() runner.HostAIO
	AIONeed func(cfg space.Config) runner.AIONeed
	// AIOBackend is the asynchronous I/O backend the study's servers use
	// (runner.AIOIOUring, ...; "" unknown: not checked). A server that
	// reports another (it fell back from io_uring, say) while the
	// configuration does not ask for simulated AIO ran on another host
	// than the study's: the host is at fault, the trial is not measured.
	AIOBackend string
	// HostFaultWait is how long a trial whose server the host refuses
	// (a HostFaultError) is retried, with a backoff from 5 s doubling up
	// to a minute, before Run returns the error and the study pauses (0:
	// not retried). Each retry is reported to Logf.
	HostFaultWait time.Duration
	// Logf, when set, reports what the engine does besides measuring
	// (a host fault it waits out).
	Logf func(format string, args ...any)
	// Available, when set, returns the memory available to the server now
	// (bytes; 0: unknown): MemAvailable, within the host profile's limit.
	// It tells an allocation the host could not give (the configuration's
	// fault, learned) from one a process limit refused (the host's:
	// HostFaultError).
	Available func() int64

	// noMemory is what a server could not allocate at start: the smallest
	// estimated memory of a configuration whose start failed for lack of
	// memory, and that trial. Configurations estimated at that or more
	// are rejected before start (the search learns their penalty without
	// a start that is sure to fail).
	noMemory      int64
	noMemoryTrial int
	// faultBackoff replaces hostFaultBackoff when set (tests).
	faultBackoff time.Duration
}

// HostFaultError is returned by Engine.Run when the server did not start
// for a reason of the host, not of the configuration (a kernel or process
// limit, a port or lock another process holds, a permission; see
// runner.CauseHostLimit), or when it could not allocate memory the host
// has (Engine.Available): the study stops without learning anything
// about the configuration, the trial is not counted, and the same command
// runs it again once the host is fixed.
type HostFaultError struct {
	// Trial is the trial's number; Limit names the host's limit, Fix
	// what to change, Failure the server's own message (or the
	// pre-flight's finding).
	Trial               int
	Limit, Fix, Failure string
	// Preflight is set when the host was found wanting before the
	// server started; Waited is how long the engine retried
	// (HostFaultWait) before giving up.
	Preflight bool
	Waited    time.Duration
}

func (e *HostFaultError) Error() string {
	what := "the server did not start"
	if e.Preflight {
		what = "the server was not started"
	}
	waited := ""
	if e.Waited > 0 {
		waited = fmt.Sprintf(" It was retried for %s.", e.Waited.Round(time.Second))
	}
	return fmt.Sprintf("trial %d: %s because of the host, not the configuration: %s (%s).%s Nothing was learned from it and the trial is not counted: %s, then run the same command to resume",
		e.Trial, what, e.Limit, e.Failure, waited, e.Fix)
}

// BaselineStarter is a Target that can tell whether the server defaults
// start on the host now: StartDefaults starts a server with no trial
// option on a fresh copy of the dataset and stops it, and returns the
// start's failure (a *Refused for a start the server refused). Engine.Run
// asks it after a configuration's start failed, to tell the host's fault
// from the configuration's.
type BaselineStarter interface {
	StartDefaults(ctx context.Context) error
}

// hostFault returns the host's fault in the start refused by ref for
// trial n of configuration cfg, nil when the refusal is the
// configuration's. The rule: the configuration is at fault only when its
// own request is what the host cannot give while the server defaults'
// fits. A server that does not know an option is the configuration's.
// Otherwise, with a target that can start the server defaults
// (BaselineStarter), the defaults' start decides: if it fails too, the
// host refuses any server and is at fault; if it succeeds, the
// configuration is. Without one: a host limit the error log names is the
// host's, unless it is asynchronous I/O events and the configuration asks
// for more than the host has left while the defaults fit (HostAIO,
// AIONeed); an allocation that failed although the configuration is
// estimated at no more than half of the memory available (Available) is
// a limit on the process, the host's.
func (e *Engine) hostFault(ctx context.Context, n int, cfg space.Config, ref *Refused) *HostFaultError {
	if ref.Cause == runner.CauseUnknownOption || ref.ProfileKill {
		return nil
	}
	if bs, ok := e.Target.(BaselineStarter); ok && ref.Start {
		err := bs.StartDefaults(ctx)
		if err == nil || ctx.Err() != nil {
			return nil
		}
		hf := &HostFaultError{Trial: n, Failure: ref.Failure, Limit: ref.Limit, Fix: ref.Fix}
		var dref *Refused
		switch {
		case errors.As(err, &dref) && dref.Limit != "":
			hf.Limit, hf.Fix = dref.Limit, dref.Fix
		case dref != nil && dref.Cause == runner.CauseOutOfMemory:
			hf.Limit = "the kernel refused the server memory with its defaults too: a limit on the process (ulimit -v, ulimit -d, vm.max_map_count, vm.overcommit_memory=2) or on the host's memory"
			hf.Fix = "check ulimit -v and ulimit -d of the shell that runs autotune, sysctl vm.overcommit_memory and vm.max_map_count, and the memory other processes hold"
		}
		if hf.Limit == "" {
			hf.Limit = "the server defaults do not start either (" + err.Error() + ")"
			hf.Fix = "start the server by hand with the sandbox's my.cnf to see why, fix the host"
		} else {
			hf.Limit += "; the server defaults do not start either"
		}
		return hf
	}
	switch {
	case ref.Cause == runner.CauseHostLimit && ref.Resource == runner.ResourceAIO && e.HostAIO != nil && e.AIONeed != nil:
		h := e.HostAIO()
		if !h.Fits(e.AIONeed(cfg)) && h.Fits(e.AIONeed(nil)) {
			return nil
		}
		return &HostFaultError{Trial: n, Limit: ref.Limit, Fix: ref.Fix, Failure: ref.Failure}
	case ref.Cause == runner.CauseHostLimit:
		return &HostFaultError{Trial: n, Limit: ref.Limit, Fix: ref.Fix, Failure: ref.Failure}
	case ref.Cause == runner.CauseOutOfMemory && e.Available != nil:
		est := space.EstimateMemory(cfg, e.ServerVars, e.MaxConnections)
		if avail := e.Available(); avail > 0 && 2*est.Total <= avail {
			return &HostFaultError{Trial: n, Failure: ref.Failure,
				Limit: fmt.Sprintf("the kernel refused memory although the configuration is estimated at %s and %s is available: a limit on the process (ulimit -v, vm.max_map_count, vm.overcommit_memory=2, locked-memory limits), not the host's RAM", est, space.HumanBytes(avail)),
				Fix:   "check ulimit -v and ulimit -l of the shell that runs autotune, and sysctl vm.overcommit_memory and vm.max_map_count"}
		}
	}
	return nil
}

// preflight checks, before trial n's server starts, what the host gives
// its asynchronous I/O (HostAIO, AIONeed): it returns a rejection (the
// trial fails before start, the configuration's fault) when the
// configuration's request does not fit while the server defaults' does,
// and a *HostFaultError when the defaults' does not fit either.
func (e *Engine) preflight(n int, cfg space.Config) (reject string, hf *HostFaultError) {
	if e.HostAIO == nil || e.AIONeed == nil {
		return "", nil
	}
	h, need, base := e.HostAIO(), e.AIONeed(cfg), e.AIONeed(nil)
	switch {
	case !h.Fits(base):
		short := runner.AIOShortage{Need: base, Host: h}
		return "", &HostFaultError{Trial: n, Preflight: true, Failure: "checked before start: " + short.Error() + " with the server defaults",
			Limit: "the kernel's limit on asynchronous I/O events (fs.aio-max-nr, shared by every process on the host)", Fix: runner.AIOFix(base.Events)}
	case !h.Fits(need):
		short := runner.AIOShortage{Need: need, Host: h}
		return fmt.Sprintf("rejected before start: %s with this configuration's I/O threads, while the server defaults' %d fit", short.Error(), base.Events), nil
	}
	return "", nil
}

// RestartedError is returned by Engine.Run when the server restarted
// during a trial's benchmark (its Uptime or a counter went back, and
// autotune did not restart it): the measurement is void and not the
// configuration's fault, so the study stops; the trial is not counted,
// and the same command resumes the study and runs it again.
type RestartedError struct {
	// Trial is the trial's number; Why says what showed the restart.
	Trial int
	Why   string
}

func (e *RestartedError) Error() string {
	return fmt.Sprintf("trial %d: the server restarted during the benchmark (%s), which autotune did not do: the measurement is void and the trial is not counted; check the server, then run the same command to resume and measure it again", e.Trial, e.Why)
}

var _ search.Objective = (*Engine)(nil).Run

// Run measures trial t: see the package documentation for the steps. It
// returns an Outcome with Failure set when the trial failed (Rejected when
// it was refused before anything started, also when its estimated memory
// is at least that of a configuration whose server ran out of memory at
// start), and an error only when the study must stop: ctx's error when
// cancelled, a *RestartedError when the server restarted during the
// benchmark, or trouble with the sandbox or the target that is not the
// configuration's fault.
func (e *Engine) Run(ctx context.Context, t search.Trial) (out measure.Outcome, err error) {
	out = measure.Outcome{Phases: map[string]float64{}}
	cfg := t.Params
	enter := func(p string) {
		if e.OnPhase != nil {
			e.OnPhase(t, p)
		}
	}
	if e.MemoryBudget > 0 {
		est := space.EstimateMemory(cfg, e.ServerVars, e.MaxConnections)
		if est.Total > e.MemoryBudget {
			out.Rejected = true
			out.Failure = fmt.Sprintf("rejected before start: estimated memory %s exceeds the memory budget %s (--memory-budget)", est, space.HumanBytes(e.MemoryBudget))
			return out, nil
		}
	}
	if e.noMemory > 0 {
		if est := space.EstimateMemory(cfg, e.ServerVars, e.MaxConnections); est.Total >= e.noMemory {
			out.Rejected = true
			out.Failure = fmt.Sprintf("rejected before start: estimated memory %s is at least the %s of trial %d, whose server ran out of memory", est, space.HumanBytes(e.noMemory), e.noMemoryTrial)
			return out, nil
		}
	}
	place, perr := runner.PlacementFor(cfg, e.Facilities)
	if perr != nil {
		out.Failure = "runtime environment: " + perr.Error()
		return out, nil
	}
	run := runner.BenchRun{Launch: place.Bench, TCP: place.TCP}
	if name := cfg["benchmark_build"]; name != "" {
		p, ok := e.BenchBuilds[name]
		if !ok {
			out.Failure = fmt.Sprintf("benchmark_build %q: not among the builds of this run (--benchmark-build)", name)
			return out, nil
		}
		run.Binary = p
	}
	applied, err := e.applyWaiting(ctx, t, place.Server, &out, enter)
	var ref *Refused
	var over *Overran
	var rej *rejectedBeforeStart
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return out, ctx.Err()
	case errors.As(err, &rej):
		out.Rejected, out.Failure = true, rej.why
		return out, nil
	case errors.As(err, &ref):
		out.Failure, out.ErrorLog = ref.Failure, ref.ErrorLog
		if ref.Cause == runner.CauseOutOfMemory {
			// The configuration needs more memory than the host gives:
			// rejected for a resource, not an installation fault. Every
			// configuration estimated at this much or more will fail
			// the same way.
			est := e.learnNoMemory(cfg, t.Number)
			out.Failure = fmt.Sprintf("configuration rejected for a resource (memory: estimated %s): %s; configurations estimated at %s or more are now rejected before start", est, ref.Failure, space.HumanBytes(e.noMemory))
		}
		return out, nil
	case errors.As(err, &over):
		out.Failure = over.Error()
		return out, nil
	default:
		return out, err
	}
	// Released on every way out, into the returned outcome (a slow
	// shutdown is recorded in it).
	measured := false
	defer func() { applied.Release(measured, &out) }()
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	srv := applied.Server

	// The server must run what the trial records (read-back).
	if fail, err := e.readBack(ctx, srv, cfg); err != nil || fail != "" {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if err != nil {
			fail = "read back the knobs: " + err.Error()
		}
		out.Failure, out.ErrorLog = fail, runner.LogExcerpt(srv.ErrorLog)
		return out, nil
	}

	m := e.Measure
	m.run = run
	m.pruneBelow = t.PruneBelow
	m.onMeasuring = func() { enter(measure.PhaseMeasuring) }
	m.onSample = func(s measure.Sample) {
		if e.OnSample != nil {
			e.OnSample(t, s)
		}
	}
	if m.WarmupCap > 0 {
		enter(measure.PhaseWarmingUp)
	} else {
		enter(measure.PhaseMeasuring)
	}
	berr := m.measure(ctx, e.Bench, srv, &out)
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	var ns errNotScored
	var re *RestartedError
	switch {
	case errors.As(berr, &re):
		re.Trial = t.Number
		return out, re
	case errors.As(berr, &ns):
		out.Failure = ns.Error()
	case berr != nil && srv.ExitedWithin(2*time.Second) && applied.KilledForMemory != nil && applied.KilledForMemory():
		e.learnNoMemory(cfg, t.Number)
		out.Failure = fmt.Sprintf("out of memory: the kernel killed the server during the benchmark at the host profile's memory limit; configurations estimated at %s or more are now rejected before start", space.HumanBytes(e.noMemory))
		out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
	case berr != nil && srv.ExitedWithin(2*time.Second):
		out.Failure = "server crashed during the benchmark: " + cmp.Or(errorLine(srv.ErrorLog), berr.Error())
		out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
	case berr != nil:
		out.Failure = berr.Error()
		var be *runner.BenchError
		if errors.As(berr, &be) {
			out.ErrorLog = "benchmark output:\n" + be.Output
			if ex := runner.LogExcerpt(srv.ErrorLog); ex != "" {
				out.ErrorLog += "\n\nserver error log:\n" + ex
			}
		}
	default:
		measured = true
	}
	return out, nil
}

// learnNoMemory records that the configuration cfg of trial n ran out of
// memory: every configuration estimated at its memory or more is rejected
// before start from now on. It returns cfg's estimate.
func (e *Engine) learnNoMemory(cfg space.Config, n int) space.MemoryEstimate {
	est := space.EstimateMemory(cfg, e.ServerVars, e.MaxConnections)
	if e.noMemory == 0 || est.Total < e.noMemory {
		e.noMemory, e.noMemoryTrial = est.Total, n
	}
	return est
}

// readBack reads every server knob of cfg back from the server (SELECT
// @@GLOBAL) and returns a failure text naming each knob the server does
// not run as configured, classified by space.CompareValue, and each its
// error log says it ignores, removed or deprecates (space.Deprecations:
// such a knob does not tune what the study thinks it tunes); "" when all
// match.
func (e *Engine) readBack(ctx context.Context, srv *runner.Server, cfg space.Config) (string, error) {
	var names, vars []string
	for _, n := range cfg.Names() {
		k, ok := e.Space.Knob(n)
		if !ok || k.Layer != space.LayerServer {
			continue
		}
		names = append(names, k.Name)
		vars = append(vars, e.Space.Variable(k.Name))
	}
	got, err := srv.ReadGlobals(ctx, vars)
	if err != nil {
		return "", err
	}
	var warnings, deprecated map[string]string
	if srv.ErrorLog != "" {
		log, _ := os.ReadFile(srv.ErrorLog)
		warnings, deprecated = space.ServerWarnings(string(log)), space.Deprecations(string(log))
	}
	var bad []string
	for i, n := range names {
		k, _ := e.Space.Knob(n)
		if msg := cmp.Or(deprecated[n], deprecated[vars[i]]); msg != "" {
			bad = append(bad, fmt.Sprintf("%s: the server ignores or deprecates it (%s)", n, msg))
			continue
		}
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

// errorLine returns the first [ERROR] line of an error log.
func errorLine(path string) string {
	for _, l := range strings.Split(runner.LogExcerpt(path), "\n") {
		if strings.Contains(l, "[ERROR]") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// rejectedBeforeStart is applyWaiting's rejection of a configuration the
// pre-flight found the host cannot serve while it serves the defaults.
type rejectedBeforeStart struct{ why string }

func (r *rejectedBeforeStart) Error() string { return r.why }

// hostFaultBackoff is the first wait before a host fault is retried; it
// doubles up to hostFaultBackoffMax.
const (
	hostFaultBackoff    = 5 * time.Second
	hostFaultBackoffMax = time.Minute
)

// applyWaiting checks the host (preflight), applies trial t's
// configuration to the target, and checks the server it got (its AIO
// backend); a host fault found on the way is retried with a backoff for
// HostFaultWait, then returned (*HostFaultError, with Waited set). A
// configuration the host cannot serve while it serves the defaults is a
// *rejectedBeforeStart; one the server refused, *Refused.
func (e *Engine) applyWaiting(ctx context.Context, t search.Trial, launch runner.Launch, out *measure.Outcome, enter func(string)) (Applied, error) {
	var first time.Time
	wait := cmp.Or(e.faultBackoff, hostFaultBackoff)
	for {
		applied, err := e.applyOnce(ctx, t, launch, out, enter)
		var hf *HostFaultError
		if !errors.As(err, &hf) {
			return applied, err
		}
		if first.IsZero() {
			first = time.Now()
		}
		waited := time.Since(first)
		if waited+wait > e.HostFaultWait {
			hf.Waited = waited
			return Applied{}, hf
		}
		if e.Logf != nil {
			e.Logf("trial %d: the host refuses the server (%s: %s); retrying in %s, for up to %s in all (--host-fault-wait)", t.Number, hf.Limit, hf.Failure, wait, e.HostFaultWait)
		}
		select {
		case <-ctx.Done():
			return Applied{}, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, hostFaultBackoffMax)
		*out = measure.Outcome{Phases: map[string]float64{}}
	}
}

// applyOnce is one attempt of applyWaiting: preflight, Target.Apply, the
// blame rule on a refused start (hostFault), the AIO backend check.
func (e *Engine) applyOnce(ctx context.Context, t search.Trial, launch runner.Launch, out *measure.Outcome, enter func(string)) (Applied, error) {
	cfg := t.Params
	if reject, hf := e.preflight(t.Number, cfg); hf != nil {
		return Applied{}, hf
	} else if reject != "" {
		return Applied{}, &rejectedBeforeStart{why: reject}
	}
	applied, err := e.Target.Apply(ctx, Request{Trial: t, Launch: launch, Out: out, Enter: enter})
	var ref *Refused
	if errors.As(err, &ref) && ctx.Err() == nil {
		if hf := e.hostFault(ctx, t.Number, cfg, ref); hf != nil {
			return Applied{}, hf
		}
		return Applied{}, err
	}
	if err != nil || applied.Server == nil {
		return applied, err
	}
	srv := applied.Server
	out.AIOBackend = srv.AIO
	if want := e.expectedAIO(cfg); want != "" && srv.AIO != "" && srv.AIO != want {
		applied.Release(false, out)
		why := "its log says nothing of why"
		if srv.AIOFallback != "" {
			why = "its log: " + srv.AIOFallback
		}
		return Applied{}, &HostFaultError{Trial: t.Number, Failure: why,
			Limit: fmt.Sprintf("the server used %s asynchronous I/O where this study's servers use %s, so its numbers would not compare", srv.AIO, want),
			Fix:   "give the server its backend back (for io_uring: sysctl kernel.io_uring_disabled=0 and the locked-memory limit, ulimit -l)"}
	}
	return applied, nil
}

// expectedAIO is the backend a server of cfg should report: the study's
// (AIOBackend), or simulated when cfg turns native AIO off.
func (e *Engine) expectedAIO(cfg space.Config) string {
	if v, ok := cfg["innodb_use_native_aio"]; ok && (v == "0" || strings.EqualFold(v, "OFF")) {
		return runner.AIOSimulated
	}
	if e.AIOBackend == runner.AIOSimulated {
		return ""
	}
	return e.AIOBackend
}
