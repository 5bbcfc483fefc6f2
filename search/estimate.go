package search

import (
	"math"

	"github.com/autotune/autotune/measure"
	"gonum.org/v1/gonum/stat"
)

// ScoreNoise returns the run-to-run noise of one measurement's score (the
// standard deviation of its natural log, so 0.03 is about 3 %) pooled over
// the configurations measured twice or more among trials (the final A/B
// and minimisation runs left out), and its degrees of freedom (0, 0
// before any configuration was measured twice).
func ScoreNoise(trials []Trial) (sd float64, df int) {
	var b bestTracker
	for _, u := range trials {
		b.add(u)
	}
	if b.df == 0 {
		return 0, 0
	}
	return math.Sqrt(math.Max(0, b.ss) / float64(b.df)), b.df
}

// Estimate is what a study believes about one configuration: all complete
// measurements of the same effective configuration (the same knob values
// after repair, Params.Key, however they were proposed) pool into one
// estimate. The final A/B runs are left out: they judge the chosen
// configuration and are reported on their own (ABGain).
type Estimate struct {
	// Score and MeanTPS are means over the measurements that count: every
	// complete, feasible measurement of the configuration except, when
	// the configuration was first measured under confirmation, that first
	// measurement (selected because it was high: winner's curse).
	Score, MeanTPS float64
	// Penalties are the score's components over the same measurements:
	// the amounts and rates are means, the dip and stall seconds rounded
	// means, the history-list growth the mean of the measurements that
	// sampled it (NaN when none did).
	Penalties measure.Penalties
	// SE is the standard error of Score (sd/√N; NaN for N < 2).
	SE float64
	// N is the number of measurements behind the estimate.
	N int
	// NotSteadyLeft is the number of measurements left out of the
	// estimate because their window was not steady while another one was;
	// NotSteadyKept the number behind it that were not steady, where none
	// was (steadyRuns).
	NotSteadyLeft, NotSteadyKept int
	// Eligible reports whether the configuration may be the best: it has
	// a complete, feasible measurement, none of its re-measurements failed
	// or was infeasible, and, when its first measurement needed
	// confirmation, ConfirmNeeded more measurements count.
	Eligible bool
	// Trial is the number of the configuration's first complete
	// measurement (its representative; −1 when none).
	Trial int
}

// group is every measurement of one configuration.
type group struct {
	rep      Trial   // the first complete, feasible measurement (Number −1: none)
	counted  []Trial // the measurements the estimate uses
	all      int     // complete, feasible measurements, the first included
	disq     bool    // a re-measurement failed or was infeasible
	needConf int     // confirmations the first measurement needed
	listed   bool    // Incumbents considers the group (it has a complete measurement)
}

// measures reports whether u is a measurement that may count towards its
// configuration's estimate: not a final A/B run and not a minimisation
// run (both judge the chosen configuration; a minimisation must not
// change which configuration it minimises), and not a run of the skew
// check (it measured another workload).
func measures(u Trial) bool {
	return u.Kind != ABBest && u.Kind != ABBase && u.Kind != ABWarm && !u.Kind.Minimizing() && !u.Kind.Skewed()
}

// groupOf collects the measurements of configuration key.
func groupOf(trials []Trial, key string) group {
	g := group{rep: Trial{Number: -1}}
	for _, u := range trials {
		if measures(u) && u.Params.Key() == key {
			g.add(u)
		}
	}
	return g
}

// add takes in u, the next measurement of the group's configuration (not
// a final A/B run).
func (g *group) add(u Trial) {
	if u.Kind.Extra() && (unscored(u) || (u.State == Complete && u.Infeasible)) {
		g.disq = true
		return
	}
	if u.State != Complete || u.Infeasible {
		return
	}
	g.all++
	if g.rep.Number < 0 {
		g.rep = u
		if u.Kind != Baseline && !u.Kind.Extra() && u.ConfirmNeeded > 0 {
			g.needConf = u.ConfirmNeeded
			return // winner's curse: the selecting measurement
		}
	}
	g.counted = append(g.counted, u)
}

func (g group) estimate() Estimate {
	e := Estimate{Trial: g.rep.Number, SE: math.NaN()}
	if g.rep.Number < 0 {
		return e
	}
	runs := g.counted
	if len(runs) == 0 {
		// Not yet re-measured: the first measurement is all there is
		// (not eligible).
		runs = []Trial{g.rep}
	}
	runs, e.NotSteadyLeft, e.NotSteadyKept = steadyRuns(runs)
	scores, tps := make([]float64, len(runs)), make([]float64, len(runs))
	for i, u := range runs {
		scores[i], tps[i] = u.Score, u.MeanTPS
	}
	e.N = len(scores)
	e.Score, e.MeanTPS, e.Penalties = measure.Mean(scores), measure.Mean(tps), meanPenalties(runs)
	if e.N >= 2 {
		_, sd := stat.MeanStdDev(scores, nil)
		e.SE = sd / math.Sqrt(float64(e.N))
	}
	e.Eligible = !g.disq && len(g.counted) >= max(1, g.needConf)
	return e
}

