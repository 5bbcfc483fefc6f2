package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
)

// fakeBench emits interval lines from tps(threads, second) as fast as it
// can, until d seconds or cancellation, and records how many it emitted.
type fakeBench struct {
	tps     func(threads, sec int) float64
	emitted map[int]int
	fail    error
}

func (f *fakeBench) Prepare(context.Context, *runner.Server) error { return nil }

func (f *fakeBench) Dataset() runner.Dataset { return runner.Dataset{Workload: "fake"} }
func (f *fakeBench) Definition(context.Context) (benchdef.Definition, error) {
	return benchdef.Definition{Driver: "fake"}, nil
}

func (f *fakeBench) Run(ctx context.Context, srv *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	lat := 20.0
	threads, d := r.Threads, r.Duration
	for i := 1; i <= int(d/time.Second); i++ {
		if ctx.Err() != nil {
			return runner.BenchResult{}, ctx.Err()
		}
		f.emitted[threads]++
		onSample(runner.Interval{Time: float64(i), Threads: threads, TPS: f.tps(threads, i), QPS: 20 * f.tps(threads, i), LatPct: 95, LatMS: &lat})
		if f.fail != nil && i == 3 {
			return runner.BenchResult{}, f.fail
		}
	}
	return runner.BenchResult{}, nil
}

func TestMeasurerWarmupEarlyStopAndLevels(t *testing.T) {
	// Ramp for 15 s (60 %, 75 %, 90 %), then flat at 100 per thread.
	fb := &fakeBench{emitted: map[int]int{}, tps: func(threads, sec int) float64 {
		base := float64(100 * threads)
		switch {
		case sec <= 5:
			return 0.6 * base
		case sec <= 10:
			return 0.75 * base
		case sec <= 15:
			return 0.9 * base
		}
		return base
	}}
	m := Protocol{Levels: []int{2, 8}, WarmupCap: 30 * time.Second, Duration: 20 * time.Second,
		Steady: measure.DefaultSteadyRule(), Score: measure.DefaultScoreRule(), PollEvery: time.Second}
	var b Benchmark = fb
	out := measure.Outcome{Phases: map[string]float64{}}
	if err := m.measure(context.Background(), b, &runner.Server{Socket: "/nonexistent/sock"}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Levels) != 2 || out.Levels[0].Threads != 2 || out.Levels[1].Threads != 8 {
		t.Fatalf("levels %+v", out.Levels)
	}
	for _, l := range out.Levels {
		// Steady from 15 s; window 20 s; the run stops after 35 of 52 s.
		if l.WarmupS != 15 || l.WarmupCapped || l.Seconds != 20 || fb.emitted[l.Threads] != 35 {
			t.Fatalf("level %d: warm-up %g capped %v window %d emitted %d", l.Threads, l.WarmupS, l.WarmupCapped, l.Seconds, fb.emitted[l.Threads])
		}
		if l.MeanTPS != float64(100*l.Threads) || l.Score != l.MeanTPS {
			t.Fatalf("level %d: mean %g score %g", l.Threads, l.MeanTPS, l.Score)
		}
		if l.Metrics["cpu_user"] != nil || l.Metrics["rows_read_ps"] != nil {
			t.Fatal("no poller (server unreachable): metrics must be nil, not 0")
		}
	}
	// Aggregate: geometric mean of 200 and 800.
	if math.Abs(out.Score-400) > 1e-9 || out.WarmupS != 15 || len(out.Samples) != 70 {
		t.Fatalf("score %g warm-up %g samples %d", out.Score, out.WarmupS, len(out.Samples))
	}
	warm := 0
	for _, s := range out.Samples {
		if s.Warmup {
			warm++
		}
		if s.Threads != 2 && s.Threads != 8 {
			t.Fatal("sample without its thread level")
		}
	}
	if warm != 30 || out.Phases["warmup"] != 30 {
		t.Fatalf("%d warm-up samples, phase %g", warm, out.Phases["warmup"])
	}

	// Never steady: the window starts at the cap and the run goes the
	// whole cap + duration + slack; the window is the 5 s after the cap.
	fb2 := &fakeBench{emitted: map[int]int{}, tps: func(_, sec int) float64 { return float64(100 + 100*(sec/5%2)) }}
	b, m.Levels, m.WarmupCap, m.Duration = fb2, []int{4}, 10*time.Second, 5*time.Second
	out = measure.Outcome{Phases: map[string]float64{}}
	if err := m.measure(context.Background(), b, &runner.Server{}, &out); err != nil {
		t.Fatal(err)
	}
	if out.WarmupS != 10 || !out.WarmupCapped || fb2.emitted[4] != 17 || out.Levels[0].Seconds != 5 {
		t.Fatalf("capped: warm-up %g capped %v emitted %d", out.WarmupS, out.WarmupCapped, fb2.emitted[4])
	}

	// A benchmark failure is returned as is; too few samples is "not
	// scored".
	fb3 := &fakeBench{emitted: map[int]int{}, tps: func(_, _ int) float64 { return 5 }, fail: &runner.BenchError{Reason: "boom"}}
	b = fb3
	if err := m.measure(context.Background(), b, &runner.Server{}, &measure.Outcome{Phases: map[string]float64{}}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err %v", err)
	}
	b, m.WarmupCap, m.Duration = fb, 0, 2*time.Second
	err := m.measure(context.Background(), b, &runner.Server{}, &measure.Outcome{Phases: map[string]float64{}})
	if _, ok := err.(errNotScored); !ok {
		t.Fatalf("err %v, want errNotScored", err)
	}
}

