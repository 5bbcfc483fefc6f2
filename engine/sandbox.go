package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// StopTimeout bounds a clean shutdown before SIGKILL; a 4G buffer pool
// with many dirty pages needs about 2 s on the reference machine.
const StopTimeout = 2 * time.Minute

// maxDiskFull is how many server starts in a row may fail on a full disk
// before the study stops.
const maxDiskFull = 3

// SandboxTarget is the Target of a sandboxed server: every trial restores the
// dataset snapshot into a fresh datadir and starts the server (a child
// process) with the trial's options; with Dynamic set, a trial that only
// changes dynamic knobs from the previous one applies them with SET GLOBAL
// on the running server instead.
type SandboxTarget struct {
	// Box is the sandbox directory (snapshot, datadirs, socket, logs).
	Box *runner.Sandbox
	// Space renders the options and tells dynamic knobs apart.
	Space *space.Space
	// Builds are the server binaries by server_build value; Default is
	// used when the trial has none.
	Builds  map[string]runner.Binary
	Default runner.Binary
	// MaxConnections is the server's max_connections.
	MaxConnections int
	// Dynamic keeps the server between trials when only dynamic knobs
	// change (--apply dynamic).
	Dynamic bool
	// Logf reports warnings (a datadir that could not be removed).
	Logf func(string, ...any)
	// Preload starts every trial warm: the snapshot keeps the buffer
	// pool's page list (Box.WarmPool must be set) and each started server
	// loads it before the benchmark (runner.WaitBufferPoolLoad), within
	// Deadlines.Preload. False starts every trial with an empty pool.
	Preload bool
	// Deadlines bound the restore, start, preload and stop phases (zero
	// fields: DefaultDeadlines).
	Deadlines Deadlines
	// restore and startServer are Box.Restore and runner.Start (tests
	// replace them).
	restore     func(ctx context.Context) (string, error)
	startServer func(ctx context.Context, bin runner.Binary, o runner.StartOptions) (*runner.Server, error)
	waitLoad    func(ctx context.Context, srv *runner.Server, limit time.Duration) (runner.PoolLoad, error)

	live        *runner.Server // Dynamic: the server kept after a trial
	liveCfg     space.Config
	liveDatadir string
	diskFull    int   // consecutive starts that failed on a full disk
	oomKills    int64 // the cgroup's kill count when the trial's restore began
}

// Prepare builds the dataset snapshot once: a fresh datadir, b.Prepare,
// a clean stop. An existing snapshot of the same dataset and server
// version is kept.
func (s *SandboxTarget) Prepare(ctx context.Context, b Benchmark, logf func(string, ...any)) error {
	ds := b.Dataset()
	ds.ServerVersion = s.Default.Version
	ds.PageList = s.Preload
	if s.Box.HasSnapshot(ds) {
		return nil
	}
	switch {
	case ds.Dump != "":
		logf("loading the dataset once: the dump (%s), then snapshotting it", ds.Dump)
	case ds.Warehouses > 0:
		logf("loading the dataset once: %d TPC-C warehouses (%s prepare and consistency check), then snapshotting it", ds.Warehouses, ds.Workload)
	default:
		logf("loading the dataset once: %d tables x %d rows (%s prepare), then snapshotting it", ds.Tables, ds.TableSize, ds.Workload)
	}
	if s.Preload && s.Box.WarmPool <= 0 {
		return errors.New("warm trials need the sandbox's warm pool size (Box.WarmPool)")
	}
	if err := s.Box.BuildSnapshot(ctx, ds, s.MaxConnections, b.Prepare, logf); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("build dataset snapshot: %w", err)
	}
	return nil
}

// Close stops a server kept running by Dynamic and removes its datadir.
func (s *SandboxTarget) Close(context.Context) error {
	if s.live != nil {
		_ = s.live.Stop(StopTimeout)
		s.live = nil
	}
	s.removeDatadir(s.liveDatadir)
	s.liveDatadir = ""
	return nil
}

// removeDatadir deletes a trial datadir once its server has stopped, so
// the disk holds one copy of the dataset between trials.
func (s *SandboxTarget) removeDatadir(dir string) {
	if dir == "" {
		return
	}
	if err := os.RemoveAll(dir); err != nil && s.Logf != nil {
		s.Logf("warning: remove trial datadir: %v", err)
	}
}