// steadyRuns returns the measurements an estimate is the mean of: those
// whose window was steady, when there is one (left: how many that were not
// steady are left out), else all of them (kept: how many, none steady). A
// window that found no steady start before the warm-up cap measured a
// server still moving (see SteadyPairs); where the configuration has a
// steady window, that one says what it does in its steady state.
func steadyRuns(runs []Trial) (use []Trial, left, kept int) {
	for _, u := range runs {
		if !u.WarmupCapped {
			use = append(use, u)
		}
	}
	if len(use) > 0 {
		return use, len(runs) - len(use), 0
	}
	return runs, 0, len(runs)
}

// meanPenalties returns the mean penalties of runs (at least one): see
// Estimate.Penalties.
func meanPenalties(runs []Trial) measure.Penalties {
	ps := make([]measure.Penalties, len(runs))
	for i, u := range runs {
		ps[i] = u.Penalties
	}
	return measure.MeanPenalties(ps)
}

// withEstimate returns t with Score, MeanTPS and Penalties set to e's.
func withEstimate(t Trial, e Estimate) Trial {
	t.Score, t.MeanTPS, t.Penalties = e.Score, e.MeanTPS, e.Penalties
	return t
}

// EstimateOf returns the estimate of trial t's configuration (the pooled
// measurements of t.Params.Key() among trials, see Estimate).
func EstimateOf(trials []Trial, t Trial) Estimate {
	return groupOf(trials, t.Params.Key()).estimate()
}

// ShrinkMin is the number of measured configurations from which the best
// is chosen on shrunk estimates (see Incumbents); with fewer, the highest
// estimate is the best.
const ShrinkMin = 4

// logStats accumulates the log scores of one configuration's
// measurements, for the pooled run-to-run noise.
type logStats struct{ n, sum, sumsq float64 }

func (l logStats) ss() float64 {
	if l.n < 2 {
		return 0
	}
	return math.Max(0, l.sumsq-l.sum*l.sum/l.n)
}

// shrunkBest returns the eligible group with the best shrunk estimate
// among order (nil when none is eligible), given the pooled variance of a
// single measurement's log score noise2 (0: unknown). The shrunk estimate
// is the empirical-Bayes posterior mean of the configuration's log score:
// the configurations' true log scores are taken to spread around their
// mean m with variance tau2 (the variance of the estimates' log scores
// less their mean sampling variance noise2/N, method of moments), and an
// estimate from N measurements is pulled towards m by the factor
// noise2/N / (tau2 + noise2/N). Where the measured configurations differ
// by much more than the noise (tau2 large), the pull is small and the
// highest estimate wins; where most of them are alike and the noise is
// large, a configuration measured three times that got lucky does not
// displace one measured eight times. With the noise unknown or fewer than
// ShrinkMin configurations, the highest estimate wins.
func shrunkBest(order []*group, ests map[*group]Estimate, noise2 float64) *group {
	best, _ := shrunkBestSpread(order, ests, noise2)
	return best
}

// shrunkBestSpread is shrunkBest that also returns the spread tau2 it
// estimated (the variance of the configurations' true log scores; −1
// when the highest estimate won without shrinkage).
func shrunkBestSpread(order []*group, ests map[*group]Estimate, noise2 float64) (*group, float64) {
	var best *group
	for _, g := range order {
		if e := ests[g]; e.Eligible && (best == nil || e.Score > ests[best].Score) {
			best = g
		}
	}
	if best == nil || noise2 <= 0 {
		return best, -1
	}
	var ys, vs []float64
	for _, g := range order {
		if e := ests[g]; e.N > 0 && e.Score > 0 {
			ys = append(ys, math.Log(e.Score))
			vs = append(vs, noise2/float64(e.N))
		}
	}
	if len(ys) < ShrinkMin {
		return best, -1
	}
	m := measure.Mean(ys)
	spread := 0.0
	for _, y := range ys {
		spread += (y - m) * (y - m)
	}
	spread /= float64(len(ys) - 1)
	tau2 := math.Max(spread-measure.Mean(vs), 1e-6)
	best = nil
	bestV := math.Inf(-1)
	for _, g := range order {
		e := ests[g]
		if !e.Eligible || e.Score <= 0 {
			continue
		}
		v := noise2 / float64(e.N)
		if post := m + tau2/(tau2+v)*(math.Log(e.Score)-m); post > bestV {
			best, bestV = g, post
		}
	}
	return best, tau2
}
