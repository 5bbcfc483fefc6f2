package search

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/autotune/autotune/space"
)

// KnobImportance is the share of the score's variation that one knob
// explains.
type KnobImportance struct {
	// Knob is the knob name.
	Knob string
	// Importance is the knob's share, 0..1; the shares of all knobs sum to
	// 1 (or are all 0 when no knob explains anything).
	Importance float64
}

// minImportanceTrials is the fewest complete trials Importance accepts.
const minImportanceTrials = 3

// Importance estimates how much each knob of sp matters to the score, from
// the complete trials (failed and interrupted ones carry no score and are
// left out; a knob a trial did not set takes its default).
//
// Method: one regression per knob, of the score on that knob alone. A
// numeric knob enters as its value (its logarithm for log-scale knobs), an
// Enum or Bool knob as one-hot indicators of its choices (R² is then the
// between-choices share of the variance). Each R² is adjusted for the
// number of predictors, 1 − (1 − R²)(n − 1)/(n − p − 1), clipped at 0 (so a
// knob with many choices seen in few trials gets no credit for fitting
// noise), and the adjusted values are normalised to shares summing to 1.
//
// This is a marginal, one-knob-at-a-time view: it ignores interactions,
// and knobs that the search moved together share credit. It is a guide to
// what to look at, not a causal claim. The result is sorted by importance,
// highest first (ties in space order). It returns an error when fewer than
// 3 trials are complete or a stored value cannot be read as its knob's
// value.
func Importance(sp *space.Space, trials []Trial) ([]KnobImportance, error) {
	var done []Trial
	for _, t := range trials {
		if t.State == Complete && !math.IsNaN(t.Score) {
			done = append(done, t)
		}
	}
	if len(done) < minImportanceTrials {
		return nil, fmt.Errorf("importance: %d complete trials, need at least %d", len(done), minImportanceTrials)
	}
	y := make([]float64, len(done))
	for i, t := range done {
		y[i] = t.Score
	}
	_, sdY := stat.MeanStdDev(y, nil)

	knobs := sp.Knobs()
	out := make([]KnobImportance, len(knobs))
	var sum float64
	for ki, k := range knobs {
		out[ki].Knob = k.Name
		if sdY == 0 {
			continue
		}
		r2, p, err := knobR2(k, done, y)
		if err != nil {
			return nil, err
		}
		n := float64(len(done))
		if p == 0 || n-float64(p)-1 <= 0 {
			continue
		}
		adj := 1 - (1-r2)*(n-1)/(n-float64(p)-1)
		if adj > 0 && !math.IsNaN(adj) {
			out[ki].Importance = math.Min(adj, 1)
			sum += out[ki].Importance
		}
	}
	if sum > 0 {
		for i := range out {
			out[i].Importance /= sum
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Importance > out[j].Importance })
	return out, nil
}

// knobR2 returns the R² of the score y on knob k alone over trials, and the
// number of predictors p (0 when the knob did not vary).
func knobR2(k space.Knob, trials []Trial, y []float64) (r2 float64, p int, err error) {
	values := make([]string, len(trials))
	for i, t := range trials {
		v, ok := t.Params[k.Name]
		if !ok {
			v = k.Default
		}
		values[i] = v
	}
	switch k.Kind {
	case space.Enum, space.Bool:
		// One-hot regression on the choices seen = share of the variance
		// between the per-choice means.
		groups := map[string][]float64{}
		for i, v := range values {
			groups[v] = append(groups[v], y[i])
		}
		if len(groups) < 2 {
			return 0, 0, nil
		}
		mean := stat.Mean(y, nil)
		var between, total float64
		for _, g := range groups {
			d := stat.Mean(g, nil) - mean
			between += float64(len(g)) * d * d
		}
		for _, v := range y {
			total += (v - mean) * (v - mean)
		}
		return between / total, len(groups) - 1, nil
	}
	x := make([]float64, len(values))
	for i, v := range values {
		f, err := k.Float(v)
		if err != nil || math.IsNaN(f) {
			return 0, 0, fmt.Errorf("importance: trial %d: knob %s value %q: want a number", trials[i].Number, k.Name, v)
		}
		if k.Scale == space.Log {
			if f <= 0 {
				return 0, 0, fmt.Errorf("importance: trial %d: knob %s value %q: a log-scale knob needs a positive value", trials[i].Number, k.Name, v)
			}
			f = math.Log(f)
		}
		x[i] = f
	}
	if _, sd := stat.MeanStdDev(x, nil); sd == 0 {
		return 0, 0, nil
	}
	r := stat.Correlation(x, y, nil)
	return r * r, 1, nil
}
