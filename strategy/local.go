package strategy

import (
	"math"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// This file is the hybrid's model-guided local search: a surrogate of the
// whole history (the main-effects model of fitImportance, fitted to the
// logarithm of the values, so multiplicative effects such as "+3 % from
// the allocator" add up), a centre chosen by the surrogate rather than by
// the luckiest measurement, and candidates that change one to three knobs
// of the centre, ranked by the surrogate.

// localModel is the surrogate the local search ranks by, refitted when
// the history grew.
type localModel struct {
	at    int                 // history size it was fitted at
	m     *search.MainEffects // fitted to log values
	resid float64             // residual standard deviation (log units)
}

// logValue is the surrogate's response: log of a value (scores and the
// failure penalty are positive tps; a value ≤ 0, e.g. a cost objective,
// is kept on a signed log scale so the order is kept).
func logValue(v float64) float64 {
	if v > 0 {
		return math.Log(v)
	}
	return -math.Log1p(-v) - 50
}

// surrogate returns the local model of the history, refitted when new
// observations arrived; nil before MinImportanceTrials observations.
func (h *Hybrid) surrogate() *localModel {
	n := len(h.h.obs)
	if n < search.MinImportanceTrials {
		return nil
	}
	if h.local != nil && h.local.at == n {
		return h.local
	}
	xs := make([][]float64, n)
	ys := make([]float64, n)
	for i, o := range h.h.obs {
		xs[i], ys[i] = o.x, logValue(o.value)
	}
	_, m := search.FitImportance(h.sp, xs, ys, search.OverRange)
	h.local = &localModel{at: n, m: m, resid: math.Sqrt(math.Max(0, m.Resid))}
	return h.local
}

// center returns the measured configuration the local search starts from:
// the one with the best shrunk estimate, the mean of its log values pulled
// towards the surrogate's prediction as if the prediction were
// centerPrior more measurements. A configuration measured once that got
// lucky does not become the centre unless the surrogate agrees with it.
func (h *Hybrid) center(lm *localModel) (space.Config, []float64, int) {
	best, bestV, bestN := -1, math.Inf(-1), 0
	for _, idx := range h.h.byKey {
		s := 0.0
		for _, i := range idx {
			s += logValue(h.h.obs[i].value)
		}
		o := h.h.obs[idx[0]]
		v := (s + centerPrior*lm.m.Predict(o.x)) / (float64(len(idx)) + centerPrior)
		if v > bestV || (v == bestV && idx[0] < best) {
			best, bestV, bestN = idx[0], v, len(idx)
		}
	}
	o := h.h.obs[best]
	return o.cfg, o.x, bestN
}

// centerPrior is the weight, in measurements, of the surrogate's
// prediction in a configuration's shrunk estimate.
const centerPrior = 2

// localStep returns the next proposal of the local search: the centre
// measured again while it has fewer than localRepeats measurements (every
// fourth local step), else the best-ranked unmeasured candidate among
// localCandidates changes of one to three knobs of the centre. ok is
// false before the surrogate exists.
func (h *Hybrid) localStep() (search.Proposal, bool) {
	lm := h.surrogate()
	if lm == nil || len(h.sp.Knobs()) == 0 {
		return search.Proposal{}, false
	}
	h.selectKnobs()
	_, x0, _ := h.center(lm)
	h.localAsked++
	ks := h.sp.Knobs()
	var bestX []float64
	bestS := math.Inf(-1)
	x := make([]float64, len(ks))
	for c := 0; c < localCandidates; c++ {
		copy(x, x0)
		moves := 1
		if r := h.rng.Float64(); r < 0.3 {
			moves = 2
		} else if r < 0.45 {
			moves = 3
		}
		for m := 0; m < moves; m++ {
			var i int
			if len(h.sub) > 0 && h.rng.Float64() < 0.5 {
				i = h.sub[h.rng.IntN(len(h.sub))]
			} else {
				i = h.rng.IntN(len(ks))
			}
			if nc := h.nChoices[i]; nc > 0 {
				if nc > 1 {
					c := h.rng.IntN(nc - 1)
					if c >= int(math.Round(x[i])) {
						c++
					}
					x[i] = float64(c)
				}
				continue
			}
			if h.rng.Float64() < 0.5 {
				x[i] = h.rng.Float64()
			} else {
				x[i] = math.Min(1, math.Max(0, x[i]+0.15*h.rng.NormFloat64()))
			}
		}
		// Thompson-like jitter: the surrogate's ranking plus noise of a
		// fraction of its residual (localJitter), so equally rated
		// candidates take turns.
		s := lm.m.Predict(x) + localJitter*lm.resid*h.rng.NormFloat64()
		if s > bestS {
			cand := search.Decode(h.sp, x)
			if h.h.measured(cand) {
				continue
			}
			bestS, bestX = s, append(bestX[:0], x...)
		}
	}
	if bestX == nil {
		return search.Proposal{}, false
	}
	return search.Proposal{Config: search.Decode(h.sp, bestX), Kind: search.Refine, Handle: -1}, true
}

const (
	// localCandidates is the number of candidates a local step ranks.
	localCandidates = 200
	// localRepeats is how many measurements the centre gets before the
	// local search stops repeating it.
	localRepeats = 3
	// localJitter is the standard deviation of the noise added to the
	// surrogate's rating of each candidate, as a share of the surrogate's
	// residual standard deviation: the surrogate, fitted on 6-10 % noise,
	// is not sure enough of its ranking to be followed greedily.
	localJitter = 0.6
)
