package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
)

// Protocol says how a running server is measured: for each thread level
// one benchmark run of up to WarmupMax + Duration, stopped as soon as the
// measurement window (Duration after the detected warm-up) is complete,
// or earlier when the trial is pruned.
type Protocol struct {
	// Levels are the client thread counts, measured in order.
	Levels []int
	// WarmupCap is the expected longest warm-up: the window starts once
	// throughput is steady (Steady). When the series still rises or falls
	// at WarmupCap, the run is extended up to WarmupMax looking for a
	// steady start; when none comes, the window is the Duration seconds
	// after WarmupMax and the level is marked not steady (WarmupCapped).
	// Whole seconds.
	WarmupCap time.Duration
	// WarmupMax is the longest warm-up (whole seconds; WarmupCap when
	// smaller).
	WarmupMax time.Duration
	// Prune stops a trial early (search.Trial.PruneBelow) when it is
	// clearly worse than the incumbent (see PruneRule).
	Prune PruneRule
	// Deadlines bound the benchmark run (BenchGrace beyond its length).
	Deadlines Deadlines
	// Duration is the measurement window (whole seconds).
	Duration time.Duration
	// Steady detects the end of the warm-up.
	Steady measure.SteadyRule
	// Score scores the window.
	Score measure.ScoreRule
	// PollEvery is the status/CPU/history-list sampling interval (1 s
	// when zero).
	PollEvery time.Duration

	run         runner.BenchRun // this trial's build, placement, connection
	onSample    func(measure.Sample)
	onMeasuring func()
	pruneBelow  float64 // this trial's pruning threshold (0: none)
}

// PruneRule says when a trial is stopped early: after its warm-up, once
// at least Blocks blocks of the steady rule's block length are complete,
// when the mean of the goal's value (tps or qps) over every complete
// block and each of the last Blocks block means are below the trial's
// threshold (search.Trial.PruneBelow, which the study sets at least 20 %
// below the incumbent, further when the measured noise is larger). A
// pruned trial ends in state search.Pruned. Never during warm-up, never
// for the p95 objective, never for several thread levels.
type PruneRule struct {
	// Off disables pruning.
	Off bool
	// Blocks is the least number of complete blocks (>= 2; 0 means 3).
	Blocks int
}

// errPruned marks a level stopped by the prune rule.
var errPruned = errors.New("pruned")

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
func (m Protocol) measure(ctx context.Context, b Benchmark, srv *runner.Server, out *measure.Outcome) error {
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
		if errors.Is(err, errPruned) {
			warm += lvl.WarmupS
			out.Levels = append(out.Levels, lvl)
			out.Phases["warmup"] = warm
			out.Phases["measure"] = max(0, total-warm)
			out.Combine(m.Score.Goal)
			out.Pruned = true
			return nil
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
func sampleOf(iv runner.Interval, threads int) measure.Sample {
	s := measure.Sample{T: iv.Time, TPS: iv.TPS, QPS: iv.QPS, Reads: iv.Reads, Writes: iv.Writes, Other: iv.Other,
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
// is the Duration seconds right after the detected warm-up (or after
// WarmupMax when no steady start was found before it). A run still going
// at its length plus Deadlines.BenchGrace is killed (*Overran). With a
// pruning threshold the level stops early (errPruned, lvl scored on its
// partial window) when PruneRule says so.
func (m Protocol) level(ctx context.Context, b Benchmark, srv *runner.Server, threads int) (measure.Level, []measure.Sample, runner.BenchResult, error) {
	lvl := measure.Level{Threads: threads}
	maxWarm := max(m.WarmupMax, m.WarmupCap)
	maxS, durS := int(maxWarm/time.Second), int(m.Duration/time.Second)
	every := m.PollEvery
	if every <= 0 {
		every = time.Second
	}
	poller, perr := runner.StartPoller(ctx, srv, every)
	if perr == nil {
		lvl.HLLSource = poller.Source
	}
	run := m.run
	run.Threads, run.Duration = threads, maxWarm+m.Duration+RunSlack
	limit := run.Duration + m.Deadlines.orDefault().BenchGrace
	bctx, stopBench := context.WithTimeout(ctx, limit)
	defer stopBench()
	var (
		samples []measure.Sample
		tps     []float64
		recv    []time.Time
		warm    measure.Warmup
		stopped bool
		pruned  bool
	)
	block := max(1, m.Steady.Block)
	pruneBlocks := m.Prune.Blocks
	if pruneBlocks < 2 {
		pruneBlocks = 3
	}
	canPrune := !m.Prune.Off && m.pruneBelow > 0 && m.Score.Goal != measure.GoalP95 && len(m.Levels) == 1
	start := time.Now()
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
			warm = m.Steady.Detect(tps, maxS, false)
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
			return
		}
		if canPrune && warm.Decided && shouldPrune(goalValues(m.Score.Goal, samples[warm.Seconds:]), block, pruneBlocks, m.pruneBelow) {
			stopped, pruned = true, true
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
	if !stopped && errors.Is(bctx.Err(), context.DeadlineExceeded) {
		return lvl, samples, res, &Overran{Phase: "benchmark", Limit: m.Deadlines.orDefault().BenchGrace,
			Detail: fmt.Sprintf("asked for %s, %d per-second samples arrived", run.Duration.Round(time.Second), len(samples))}
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
		warm = m.Steady.Detect(tps, maxS, true)
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
	lvl.Metrics = measure.Metrics(runner.WindowMetrics(polls, winStart, recv[end-1]))
	if pruned {
		return lvl, samples, res, errPruned
	}
	return lvl, samples, res, nil
}

// goalValues returns the per-second values of the goal (qps for GoalQPS,
// tps otherwise).
func goalValues(goal measure.Goal, ss []measure.Sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.TPS
		if goal == measure.GoalQPS {
			out[i] = s.QPS
		}
	}
	return out
}

// shouldPrune applies PruneRule to the per-second values v after the
// warm-up: at least blocks complete blocks of block seconds, the mean of
// every complete block below threshold and each of the last blocks block
// means below it too.
func shouldPrune(v []float64, block, blocks int, threshold float64) bool {
	n := len(v) / block
	if n < blocks || !(threshold > 0) {
		return false
	}
	sum := 0.0
	for i := 0; i < n*block; i++ {
		sum += v[i]
	}
	if sum/float64(n*block) >= threshold {
		return false
	}
	for b := n - blocks; b < n; b++ {
		s := 0.0
		for _, x := range v[b*block : (b+1)*block] {
			s += x
		}
		if s/float64(block) >= threshold {
			return false
		}
	}
	return true
}
