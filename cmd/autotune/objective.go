package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
	sb               *runner.Sandbox
	bench            runner.Sysbench
	sp               *space.Space
	warmup, duration time.Duration
	lambda           float64
	maxConn          int
	logf             func(string, ...any)
	diskFull         int // consecutive server starts that failed on a full disk
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

// run implements search.Objective.
func (r *trialRunner) run(ctx context.Context, t search.Trial) (search.Outcome, error) {
	out := search.Outcome{Phases: map[string]float64{}}
	phase := func(name string, since time.Time) { out.Phases[name] = time.Since(since).Seconds() }

	enter := func(p string) {
		if r.onPhase != nil {
			r.onPhase(t, p)
		}
	}
	enter(phaseRestoring)
	t0 := time.Now()
	datadir, err := r.sb.Restore(ctx)
	if err != nil {
		return out, err
	}
	// The trial datadir is deleted when the trial ends, so the disk holds
	// one copy of the dataset between trials.
	defer func() {
		if err := os.RemoveAll(datadir); err != nil {
			r.logf("warning: remove trial datadir: %v", err)
		}
	}()
	phase("restore", t0)

	var opts bytes.Buffer
	if err := r.sp.WriteOptions(&opts, t.Params); err != nil {
		return out, err
	}
	enter(phaseStarting)
	t0 = time.Now()
	srv, err := runner.Start(ctx, r.sb.Server, r.sb.Options(datadir, opts.String(), runner.NextLogName(t.Number), r.maxConn))
	var se *runner.StartError
	if errors.As(err, &se) {
		if runner.DiskFull(se.Excerpt) {
			// A config may need more disk than the sandbox has (a 4G
			// redo log): that fails the trial. Several in a row mean the
			// disk itself is full: the machine's fault, so the study stops
			// (this trial is not counted) rather than teach the sampler
			// that every config fails.
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
	out.Restarted = true
	out.ServerVersion = srv.Version
	stopped := false
	defer func() {
		if !stopped {
			_ = srv.Stop(stopTimeout)
		}
	}()

	warm := r.warmup.Seconds()
	end := (r.warmup + r.duration).Seconds()
	measuring := warm <= 0
	if measuring {
		enter(phaseMeasuring)
	} else {
		enter(phaseWarmingUp)
	}
	t0 = time.Now()
	// sysbench sometimes ends a run before printing its last interval
	// line, so it runs one second longer than the window and the samples
	// after the window are dropped.
	res, berr := r.bench.Run(ctx, srv, r.warmup+r.duration+time.Second, func(iv runner.Interval) {
		if iv.Time > end {
			return
		}
		s := search.Sample{T: iv.Time, Warmup: iv.Time <= warm, TPS: iv.TPS, QPS: iv.QPS,
			Reads: iv.Reads, Writes: iv.Writes, Other: iv.Other, LatPct: iv.LatPct,
			ErrPS: iv.ErrPS, ReconnPS: iv.ReconnPS}
		if iv.LatMS != nil {
			s.LatMS = *iv.LatMS
		}
		out.Samples = append(out.Samples, s)
		if !s.Warmup && !measuring {
			measuring = true
			enter(phaseMeasuring)
		}
		if r.onSample != nil {
			r.onSample(t, s)
		}
	})
	elapsed := time.Since(t0).Seconds()
	out.Phases["warmup"] = min(elapsed, warm)
	out.Phases["measure"] = max(0, elapsed-warm)
	if res.Summary != nil {
		if b, err := json.Marshal(res.Summary); err == nil {
			out.Summary = string(b)
		}
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if berr != nil {
		if srv.ExitedWithin(2 * time.Second) {
			out.Failure = "server crashed during the benchmark: " + firstNonEmpty(runnerErrorLine(srv.ErrorLog), berr.Error())
			out.ErrorLog = runner.LogExcerpt(srv.ErrorLog)
			stopped = true
			return out, nil
		}
		out.Failure = berr.Error()
		var be *runner.BenchError
		if errors.As(berr, &be) {
			out.ErrorLog = "sysbench output:\n" + be.Output + "\n\nserver error log:\n" + runner.LogExcerpt(srv.ErrorLog)
		}
		return out, nil
	}

	enter(phaseStopping)
	t0 = time.Now()
	stopped = true
	if err := srv.Stop(stopTimeout); err != nil {
		// Measured fine; a slow or failed shutdown does not void the numbers
		// (the next trial restores the snapshot anyway), but is recorded.
		out.ErrorLog = "shutdown: " + err.Error() + "\n" + runner.LogExcerpt(srv.ErrorLog)
	}
	phase("stop", t0)

	score, mean, sd, p95, err := search.Score(out.Samples, r.lambda)
	if err != nil {
		out.Failure = err.Error()
		return out, nil
	}
	out.Score, out.MeanTPS, out.StdTPS, out.P95MS = score, mean, sd, p95
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