// envKey identifies what a running server cannot change without a restart
// besides its options: build and runtime environment.
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
func dynamicChanges(sp *space.Space, prev, cfg space.Config) ([]runner.Assignment, bool) {
	if envKey(prev) != envKey(cfg) {
		return nil, false
	}
	// A knob left out runs at the value the server gives it: its default,
	// for innodb_io_capacity_max one that follows innodb_io_capacity
	// (space.Space.Fill), so moving from io_capacity 1500 (maximum 3000)
	// to 800 with the maximum left out sets the maximum back to 2000.
	fullPrev, fullCfg := sp.Fill(prev), sp.Fill(cfg)
	var as []runner.Assignment
	for _, k := range sp.All() {
		a, inA := fullPrev[k.Name]
		b, inB := fullCfg[k.Name]
		if !inA {
			a = k.Default
		}
		if !inB {
			b = k.Default
		}
		if ca, err := k.Canonical(a); err == nil {
			if cb, err := k.Canonical(b); err == nil && ca == cb {
				continue
			}
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
		as = append(as, runner.Assignment{Var: sp.Variable(k.Name), Value: b, Quoted: numErr != nil})
	}
	for _, n := range cfg.Names() {
		if _, ok := sp.Knob(n); !ok {
			return nil, false
		}
	}
	return as, true
}

// Apply implements Target: SET GLOBAL on the kept server when Dynamic
// allows it, else restore the snapshot and start the server.
func (s *SandboxTarget) Apply(ctx context.Context, req Request) (Applied, error) {
	cfg, out := req.Trial.Params, req.Out
	bin := s.Default
	if name := cfg["server_build"]; name != "" {
		b, ok := s.Builds[name]
		if !ok {
			return Applied{}, &Refused{Failure: fmt.Sprintf("server_build %q: not among the builds of this run (--server-build)", name)}
		}
		bin = b
	}
	var srv *runner.Server
	var datadir string
	if as, ok := dynamicChanges(s.Space, s.liveCfg, cfg); s.Dynamic && s.live != nil && !s.live.Exited() && ok {
		req.Enter(measure.PhaseStarting)
		t0 := time.Now()
		if err := s.live.SetGlobals(ctx, as); err != nil {
			if ctx.Err() != nil {
				return Applied{}, ctx.Err()
			}
			_ = s.Close(ctx)
			return Applied{}, &Refused{Failure: "the server refused a dynamic change: " + err.Error()}
		}
		out.Phases["apply"] = time.Since(t0).Seconds()
		srv, s.live = s.live, nil
		datadir, s.liveDatadir = s.liveDatadir, ""
	} else {
		_ = s.Close(ctx)
		var err error
		if srv, datadir, err = s.start(ctx, req, bin); err != nil {
			return Applied{}, err
		}
		out.Restarted = true
	}
	out.ServerVersion = srv.Version
	release := func(measured bool, out *measure.Outcome) {
		if measured && s.Dynamic && !srv.Exited() {
			s.live, s.liveCfg, s.liveDatadir = srv, cfg.Clone(), datadir
			return
		}
		if !srv.Exited() {
			req.Enter(measure.PhaseStopping)
			t0 := time.Now()
			if err := srv.Stop(s.Deadlines.orDefault().Stop); err != nil && measured {
				// Measured fine; a slow or failed shutdown does not void
				// the numbers (the next trial restores the snapshot
				// anyway), but is recorded.
				out.ErrorLog = "shutdown: " + err.Error() + "\n" + runner.LogExcerpt(srv.ErrorLog)
			}
			if measured {
				out.Phases["stop"] = time.Since(t0).Seconds()
			}
		}
		s.removeDatadir(datadir)
	}
	return Applied{Server: srv, Release: release, KilledForMemory: s.killedForMemory}, nil
}

// start restores the snapshot into a fresh datadir and starts bin on it
// with the trial's options. A start the server refuses is *Refused; a
// full disk at maxDiskFull starts in a row stops the study.
func (s *SandboxTarget) start(ctx context.Context, req Request, bin runner.Binary) (*runner.Server, string, error) {
	out := req.Out
	dl := s.Deadlines.orDefault()
	req.Enter(measure.PhaseRestoring)
	t0 := time.Now()
	restore, startServer, waitLoad := s.restore, s.startServer, s.waitLoad
	if restore == nil {
		restore = s.Box.Restore
	}
	if startServer == nil {
		startServer = runner.Start
	}
	if waitLoad == nil {
		waitLoad = func(ctx context.Context, srv *runner.Server, limit time.Duration) (runner.PoolLoad, error) {
			return runner.WaitBufferPoolLoad(ctx, srv, 200*time.Millisecond, limit)
		}
	}
	cg := s.Box.Cgroup
	s.oomKills = cg.OOMKills()
	rctx, cancel := context.WithTimeout(ctx, dl.Restore)
	datadir, err := restore(rctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
			return nil, "", &Overran{Phase: "restore", Limit: dl.Restore, Detail: "copying the dataset snapshot"}
		}
		return nil, "", err
	}
	out.Phases["restore"] = time.Since(t0).Seconds()
	var opts bytes.Buffer
	if err := s.Space.WriteOptions(&opts, req.Trial.Params); err != nil {
		s.removeDatadir(datadir)
		return nil, "", err
	}
	opts.WriteString(runner.TrialPoolOptions(s.Preload))
	o := s.Box.Options(datadir, opts.String(), runner.NextLogName(req.Trial.Number), s.MaxConnections)
	o.Launch = req.Launch
	o.Launch.Cgroup = cg
	o.MaxStart = dl.Start
	req.Enter(measure.PhaseStarting)
	t0 = time.Now()
	srv, err := startServer(ctx, bin, o)
	var se *runner.StartError
	if errors.As(err, &se) {
		s.removeDatadir(datadir)
		if runner.DiskFull(se.Excerpt) {
			// A config may need more disk than the sandbox has (a 4G redo
			// log): that fails the trial. Several in a row mean the disk
			// itself is full: the machine's fault, so the study stops
			// (this trial is not counted) rather than teach the sampler
			// that every config fails.
			s.diskFull++
			if s.diskFull >= maxDiskFull {
				return nil, "", fmt.Errorf("the sandbox disk is full (No space left on device at %d server starts in a row; --workdir %s): free space and run the same command to resume: %w", s.diskFull, s.Box.Dir, se)
			}
			return nil, "", &Refused{Failure: "sandbox disk full: " + se.Error(), ErrorLog: se.Excerpt}
		}
		if s.killedForMemory() {
			return nil, "", outOfMemory(cg, "at start", se.Error(), se.Excerpt)
		}
		return nil, "", &Refused{Failure: se.Error(), ErrorLog: se.Excerpt, Cause: se.Diagnosis.Cause, Limit: se.Diagnosis.Limit, Fix: se.Diagnosis.Fix, Resource: se.Diagnosis.Resource, Start: true}
	}
	if err != nil {
		s.removeDatadir(datadir)
		return nil, "", err
	}
	out.Phases["start"] = time.Since(t0).Seconds()
	s.diskFull = 0
	if s.Preload {
		req.Enter(measure.PhasePreloading)
		load, err := waitLoad(ctx, srv, dl.Preload)
		out.Phases["preload"] = load.Waited.Seconds()
		if err != nil {
			_ = srv.Stop(dl.Stop)
			s.removeDatadir(datadir)
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			if errors.Is(err, runner.ErrPoolLoadTimeout) {
				return nil, "", &Overran{Phase: "preload", Limit: dl.Preload, Detail: "buffer pool load status " + strconv.Quote(load.Status)}
			}
			// A server that exited while loading (killed for memory, a
			// crash reading the pages) fails the trial with its log, and
			// the log's diagnosis (an out-of-memory kill is learned).
			excerpt := runner.LogExcerpt(srv.ErrorLog)
			if s.killedForMemory() {
				return nil, "", outOfMemory(cg, "while loading the buffer pool", "buffer pool load: "+err.Error(), excerpt)
			}
			d := runner.DiagnoseStartLog(excerpt)
			return nil, "", &Refused{Failure: "buffer pool load: " + err.Error(), ErrorLog: excerpt, Cause: d.Cause, Limit: d.Limit, Fix: d.Fix, Resource: d.Resource}
		}
		out.PoolLoad = "loaded"
		if !load.Loaded {
			out.PoolLoad = "cold: " + load.Status
			if s.Logf != nil {
				s.Logf("warning: trial %d starts cold: the server did not load the buffer pool page list (%s)", req.Trial.Number, load.Status)
			}
		}
	}
	return srv, datadir, nil
}

