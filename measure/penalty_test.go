package measure

import (
	"math"
	"strings"
	"testing"
)

func win(tps ...float64) []Sample {
	out := make([]Sample, len(tps))
	for i, v := range tps {
		out[i] = Sample{T: float64(i + 1), TPS: v, QPS: 20 * v, LatPct: 95, LatMS: 50}
	}
	return out
}

func fptr(v float64) *float64 { return &v }

func TestEvaluateComponents(t *testing.T) {
	r := DefaultScoreRule()
	flat := win(100, 100, 100, 100, 100, 100, 100, 100, 100, 100)

	// One dip second (40 < 0.5·median 100) and one stall second.
	dips := win(100, 100, 100, 40, 100, 100, 0, 100, 100, 100)

	errs := win(100, 100, 100, 100, 100, 100, 100, 100, 100, 100)
	for i := range errs {
		errs[i].ErrPS, errs[i].ReconnPS = 2, 0.1
	}

	// History list grows 50 entries per second.
	purge := win(100, 100, 100, 100, 100, 100, 100, 100, 100, 100)
	for i := range purge {
		purge[i].HLL = fptr(1000 + 50*float64(i))
	}
	shrink := win(100, 100, 100, 100, 100, 100)
	for i := range shrink {
		shrink[i].HLL = fptr(1000 - 50*float64(i))
	}

	tests := []struct {
		name  string
		rule  ScoreRule
		in    []Sample
		score float64
		check func(t *testing.T, e Eval)
	}{
		{name: "flat: no penalty", rule: r, in: flat, score: 100},
		{name: "dip and stall", rule: r, in: dips, check: func(t *testing.T, e Eval) {
			if e.DipSeconds != 1 || e.StallSeconds != 1 {
				t.Fatalf("dips %d stalls %d, want 1 and 1", e.DipSeconds, e.StallSeconds)
			}
			m := e.MeanTPS // 84
			want := m - 0.5*SlowVariability([]float64{100, 100, 100, 40, 100, 100, 0, 100, 100, 100}, 5) - m*1*0.1 - m*2*0.1
			if math.Abs(e.Score-want) > 1e-9 || math.Abs(e.Dips-m*0.1) > 1e-9 || math.Abs(e.Stalls-m*0.2) > 1e-9 {
				t.Fatalf("score %g (dips %g stalls %g), want %g", e.Score, e.Dips, e.Stalls, want)
			}
		}},
		// errors: 100·(1·2 + 10·0.1)/100 = 3
		{name: "errors and reconnects", rule: r, in: errs, score: 97, check: func(t *testing.T, e Eval) {
			if e.ErrPS != 2 || math.Abs(e.ReconnPS-0.1) > 1e-12 || math.Abs(e.Errors-3) > 1e-9 {
				t.Fatalf("%+v", e.Penalties)
			}
		}},
		// purge: 100·0.5·50/100 = 25
		{name: "purge lag", rule: r, in: purge, score: 75, check: func(t *testing.T, e Eval) {
			if math.Abs(e.HLLGrowthPS-50) > 1e-9 || math.Abs(e.Purge-25) > 1e-9 {
				t.Fatalf("%+v", e.Penalties)
			}
		}},
		{name: "shrinking history is no penalty", rule: r, in: shrink, score: 100},
		{name: "history not sampled: growth unknown", rule: r, in: flat, score: 100, check: func(t *testing.T, e Eval) {
			if !math.IsNaN(e.HLLGrowthPS) {
				t.Fatalf("growth %g, want NaN", e.HLLGrowthPS)
			}
		}},
		{name: "qps goal", rule: ScoreRule{Goal: GoalQPS, Lambda: 0.5, DipShare: 0.5, DipWeight: 1, StallWeight: 2, ErrWeight: 1, ReconnWeight: 10, PurgeWeight: 0.5}, in: errs, score: 2000 - 60},
		// p95 cost 50 ms, errors add 3 % of it: score −51.5
		{name: "p95 goal", rule: ScoreRule{Goal: GoalP95, Lambda: 0.5, DipShare: 0.5, DipWeight: 1, StallWeight: 2, ErrWeight: 1, ReconnWeight: 10, PurgeWeight: 0.5}, in: errs, score: -51.5},
		{name: "max p95 exceeded: infeasible", rule: ScoreRule{Goal: GoalTPS, MaxP95MS: 40}, in: flat, score: 100, check: func(t *testing.T, e Eval) {
			if !e.Infeasible || e.P95MS != 50 {
				t.Fatalf("infeasible %v p95 %g", e.Infeasible, e.P95MS)
			}
		}},
		{name: "max p95 met", rule: ScoreRule{Goal: GoalTPS, MaxP95MS: 50}, in: flat, score: 100, check: func(t *testing.T, e Eval) {
			if e.Infeasible {
				t.Fatal("50 ms is within a 50 ms limit")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := tc.rule.Evaluate(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, e)
			} else if math.Abs(e.Score-tc.score) > 1e-9 {
				t.Fatalf("score %g, want %g (%+v)", e.Score, tc.score, e.Penalties)
			}
			if tc.check != nil && tc.score != 0 && math.Abs(e.Score-tc.score) > 1e-9 {
				t.Fatalf("score %g, want %g", e.Score, tc.score)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	noLat := []Sample{{TPS: 1}, {TPS: 1}, {TPS: 1}}
	for _, tc := range []struct {
		name string
		rule ScoreRule
		in   []Sample
		err  string
	}{
		{"too few", DefaultScoreRule(), win(1, 2), "2 samples"},
		{"p95 without latency", ScoreRule{Goal: GoalP95}, noLat, "no latency"},
		{"max-p95 without latency", ScoreRule{Goal: GoalTPS, MaxP95MS: 10}, noLat, "no latency"},
		{"bad goal", ScoreRule{Goal: "latency"}, win(1, 2, 3), "objective"},
		{"negative lambda", ScoreRule{Goal: GoalTPS, Lambda: -1}, win(1, 2, 3), "lambda"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.rule.Evaluate(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// The default rule agrees with the variance-only score when there is
// nothing but variance to penalise.
func TestDefaultRuleWithOnlyVariance(t *testing.T) {
	ss := samples(nil, 80, 120, 80, 120, 95, 105)
	s1, _, _, _, _ := window(ss, DefaultLambda)
	e, err := DefaultScoreRule().Evaluate(ss)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Score-s1) > 1e-9 {
		t.Fatalf("default rule %g, variance only %g", e.Score, s1)
	}
}

func TestAggregateScore(t *testing.T) {
	for _, tc := range []struct {
		goal   Goal
		scores []float64
		want   float64
	}{
		{GoalTPS, []float64{500}, 500},
		{GoalTPS, []float64{100, 400}, 200},
		{GoalTPS, []float64{400, -5}, 20}, // a collapsed level counts as 1
		{GoalP95, []float64{-10, -40}, -20},
	} {
		if got := AggregateScore(tc.goal, tc.scores); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("AggregateScore(%s, %v) = %g, want %g", tc.goal, tc.scores, got, tc.want)
		}
	}
	// Scale invariance: +10 % at the small level or at the big one moves
	// the aggregate by the same factor.
	a := AggregateScore(GoalTPS, []float64{110, 1000})
	b := AggregateScore(GoalTPS, []float64{100, 1100})
	if math.Abs(a-b) > 1e-9 {
		t.Fatalf("%g != %g", a, b)
	}
}

func TestOutcomeCombine(t *testing.T) {
	o := Outcome{Measurement: Measurement{Levels: []Level{
		{Threads: 8, WarmupS: 15, Eval: Eval{Score: 100, MeanTPS: 110, StdTPS: 10, P95MS: 20, Penalties: Penalties{Variance: 5, DipSeconds: 1, HLLGrowthPS: math.NaN()}}},
		{Threads: 32, WarmupS: 0, Eval: Eval{Score: 400, MeanTPS: 440, StdTPS: 40, P95MS: 80, Penalties: Penalties{Variance: 20, HLLGrowthPS: 4}, Infeasible: true}},
	}}}
	o.Combine(GoalTPS)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(o.Score, 200) || !near(o.MeanTPS, 220) || !near(o.P95MS, 40) || o.WarmupS != 15 || !o.Infeasible || o.Variance != 12.5 || o.HLLGrowthPS != 4 || o.DipSeconds != 1 {
		t.Fatalf("%+v", o)
	}
}

// The variance penalty charges slow swings around the level, not the
// slope a warm-up leaves, nor per-second jitter of a steady server.
func TestSlowVariability(t *testing.T) {
	ramp := make([]float64, 60) // 500 -> 990 tps: a pool still filling
	jitter := make([]float64, 60)
	swings := make([]float64, 60) // 10 s blocks alternating 800 / 1200
	for i := range ramp {
		ramp[i] = 500 + 490*float64(i)/59
		jitter[i] = 1000 + 120*float64(1-2*(i%2)) // ±12 % every second
		swings[i] = 800
		if (i/10)%2 == 1 {
			swings[i] = 1200
		}
	}
	for _, tc := range []struct {
		name   string
		x      []float64
		lo, hi float64
	}{
		{"warm-up ramp", ramp, 0, 1e-6},
		{"per-second jitter", jitter, 0, 1e-6},
		{"slow swings", swings, 150, 250},
	} {
		if got := SlowVariability(tc.x, 5); got < tc.lo || got > tc.hi {
			t.Errorf("%s: %.2f, want %.0f..%.0f", tc.name, got, tc.lo, tc.hi)
		}
	}
	// A warm-up ramp does not cost the score (with the raw standard
	// deviation the 4.5G-pool case would score 256-446 for a 607-621 tps
	// mean).
	var w []Sample
	for _, x := range ramp {
		w = append(w, Sample{TPS: x, QPS: 20 * x})
	}
	e, err := DefaultScoreRule().Evaluate(w)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Score-e.MeanTPS) > 1e-6 {
		t.Fatalf("ramp scored %.1f for a mean of %.1f", e.Score, e.MeanTPS)
	}
}
