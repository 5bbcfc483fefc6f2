package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// trialRunner measures one trial on the sandbox: restore the snapshot,
// start the server with the trial's knobs, run the benchmark through
// warm-up and measurement, stop, score.
type trialRunner struct {
	sb      *runner.Sandbox
	meas    measurer
	sp      *space.Space
	maxConn int
	logf    func(string, ...any)
}

// stopTimeout bounds a clean shutdown before SIGKILL; a 4G pool with many
// dirty pages needs about 2 s here (mariadb-on-this-machine.md §2.4).
const stopTimeout = 2 * time.Minute

// run implements search.Objective.
func (r *trialRunner) run(ctx context.Context, t search.Trial) (search.Outcome, error) {
	out := search.Outcome{Phases: map[string]float64{}}
	phase := func(name string, since time.Time) { out.Phases[name] = time.Since(since).Seconds() }

	t0 := time.Now()
	datadir, err := r.sb.Restore(ctx)
	if err != nil {
		return out, err
	}
	phase("restore", t0)

	var opts bytes.Buffer
	if err := r.sp.WriteOptions(&opts, t.Params); err != nil {
		return out, err
	}
	t0 = time.Now()
	srv, err := runner.Start(ctx, r.sb.Server, r.sb.Options(datadir, opts.String(), runner.NextLogName(t.Number), r.maxConn))
	var se *runner.StartError
	if errors.As(err, &se) {
		out.Failure = se.Error()
		out.ErrorLog = se.Excerpt
		return out, nil
	}
	if err != nil {
		return out, err
	}
	phase("start", t0)
	out.Restarted = true
	out.ServerVersion = srv.Version
	stopped := false
	defer func() {
		if !stopped {
			_ = srv.Stop(stopTimeout)
		}
	}()

	berr := r.meas.measure(ctx, srv, &out)
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	var ns errNotScored
	if errors.As(berr, &ns) {
		out.Failure = ns.Error()
		berr = nil
	}
	if berr != nil {
		if srv.Exited() {
			out.Failure = "server crashed during the benchmark: " + firstNonEmpty(runnerErrorLine(srv.ErrorLog), berr.Error())
			out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
			stopped = true
			return out, nil
		}
		out.Failure = berr.Error()
		var be *runner.BenchError
		if errors.As(berr, &be) {
			out.ErrorLog = "benchmark output:\n" + be.Output + "\n\nserver error log:\n" + runner.LogExcerpt(srv.ErrorLog)
		}
		return out, nil
	}
	t0 = time.Now()
	stopped = true
	if err := srv.Stop(stopTimeout); err != nil {
		// Measured fine; a slow or failed shutdown does not void the numbers
		// (the next trial restores the snapshot anyway), but is recorded.
		out.ErrorLog = "shutdown: " + err.Error() + "\n" + runner.LogExcerpt(srv.ErrorLog)
	}
	phase("stop", t0)

	return out, nil
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
