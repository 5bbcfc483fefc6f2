package measure

import (
	"sort"
)

// DefaultLambda is the default weight of the variance penalty of the score (ScoreRule.Lambda).
// With a per-second tps spread of 10-15 %, measured on the reference
// 2-core machine (docs/measurement.md), it costs a typical stable
// config 5-8 % of its mean, and a config whose throughput swings twice as
// much loses twice that.
const DefaultLambda = 0.5

// MinMeasureSamples is the fewest per-second samples of the measurement
// window that ScoreRule.Evaluate accepts.
const MinMeasureSamples = 3

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
