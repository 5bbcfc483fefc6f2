package measure

import (
	"math"
	"strings"
	"testing"
)

func samples(warm []float64, measured ...float64) []Sample {
	var out []Sample
	for i, v := range warm {
		out = append(out, Sample{T: float64(i + 1), Warmup: true, TPS: v})
	}
	for i, v := range measured {
		out = append(out, Sample{T: float64(len(warm) + i + 1), TPS: v, LatPct: 95, LatMS: v / 10})
	}
	return out
}

// window scores the samples outside the warm-up with the variance penalty
// alone (the rule of a score without dips, stalls, errors or purge lag).
func window(in []Sample, lambda float64) (score, mean, sd, p95 float64, err error) {
	var w []Sample
	for _, s := range in {
		if !s.Warmup {
			w = append(w, s)
		}
	}
	e, err := ScoreRule{Goal: GoalTPS, Lambda: lambda}.Evaluate(w)
	if math.IsNaN(e.P95MS) {
		e.P95MS = 0
	}
	return e.Score, e.MeanTPS, e.StdTPS, e.P95MS, err
}

func TestVarianceScore(t *testing.T) {
	tests := []struct {
		name                 string
		in                   []Sample
		lambda               float64
		score, mean, sd, p95 float64
		err                  string
	}{
		{name: "flat", in: samples(nil, 100, 100, 100, 100), lambda: 0.5, score: 100, mean: 100, sd: 0, p95: 10},
		{name: "warm-up ignored", in: samples([]float64{1, 5000}, 100, 100, 100), lambda: 0.5, score: 100, mean: 100, p95: 10},
		// mean 100, sample sd of {80,120,80,120} = sqrt(1600/3) = 23.094;
		// around the least-squares line 88, 96, 104, 112 the residuals
		// -8, 24, -24, 8 have sd sqrt(1280/3) = 20.656 (too short for
		// blocks: per-second, detrended).
		{name: "unstable loses", in: samples(nil, 80, 120, 80, 120), lambda: 0.5, score: 100 - 0.5*20.65591, mean: 100, sd: 23.09401, p95: 10},
		{name: "lambda zero is raw mean", in: samples(nil, 80, 120, 80, 120), lambda: 0, score: 100, mean: 100, sd: 23.09401, p95: 10},
		{name: "too few", in: samples([]float64{1, 2, 3}, 100, 100), lambda: 0.5, err: "2 samples"},
		{name: "negative lambda", in: samples(nil, 1, 2, 3), lambda: -1, err: "lambda"},
		{name: "no latency", in: []Sample{{TPS: 10}, {TPS: 10}, {TPS: 10}}, lambda: 1, score: 10, mean: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			score, mean, sd, p95, err := window(tc.in, tc.lambda)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"score", score, tc.score}, {"mean", mean, tc.mean}, {"sd", sd, tc.sd}, {"p95", p95, tc.p95}} {
				if math.Abs(c.got-c.want) > 1e-3 {
					t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
				}
			}
		})
	}
}

func TestStableBeatsFasterButUnstable(t *testing.T) {
	stable := samples(nil, 500, 510, 495, 505, 500, 490)
	jumpy := samples(nil, 900, 100, 950, 150, 880, 200) // mean 530
	s1, _, _, _, _ := window(stable, DefaultLambda)
	s2, m2, _, _, _ := window(jumpy, DefaultLambda)
	if m2 <= 500 || s2 >= s1 {
		t.Fatalf("stable score %g, jumpy score %g (mean %g): the unstable config must lose", s1, s2, m2)
	}
}