// hangingBench emits n samples, then hangs until it is killed (its
// context ends), like a benchmark stuck after its last interval.
type hangingBench struct{ n int }

func (h *hangingBench) Prepare(context.Context, *runner.Server) error { return nil }
func (h *hangingBench) Dataset() runner.Dataset                       { return runner.Dataset{Workload: "fake"} }
func (h *hangingBench) Definition(context.Context) (benchdef.Definition, error) {
	return benchdef.Definition{Driver: "fake"}, nil
}
func (h *hangingBench) Run(ctx context.Context, _ *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	for i := 1; i <= h.n; i++ {
		onSample(runner.Interval{Time: float64(i), TPS: 100, QPS: 2000})
	}
	<-ctx.Done()
	return runner.BenchResult{}, ctx.Err()
}

// A benchmark still running at its length plus the grace period is killed
// and the level fails as overrun, with the samples that arrived.
func TestBenchmarkOverrunIsKilled(t *testing.T) {
	m := Protocol{Levels: []int{4}, Duration: time.Second, Steady: measure.DefaultSteadyRule(), Score: measure.DefaultScoreRule(),
		Deadlines: Deadlines{BenchGrace: 100 * time.Millisecond}}
	out := measure.Outcome{Phases: map[string]float64{}}
	t0 := time.Now()
	err := m.measure(context.Background(), &hangingBench{n: 0}, &runner.Server{}, &out)
	var ov *Overran
	if !errors.As(err, &ov) || !strings.Contains(err.Error(), "benchmark overran its time") || !strings.Contains(err.Error(), "0 per-second samples arrived") {
		t.Fatalf("err %v, want a benchmark overrun", err)
	}
	// Run length 1 s + RunSlack 2 s + grace 0.1 s.
	if d := time.Since(t0); d < 3*time.Second || d > 10*time.Second {
		t.Fatalf("killed after %s", d)
	}
}