// StartDefaults starts the default build with no trial option (the
// server defaults) on a fresh copy of the snapshot, outside the host
// profile's limit only as a trial's server would be inside it, and stops
// it: nil when it started, a *Refused (runner.StartDiagnosis in it) when
// the server refused to start, another error for sandbox trouble. It
// serves the engine's blame rule (BaselineStarter) after a trial's start
// failed; a server kept running between trials is stopped first.
func (s *SandboxTarget) StartDefaults(ctx context.Context) error {
	if s.live != nil {
		_ = s.live.Stop(s.Deadlines.orDefault().Stop)
		s.live = nil
		s.removeDatadir(s.liveDatadir)
		s.liveDatadir = ""
	}
	out := measure.Outcome{Phases: map[string]float64{}}
	req := Request{Trial: search.Trial{Number: -1, Params: space.Config{}}, Out: &out, Enter: func(string) {}}
	saved := s.Preload
	s.Preload = false // whether it starts, not whether it loads
	srv, datadir, err := s.start(ctx, req, s.Default)
	s.Preload = saved
	if err != nil {
		return err
	}
	_ = srv.Stop(s.Deadlines.orDefault().Stop)
	s.removeDatadir(datadir)
	return nil
}

// outOfMemory is the failure of a server the kernel killed at the host
// profile's memory limit (when: "at start", ...): the configuration needs
// more memory than the profile gives, which the study learns
// (runner.CauseOutOfMemory).
func outOfMemory(cg *runner.Cgroup, when, failure, excerpt string) *Refused {
	return &Refused{Failure: fmt.Sprintf("out of memory: the kernel killed the server %s at the host profile's %s (%s)", when, cg, failure),
		ErrorLog: excerpt, Cause: runner.CauseOutOfMemory, ProfileKill: true}
}

// killedForMemory reports whether the kernel killed a process of the
// host profile's cgroup since the current trial's restore began.
func (s *SandboxTarget) killedForMemory() bool {
	return s.Box.Cgroup != nil && s.Box.Cgroup.OOMKills() > s.oomKills
}
