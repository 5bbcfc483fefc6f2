package search

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// DefaultLambda is the default weight of the variance penalty in Score.
// With a per-second tps spread of 10-15 %, measured on the reference
// 2-core machine (docs/measurement.md), it costs a typical stable
// config 5-8 % of its mean, and a config whose throughput swings twice as
// much loses twice that.
const DefaultLambda = 0.5

// MinMeasureSamples is the fewest per-second samples of the measurement
// window that Score accepts.
const MinMeasureSamples = 3

// Score computes the objective of one trial from its per-second samples:
//
//	score = mean(tps) − λ · sd(tps)
//
// over the samples of the measurement window (Warmup false), where sd is
// the sample standard deviation (n−1). It also returns the mean and sd (tps)
// and the median of the per-second latency percentile (ms, 0 when not
// reported). It returns an error when the window holds fewer than
// MinMeasureSamples samples or λ is negative.
func Score(samples []Sample, lambda float64) (score, mean, sd, p95 float64, err error) {
	if lambda < 0 || math.IsNaN(lambda) {
		return 0, 0, 0, 0, fmt.Errorf("score: lambda %g: want a non-negative number", lambda)
	}
	var tps, lat []float64
	for _, s := range samples {
		if s.Warmup {
			continue
		}
		tps = append(tps, s.TPS)
		if s.LatPct > 0 {
			lat = append(lat, s.LatMS)
		}
	}
	if len(tps) < MinMeasureSamples {
		return 0, 0, 0, 0, fmt.Errorf("score: %d samples in the measurement window, need at least %d", len(tps), MinMeasureSamples)
	}
	mean, sd = stat.MeanStdDev(tps, nil)
	if len(lat) > 0 {
		p95 = median(lat)
	}
	return mean - lambda*sd, mean, sd, p95, nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