// A series still rising at the warm-up cap extends the run up to
// WarmupMax; the window starts where it is steady. Without the extension
// the level is marked not steady (WarmupCapped).
func TestRisingSeriesExtendsTheWarmup(t *testing.T) {
	ramp := func(_, sec int) float64 { // rises until 40 s, then flat
		return 300 + 700*math.Min(float64(sec), 40)/40
	}
	m := Protocol{Levels: []int{16}, WarmupCap: 20 * time.Second, WarmupMax: 60 * time.Second, Duration: 20 * time.Second,
		Steady: measure.DefaultSteadyRule(), Score: measure.DefaultScoreRule()}
	fb := &fakeBench{emitted: map[int]int{}, tps: ramp}
	out := measure.Outcome{Phases: map[string]float64{}}
	if err := m.measure(context.Background(), fb, &runner.Server{}, &out); err != nil {
		t.Fatal(err)
	}
	l := out.Levels[0]
	if l.WarmupCapped || l.WarmupS <= 20 || l.WarmupS > 45 || l.MeanTPS < 950 {
		t.Fatalf("warm-up %gs capped %v mean %.0f: want a steady start after the cap, before 45 s", l.WarmupS, l.WarmupCapped, l.MeanTPS)
	}
	m.WarmupMax = 0
	fb = &fakeBench{emitted: map[int]int{}, tps: ramp}
	out = measure.Outcome{Phases: map[string]float64{}}
	if err := m.measure(context.Background(), fb, &runner.Server{}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Levels[0].WarmupCapped {
		t.Fatal("a window on a rising series must be marked not steady")
	}
}

// Pruning stops a trial whose block means stay below the threshold after
// warm-up, never one that stays above it, and never during warm-up.
func TestPruning(t *testing.T) {
	run := func(tps func(int, int) float64, below float64, off bool) (measure.Outcome, int) {
		m := Protocol{Levels: []int{16}, WarmupCap: 30 * time.Second, Duration: 60 * time.Second,
			Steady: measure.DefaultSteadyRule(), Score: measure.DefaultScoreRule(), Prune: PruneRule{Off: off}, pruneBelow: below}
		fb := &fakeBench{emitted: map[int]int{}, tps: tps}
		out := measure.Outcome{Phases: map[string]float64{}}
		if err := m.measure(context.Background(), fb, &runner.Server{}, &out); err != nil {
			t.Fatal(err)
		}
		return out, fb.emitted[16]
	}
	flat := func(v float64) func(int, int) float64 { return func(int, int) float64 { return v } }
	// Incumbent 1000 tps, threshold 800 (20 % below).
	out, n := run(flat(600), 800, false)
	if !out.Pruned || n != 15 || out.Score > 800 {
		t.Fatalf("600 tps: pruned %v after %d s, score %.0f", out.Pruned, n, out.Score)
	}
	if out, n = run(flat(810), 800, false); out.Pruned || n != 60 {
		t.Fatalf("810 tps (above the threshold): pruned %v after %d s", out.Pruned, n)
	}
	if out, _ = run(flat(600), 800, true); out.Pruned {
		t.Fatal("pruning off: pruned")
	}
	// Slow for 20 s of warm-up, then fast: judged only after warm-up.
	warming := func(_, sec int) float64 {
		if sec <= 20 {
			return 200 + 30*float64(sec)
		}
		return 1000
	}
	if out, _ = run(warming, 800, false); out.Pruned {
		t.Fatal("pruned during warm-up")
	}
}

// A restore that hangs is stopped at its deadline and fails the trial.
func TestRestoreDeadline(t *testing.T) {
	s := &SandboxTarget{Box: &runner.Sandbox{Dir: t.TempDir()}, Deadlines: Deadlines{Restore: 100 * time.Millisecond},
		restore: func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() }}
	out := measure.Outcome{Phases: map[string]float64{}}
	_, _, err := s.start(context.Background(), Request{Trial: search.Trial{Number: 1}, Out: &out, Enter: func(string) {}}, runner.Binary{})
	var ov *Overran
	if !errors.As(err, &ov) || ov.Phase != "restore" || !strings.Contains(err.Error(), "restore overran its time (limit 100ms)") {
		t.Fatalf("err %v", err)
	}
}
