package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
)

// benchRunner runs one benchmark at one thread count, calling onSample for
// each interval line as it arrives. runner.Sysbench and runner.CommandBench
// (--bench-cmd) implement it.
type benchRunner interface {
	RunThreads(ctx context.Context, srv *runner.Server, threads int, d time.Duration, onSample func(runner.Interval)) (runner.SysbenchOutput, error)
}

// measurer measures a running server: for each thread level one benchmark
// run of warmupCap + duration, stopped as soon as the measurement window
// (duration seconds after the detected warm-up) is complete.
type measurer struct {
	bench     benchRunner
	levels    []int
	warmupCap time.Duration
	duration  time.Duration
	steady    search.SteadyRule
	rule      search.ScoreRule
	// pollEvery is the status/CPU/history-list sampling interval (1 s).
	pollEvery time.Duration
	// onSample and onMeasuring, when set, report progress: each
	// per-second sample, and the end of the detected warm-up.
	onSample    func(search.Sample)
	onMeasuring func()
}

// runSlack is added to the benchmark's run length: sysbench does not
// always print the interval line of its last second (seen here under load:
// --time=4 gave 3 lines), and the run is stopped once the window is
// complete anyway.
const runSlack = 2 * time.Second

// errNotScored marks a run that completed but could not be scored (too few
// samples, no latency for --max-p95): the trial fails with that reason.
type errNotScored struct{ error }

// measure runs every thread level on srv in order and fills out.Samples,
// out.Levels, out.Summary (the first level's report) and the warmup and
// measure phases. It returns ctx.Err() when cancelled, the benchmark's
// error (*runner.BenchError or a start error) when a run failed, and
// errNotScored when a run could not be scored.
func (m measurer) measure(ctx context.Context, srv *runner.Server, out *search.Outcome) error {
	var warm, total float64
	for i, threads := range m.levels {
		t0 := time.Now()
		lvl, samples, res, err := m.level(ctx, srv, threads)
		total += time.Since(t0).Seconds()
		out.Samples = append(out.Samples, samples...)
		if i == 0 && res.Summary != nil {
			if b, jerr := jsonText(res.Summary); jerr == nil {
				out.Summary = b
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
	out.Combine(m.rule.Goal)
	return nil
}

// level measures one thread level. Warm-up detection (m.steady) runs on
// the per-second tps while the benchmark runs: once it has decided and
// duration more seconds have arrived, the benchmark is stopped. The window
// is the duration seconds right after the detected warm-up (or after the
// cap when no steady start was found before it).
func (m measurer) level(ctx context.Context, srv *runner.Server, threads int) (search.Level, []search.Sample, runner.SysbenchOutput, error) {
	lvl := search.Level{Threads: threads}
	capS, durS := int(m.warmupCap/time.Second), int(m.duration/time.Second)
	poller, perr := runner.StartPoller(ctx, srv, m.pollEvery)
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
	res, berr := m.bench.RunThreads(bctx, srv, threads, m.warmupCap+m.duration+runSlack, func(iv runner.Interval) {
		if stopped {
			return
		}
		s := search.Sample{T: iv.Time, TPS: iv.TPS, QPS: iv.QPS, Reads: iv.Reads, Writes: iv.Writes, Other: iv.Other,
			LatPct: iv.LatPct, ErrPS: iv.ErrPS, ReconnPS: iv.ReconnPS, Threads: threads}
		if iv.LatMS != nil {
			s.LatMS = *iv.LatMS
		} else {
			s.LatPct = 0
		}
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
			warm = m.steady.Detect(tps, capS, false)
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
	if berr != nil && !(stopped && errors.Is(berr, context.Canceled)) {
		return lvl, samples, res, berr
	}
	if !warm.Decided {
		warm = m.steady.Detect(tps, capS, true)
	}
	w := min(warm.Seconds, len(samples))
	end := min(len(samples), w+durS)
	samples = samples[:end]
	for i := range samples[:w] {
		samples[i].Warmup = true
	}
	lvl.WarmupS, lvl.WarmupCapped = float64(w), warm.Capped
	ev, err := m.rule.Evaluate(samples[w:])
	if err != nil {
		return lvl, samples, res, errNotScored{fmt.Errorf("%d threads: %w", threads, err)}
	}
	lvl.Eval = ev
	winStart := start
	if w > 0 {
		winStart = recv[w-1]
	}
	metrics := runner.WindowMetrics(polls, winStart, recv[end-1])
	lvl.Metrics = search.Metrics(metrics)
	return lvl, samples, res, nil
}
