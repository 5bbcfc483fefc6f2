package trial

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
)

// Measurement says how a running server is measured: for each thread level
// one benchmark run of WarmupCap + Duration, stopped as soon as the
// measurement window (Duration after the detected warm-up) is complete.
type Measurement struct {
	// Levels are the client thread counts, measured in order.
	Levels []int
	// WarmupCap is the longest warm-up: the window starts once throughput
	// is steady (Steady), at the latest after WarmupCap (whole seconds).
	WarmupCap time.Duration
	// Duration is the measurement window (whole seconds).
	Duration time.Duration
	// Steady detects the end of the warm-up.
	Steady search.SteadyRule
	// Score scores the window.
	Score search.ScoreRule
	// PollEvery is the status/CPU/history-list sampling interval (1 s
	// when zero).
	PollEvery time.Duration

	run         runner.BenchRun // this trial's build, placement, connection
	onSample    func(search.Sample)
	onMeasuring func()
}

// RunSlack is added to the benchmark's run length: sysbench does not always
// print the interval line of its last second (seen under load: --time=4
// gave 3 lines), and the run is stopped once the window is complete anyway.
const RunSlack = 2 * time.Second

// errNotScored marks a run that completed but could not be scored (too few
// samples, no latency for a p95 limit): the trial fails with that reason.
type errNotScored struct{ error }

// measure runs every thread level on srv in order and fills out.Samples,
// out.Levels, out.Summary (the first level's report) and the warmup and
// measure phases. It returns ctx.Err() when cancelled, a *RestartedError
// when the server restarted during a run, the benchmark's error when a run
// failed, and errNotScored when a run could not be scored.
func (m Measurement) measure(ctx context.Context, b Benchmark, srv *runner.Server, out *search.Outcome) error {
	var warm, total float64
	for i, threads := range m.Levels {
		t0 := time.Now()
		lvl, samples, res, err := m.level(ctx, b, srv, threads)
		total += time.Since(t0).Seconds()
		out.Samples = append(out.Samples, samples...)
		if i == 0 && res.Summary != nil {
			if js, jerr := json.Marshal(res.Summary); jerr == nil {
				out.Summary = string(js)
			}
		}
		if err != nil {
			return err
		}
		warm += lvl.WarmupS
		out.Levels = append(out.Levels, lvl)
	}
	out.Phases["warmup"] = warm
	out.Phases["measure"] = max(0, total-warm)
	out.Combine(m.Score.Goal)
	return nil
}

// restartDuring returns a *RestartedError when two successive polls of a
// run (those that read Uptime) come from different server lifetimes
// (runner.SameLifetime), else nil.
func restartDuring(polls []runner.Poll) *RestartedError {
	var prev *runner.Poll
	for i := range polls {
		if _, ok := polls[i].Status.Counter("Uptime"); !ok {
			continue
		}
		if prev != nil {
			if same, why := runner.SameLifetime(*prev, polls[i]); !same {
				return &RestartedError{Why: why}
			}
		}
		prev = &polls[i]
	}
	return nil
}

// sampleOf turns a benchmark interval into a sample of the given level.
func sampleOf(iv runner.Interval, threads int) search.Sample {
	s := search.Sample{T: iv.Time, TPS: iv.TPS, QPS: iv.QPS, Reads: iv.Reads, Writes: iv.Writes, Other: iv.Other,
		LatPct: iv.LatPct, ErrPS: iv.ErrPS, ReconnPS: iv.ReconnPS, Threads: threads}
	if iv.LatMS != nil {
		s.LatMS = *iv.LatMS
	} else {
		s.LatPct = 0
	}
	return s
}

// level measures one thread level. Warm-up detection (m.Steady) runs on
// the per-second tps while the benchmark runs: once it has decided and
// Duration more seconds have arrived, the benchmark is stopped. The window
// is the Duration seconds right after the detected warm-up (or after the
// cap when no steady start was found before it).
func (m Measurement) level(ctx context.Context, b Benchmark, srv *runner.Server, threads int) (search.Level, []search.Sample, runner.BenchResult, error) {
	lvl := search.Level{Threads: threads}
	capS, durS := int(m.WarmupCap/time.Second), int(m.Duration/time.Second)
	every := m.PollEvery
	if every <= 0 {
		every = time.Second
	}
	poller, perr := runner.StartPoller(ctx, srv, every)
	if perr == nil {
		lvl.HLLSource = poller.Source
	}
	bctx, stopBench := context.WithCancel(ctx)
	defer stopBench()
	var (
		samples []search.Sample
		tps     []float64
		recv    []time.Time
		warm    search.Warmup
		stopped bool
	)
	start := time.Now()
	run := m.run
	run.Threads, run.Duration = threads, m.WarmupCap+m.Duration+RunSlack
	res, berr := b.Run(bctx, srv, run, func(iv runner.Interval) {
		if stopped {
			return
		}
		s := sampleOf(iv, threads)
		if poller != nil {
			if p, ok := poller.Latest(); ok && p.HLL != nil {
				v := *p.HLL
				s.HLL = &v
			}
		}
		samples = append(samples, s)
		tps = append(tps, iv.TPS)
		recv = append(recv, time.Now())
		if !warm.Decided {
			warm = m.Steady.Detect(tps, capS, false)
			if warm.Decided && m.onMeasuring != nil {
				m.onMeasuring()
			}
		}
		if m.onSample != nil {
			s.Warmup = !warm.Decided
			m.onSample(s)
		}
		if warm.Decided && len(samples) >= warm.Seconds+durS {
			stopped = true
			stopBench()
		}
	})
	var polls []runner.Poll
	if poller != nil {
		polls = poller.Stop(context.WithoutCancel(ctx))
	}
	if ctx.Err() != nil {
		return lvl, samples, res, ctx.Err()
	}
	// A server that restarted while the benchmark ran (an existing server
	// restarted by someone else; a sandbox server cannot restart without
	// exiting, which is a crash) voids the run, failed or not.
	if re := restartDuring(polls); re != nil {
		return lvl, samples, res, re
	}
	if berr != nil && !(stopped && errors.Is(berr, context.Canceled)) {
		return lvl, samples, res, berr
	}
	if !warm.Decided {
		warm = m.Steady.Detect(tps, capS, true)
	}
	w := min(warm.Seconds, len(samples))
	end := min(len(samples), w+durS)
	samples = samples[:end]
	for i := range samples[:w] {
		samples[i].Warmup = true
	}
	lvl.WarmupS, lvl.WarmupCapped = float64(w), warm.Capped
	ev, err := m.Score.Evaluate(samples[w:])
	if err != nil {
		return lvl, samples, res, errNotScored{fmt.Errorf("%d threads: %w", threads, err)}
	}
	lvl.Eval = ev
	winStart := start
	if w > 0 {
		winStart = recv[w-1]
	}
	lvl.Metrics = search.Metrics(runner.WindowMetrics(polls, winStart, recv[end-1]))
	return lvl, samples, res, nil
}
