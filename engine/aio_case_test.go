package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// aioCase is the case lifecycle-aio-context-limits, unchanged (a copy of
// ../shared/cases/lifecycle-aio-context-limits in runner's testdata).
var aioCase = filepath.Join("..", "runner", "testdata", "lifecycle-aio-context-limits")

// caseHostAIO reads the case's host-state.txt: fs.aio-max-nr and
// fs.aio-nr as `cat` printed them.
func caseHostAIO(t *testing.T) runner.HostAIO {
	b, err := os.ReadFile(filepath.Join(aioCase, "host-state.txt"))
	if err != nil {
		t.Fatal(err)
	}
	val := func(file string) int64 {
		m := regexp.MustCompile(`(?m)^\$ cat /proc/sys/fs/` + file + `\n(\d+)`).FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("host-state.txt: no %s", file)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	max, used := val("aio-max-nr"), val("aio-nr")
	return runner.HostAIO{MaxNr: max, Free: max - used}
}

// refusedStart is the Refused a sandbox returns for a start whose error
// log is log.
func refusedStart(log string) *Refused {
	d := runner.DiagnoseStartLog(log)
	se := &runner.StartError{Reason: "server exited (exit status 1)", Excerpt: log, Diagnosis: d}
	return &Refused{Failure: se.Error(), ErrorLog: log, Cause: d.Cause, Limit: d.Limit, Fix: d.Fix, Resource: d.Resource, Start: true}
}

// baselineTarget is a fakeTarget that can start the server defaults
// (BaselineStarter): defaults is what StartDefaults returns.
type baselineTarget struct {
	fakeTarget
	defaults error
	asked    int
}

func (b *baselineTarget) StartDefaults(context.Context) error { b.asked++; return b.defaults }

// lifecycle-aio-context-limits, rules 1 and 2: with the case's host (256
// events free), every one of its four AIO start failures is the host's,
// the server defaults' included: the trial is not counted and nothing is
// learned. The pre-flight finds a libaio server's request does not fit
// before anything starts; an io_uring server (no events) is started, and
// its failure is the host's because the server defaults do not start
// either. A configuration whose own I/O threads ask for more than the
// host has, while the defaults' fit, is rejected before start (its fault).
func TestAIOStartFailuresOfTheCaseAreTheHosts(t *testing.T) {
	host := caseHostAIO(t)
	if host.Free != 256 {
		t.Fatalf("host-state.txt: %d events free, the case says 256", host.Free)
	}
	for _, file := range []string{"mysql57-error.log", "mysql57-hint.log", "mysql80-init-error.log", "mariadb-io_uring.txt"} {
		b, err := os.ReadFile(filepath.Join(aioCase, file))
		if err != nil {
			t.Fatal(err)
		}
		ref := refusedStart(string(b))
		if ref.Cause != runner.CauseHostLimit {
			t.Errorf("%s: diagnosed %q (%s), want a host limit", file, ref.Cause, ref.Failure)
		}
		for _, backend := range []string{runner.AIOLibaio, runner.AIOIOUring} {
			flavor := runner.MySQL
			if strings.HasPrefix(file, "mariadb") {
				flavor = runner.MariaDB
			}
			ft := &baselineTarget{defaults: ref}
			ft.apply = func(space.Config) (Applied, error) { return Applied{}, ref }
			e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20,
				HostAIO: func() runner.HostAIO { return host },
				AIONeed: func(cfg space.Config) runner.AIONeed { return needOf(flavor, backend, cfg) }}
			out, err := e.Run(context.Background(), search.Trial{Number: 2, Params: space.Config{}})
			var hf *HostFaultError
			if !errors.As(err, &hf) || out.Failure != "" {
				t.Errorf("%s on %s: err %v, failure %q: want the host's fault, nothing learned", file, backend, err, out.Failure)
				continue
			}
			if backend == runner.AIOLibaio && (!hf.Preflight || ft.applies != 0) {
				t.Errorf("%s on libaio: %d starts, preflight %v: the defaults' events do not fit, nothing should start", file, ft.applies, hf.Preflight)
			}
			if backend == runner.AIOIOUring && (ft.applies != 1 || ft.asked != 1) {
				t.Errorf("%s on io_uring: %d starts, %d baseline starts; want one of each", file, ft.applies, ft.asked)
			}
			if !strings.Contains(hf.Error(), hf.Fix) || hf.Fix == "" {
				t.Errorf("%s on %s: %v names no fix", file, backend, hf)
			}
		}
	}
	// Plenty of events left, but fewer than 64+64 MySQL I/O threads ask
	// for (33025) while the defaults' 2305 fit: the configuration's
	// fault, before anything starts.
	ft := &baselineTarget{}
	ft.apply = func(space.Config) (Applied, error) {
		t.Error("started a configuration the host cannot serve")
		return Applied{}, nil
	}
	e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20,
		HostAIO: func() runner.HostAIO { return runner.HostAIO{MaxNr: 65536, Free: 20000} },
		AIONeed: func(cfg space.Config) runner.AIONeed { return needOf(runner.MySQL, runner.AIOLibaio, cfg) }}
	out, err := e.Run(context.Background(), search.Trial{Number: 3, Params: space.Config{"innodb_read_io_threads": "64", "innodb_write_io_threads": "64"}})
	if err != nil || !out.Rejected || !strings.Contains(out.Failure, "33025") || !strings.Contains(out.Failure, "2305 fit") {
		t.Errorf("64+64 threads, 20000 events free: err %v, rejected %v, failure %q; want rejected before start as the configuration's", err, out.Rejected, out.Failure)
	}
}

