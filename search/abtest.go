package search

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Gain is the result of comparing two sets of scores with Welch's t-test
// (unequal variances, Welch–Satterthwaite degrees of freedom).
type Gain struct {
	// NA and NB are the sample sizes (A = best, B = baseline).
	NA, NB int
	// MeanA, MeanB, SDA and SDB are the sample means and standard
	// deviations (n−1) of the scores.
	MeanA, MeanB, SDA, SDB float64
	// Diff is MeanA − MeanB; Lo and Hi bound its 95 % confidence interval.
	Diff, Lo, Hi float64
	// DF is the Welch–Satterthwaite degrees of freedom, T the t statistic
	// and P the two-sided p-value.
	DF, T, P float64
	// Pct, LoPct and HiPct are Diff, Lo and Hi as a percentage of |MeanB|
	// (the baseline's uncertainty in the denominator is ignored).
	Pct, LoPct, HiPct float64
	// Significant is true when the interval excludes 0 (P < 0.05).
	Significant bool
}

// Welch compares a (the best configuration's scores) with b (the
// baseline's) at 95 % confidence. The t quantile comes from gonum's
// Student's t distribution. It returns an error when either side has fewer
// than 2 values or both have zero variance.
func Welch(a, b []float64) (Gain, error) {
	if len(a) < 2 || len(b) < 2 {
		return Gain{}, fmt.Errorf("welch: need at least 2 runs on each side, have %d and %d", len(a), len(b))
	}
	g := Gain{NA: len(a), NB: len(b)}
	g.MeanA, g.SDA = stat.MeanStdDev(a, nil)
	g.MeanB, g.SDB = stat.MeanStdDev(b, nil)
	va, vb := g.SDA*g.SDA/float64(g.NA), g.SDB*g.SDB/float64(g.NB)
	se := math.Sqrt(va + vb)
	if !(se > 0) {
		return Gain{}, fmt.Errorf("welch: both sides have zero variance")
	}
	g.Diff = g.MeanA - g.MeanB
	g.DF = (va + vb) * (va + vb) / (va*va/float64(g.NA-1) + vb*vb/float64(g.NB-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: g.DF}
	q := t.Quantile(0.975)
	g.Lo, g.Hi = g.Diff-q*se, g.Diff+q*se
	g.T = g.Diff / se
	g.P = 2 * t.Survival(math.Abs(g.T))
	g.Significant = g.Lo > 0 || g.Hi < 0
	if d := math.Abs(g.MeanB); d > 0 {
		g.Pct, g.LoPct, g.HiPct = g.Diff/d*100, g.Lo/d*100, g.Hi/d*100
	}
	return g, nil
}

// String renders the gain for people: "+12.3 % (95 % CI +4.1 .. +20.5 %,
// Welch t, 5 vs 5 runs, p = 0.012): significant" or, when the interval
// includes 0, "... NOT significant: the interval includes 0".
func (g Gain) String() string {
	s := fmt.Sprintf("%+.1f %% (95 %% CI %+.1f .. %+.1f %%, Welch t, %d vs %d runs, p = %.3g)", g.Pct, g.LoPct, g.HiPct, g.NA, g.NB, g.P)
	if g.Significant {
		return s + ": significant"
	}
	return s + ": NOT significant: the interval includes 0"
}

// ABGain returns the gain of the final A/B phase of the best trial: the
// Welch comparison of the complete, feasible ABBest runs with the ABBase
// runs recorded for it. ok is false when there are fewer than 2 runs on a
// side.
func ABGain(trials []Trial, best int) (g Gain, ok bool) {
	var a, b []float64
	for _, t := range trials {
		if t.RepeatOf != best || t.State != Complete {
			continue
		}
		switch t.Kind {
		case ABBest:
			a = append(a, t.Score)
		case ABBase:
			b = append(b, t.Score)
		}
	}
	g, err := Welch(a, b)
	return g, err == nil
}