// needOf is what study's run.hostAIO gives the engine: the events of
// backend for cfg's I/O threads, 4 each by default.
func needOf(f runner.Flavor, backend string, cfg space.Config) runner.AIONeed {
	th := func(n string) int {
		if v, err := strconv.Atoi(cfg[n]); err == nil {
			return v
		}
		return 4
	}
	return runner.AIONeedOf(f, backend, th("innodb_read_io_threads"), th("innodb_write_io_threads"))
}

// The blame rule after a start failed: when the server defaults start,
// the configuration is at fault (the trial fails, the study goes on),
// whatever the log blamed; when they do not, the host is.
func TestStartFailureBlamedByTheDefaultsStart(t *testing.T) {
	log := "2026-12-06 10:00:01 0 [ERROR] InnoDB: io_setup() failed with EAGAIN after 5 attempts.\n"
	for _, tc := range []struct {
		defaults error
		host     bool
	}{
		{nil, false},
		{refusedStart(log), true},
	} {
		ft := &baselineTarget{defaults: tc.defaults}
		ft.apply = func(space.Config) (Applied, error) { return Applied{}, refusedStart(log) }
		e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20}
		out, err := e.Run(context.Background(), search.Trial{Number: 3, Params: space.Config{"innodb_read_io_threads": "32"}})
		var hf *HostFaultError
		if got := errors.As(err, &hf); got != tc.host || (!tc.host && !strings.Contains(out.Failure, "io_setup")) {
			t.Errorf("defaults start %v: host fault %v (err %v, failure %q), want %v", tc.defaults == nil, got, err, out.Failure, tc.host)
		}
	}
}

// A host fault is retried with a backoff for HostFaultWait: a host that
// is fixed within it runs the trial (one more start); one that is not
// pauses the study with the time waited in the error.
func TestHostFaultRetriedThenPaused(t *testing.T) {
	log := "2026-12-06 10:00:01 0 [ERROR] InnoDB: io_setup() failed with EAGAIN after 5 attempts.\n"
	for _, fixedAfter := range []int{1, 1000} {
		ft := &fakeTarget{}
		ft.apply = func(space.Config) (Applied, error) {
			if ft.applies > fixedAfter {
				return Applied{}, &Refused{Failure: "a later refusal"}
			}
			return Applied{}, refusedStart(log)
		}
		var logged []string
		e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20, HostFaultWait: 50 * time.Millisecond, faultBackoff: 10 * time.Millisecond,
			Logf: func(f string, a ...any) { logged = append(logged, f) }}
		out, err := e.Run(context.Background(), search.Trial{Number: 3, Params: space.Config{}})
		var hf *HostFaultError
		switch {
		case fixedAfter == 1 && (err != nil || out.Failure != "a later refusal" || ft.applies != 2 || len(logged) != 1):
			t.Errorf("fixed after one start: err %v, failure %q, %d starts, %d retries logged; want the trial run on the second start", err, out.Failure, ft.applies, len(logged))
		case fixedAfter > 1 && (!errors.As(err, &hf) || hf.Waited <= 0 || !strings.Contains(err.Error(), "retried for") || ft.applies < 3):
			t.Errorf("never fixed: err %v after %d starts; want a HostFaultError after retries", err, ft.applies)
		}
	}
}

// lifecycle-aio-context-limits, rule 5: a server that reports another
// AIO backend than the study's (MariaDB fell back from io_uring to libaio
// when the kernel refused io_uring) ran on another host: its trial is not
// measured, the host is at fault and the error quotes the fallback. A
// configuration that turns native AIO off runs simulated, as it should.
func TestOtherAIOBackendIsAHostFault(t *testing.T) {
	fallback := "io_uring_queue_init() failed with EPERM: sysctl kernel.io_uring_disabled has the value 2; falling back to libaio"
	for _, tc := range []struct {
		cfg     space.Config
		backend string
		host    bool
	}{
		{space.Config{}, runner.AIOLibaio, true},
		{space.Config{}, runner.AIOIOUring, false},
		{space.Config{"innodb_use_native_aio": "OFF"}, runner.AIOSimulated, false},
	} {
		released := false
		ft := &fakeTarget{apply: func(space.Config) (Applied, error) {
			srv := &runner.Server{AIO: tc.backend}
			if tc.backend == runner.AIOLibaio {
				srv.AIOFallback = fallback
			}
			return Applied{Server: srv, Release: func(bool, *measure.Outcome) { released = true }}, nil
		}}
		e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20, AIOBackend: runner.AIOIOUring}
		if !tc.host {
			// The rest of the trial is not this test's: stop at the read-back.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := e.applyOnce(ctx, search.Trial{Number: 1, Params: tc.cfg}, runner.Launch{}, &measure.Outcome{Phases: map[string]float64{}}, func(string) {})
			if err != nil {
				t.Errorf("%v on %s: %v, want it measured", tc.cfg, tc.backend, err)
			}
			continue
		}
		out := measure.Outcome{Phases: map[string]float64{}}
		_, err := e.applyOnce(context.Background(), search.Trial{Number: 1, Params: tc.cfg}, runner.Launch{}, &out, func(string) {})
		var hf *HostFaultError
		if !errors.As(err, &hf) || !strings.Contains(err.Error(), "kernel.io_uring_disabled") || !released || out.AIOBackend != runner.AIOLibaio {
			t.Errorf("libaio where the study has io_uring: err %v, released %v, recorded %q; want a host fault quoting the fallback", err, released, out.AIOBackend)
		}
	}
}
