package search

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/autotune/autotune/space"
)

// KnobImportance is one knob's share of the explained variance of the score.
type KnobImportance struct {
	Knob       string  // knob name
	Importance float64 // share of explained score variance, 0..1; all knobs sum to <= 1
}

// MinImportanceTrials is the fewest complete trials Importance accepts.
const MinImportanceTrials = 4

// hatKnots is the number of knots of the piecewise-linear basis a numeric
// knob's effect is fitted with (coordinates 0, 1/3, 2/3, 1 of its scale):
// enough for a saturating or a peaked effect, few enough for a 30-trial
// study.
const hatKnots = 4

// ErrTooFewTrials is returned (wrapped) by Importance when there are fewer
// than MinImportanceTrials complete trials.
var ErrTooFewTrials = errors.New("too few complete trials")

// MinReliableConfigs is the fewest distinct configurations from which
// ImportanceCaveat lets an importance ranking stand without a caveat; it
// also needs more configurations than the knobs they vary, plus 2 (the
// intercept and one degree of freedom for the noise), or the fit cannot
// separate the knobs' effects.
const MinReliableConfigs = 10

// ImportanceCaveat returns what a reader of Importance over trials must
// know ("" when nothing): the number of distinct configurations among
// the complete trials and of knobs they vary (against sp's defaults for
// knobs a configuration leaves out), when they are fewer than
// MinReliableConfigs or than the varied knobs plus 2.
func ImportanceCaveat(sp *space.Space, trials []Trial) string {
	seen := map[string]bool{}
	var cfgs []space.Config
	for _, t := range trials {
		if t.State != Complete || seen[t.Params.Key()] {
			continue
		}
		seen[t.Params.Key()] = true
		cfgs = append(cfgs, t.Params)
	}
	varied := 0
	for _, k := range sp.Knobs() {
		vals := map[string]bool{}
		for _, c := range cfgs {
			v, ok := c[k.Name]
			if !ok {
				v = k.Default
			}
			vals[v] = true
		}
		if len(vals) > 1 {
			varied++
		}
	}
	if len(cfgs) >= MinReliableConfigs && len(cfgs) >= varied+2 {
		return ""
	}
	return fmt.Sprintf("from only %d distinct configurations varying %d knobs, too few to separate the knobs' effects (that takes at least %d, and more than the knobs varied plus one): a hint of where to look, not a measure of each knob's effect",
		len(cfgs), varied, MinReliableConfigs)
}

// Importance estimates each knob's importance from the complete trials, skew-check runs left out (fANOVA-style or regression-based, gonum).
//
// Method (regression-based, fANOVA-style main effects): every complete
// trial's configuration is encoded along each knob's search scale (log
// where the knob has one; knobs a trial does not set take their default),
// and the score is fitted as a sum of one function per knob: piecewise
// linear over 4 knots for a numeric knob, one level per choice for an Enum
// or Bool knob. The fit is a ridge regression (gonum SVD) whose penalty is
// chosen by leave-one-out cross-validation with the one-standard-error
// rule (the largest penalty whose error is within one standard error of
// the best), so 30 noisy trials over 12 knobs do not over-fit.
//
// A knob's importance is the variance of its fitted function over the
// trials (how much of these trials' scores it accounts for), divided by the
// sum of all knobs' variances plus the leave-one-out prediction error of
// the fit; interactions and noise count as unexplained, so the shares sum
// to at most 1. (fANOVA averages over the knob's whole range instead; with
// a study's trials crowded around its best configuration, that turns a
// choice seen once into a large effect, so the report uses the trials. The
// hybrid strategy, which must know where an effect could be found, ranks
// knobs over their whole range.)
//
// The result holds every knob of sp, sorted by Importance, descending
// (ties in space order). It returns an error wrapping ErrTooFewTrials when
// fewer than MinImportanceTrials trials are complete. A constant score
// gives every knob 0.
func Importance(sp *space.Space, trials []Trial) ([]KnobImportance, error) {
	var xs [][]float64
	var ys []float64
	for _, t := range trials {
		if t.State != Complete || t.Kind.Skewed() || math.IsNaN(t.Score) || math.IsInf(t.Score, 0) {
			continue
		}
		xs = append(xs, Encode(sp, t.Params))
		ys = append(ys, t.Score)
	}
	if len(xs) < MinImportanceTrials {
		return nil, fmt.Errorf("knob importance: %w: %d, need at least %d", ErrTooFewTrials, len(xs), MinImportanceTrials)
	}
	imp, _ := FitImportance(sp, xs, ys, OverTrials)
	return imp, nil
}

// MainEffects is a fitted sum of per-knob functions (see Importance).
type MainEffects struct {
	sp        *space.Space
	Intercept float64
	cols      [][2]int    // per knob: [first, end) columns of the design
	Beta      []float64   // coefficients, one per design column
	colMean   []float64   // column means subtracted before the fit
	yScale    float64     // y standard deviation used to scale the fit
	Resid     float64     // residual variance (unscaled)
	Effects   [][]float64 // per knob: fitted function on its grid
}

// features returns knob k's basis values at coordinate u.
func features(k space.Knob, u float64) []float64 {
	if IsChoice(k) {
		f := make([]float64, len(k.Options())-1)
		i := int(math.Round(u))
		if i >= 1 && i <= len(f) {
			f[i-1] = 1
		}
		return f
	}
	f := make([]float64, hatKnots-1)
	for j := 1; j < hatKnots; j++ {
		c := float64(j) / float64(hatKnots-1)
		f[j-1] = math.Max(0, 1-math.Abs(u-c)*float64(hatKnots-1))
	}
	return f
}

// Grid returns the coordinates a knob's fitted function is averaged over:
// every choice, or 101 points of the unit range.
func Grid(k space.Knob) []float64 {
	if IsChoice(k) {
		g := make([]float64, len(k.Options()))
		for i := range g {
			g[i] = float64(i)
		}
		return g
	}
	g := make([]float64, 101)
	for i := range g {
		g[i] = float64(i) / 100
	}
	return g
}

// Averaging is the distribution a knob's fitted function is averaged over.
type Averaging int

const (
	// OverRange: uniformly over the knob's whole scale or choices (where
	// an effect could be found; the hybrid chooses what to search by it).
	OverRange Averaging = iota
	// OverTrials: over the trials' own values (what explained the scores
	// of these trials; Importance reports it).
	OverTrials
)

// FitImportance fits the main-effects model to (xs, ys) and returns the
// importance of every knob (sorted) under the given averaging, and the
// model. xs holds encode()d configurations; len(xs) must be >= 2.
func FitImportance(sp *space.Space, xs [][]float64, ys []float64, over Averaging) ([]KnobImportance, *MainEffects) {
	ks := sp.Knobs()
	m := &MainEffects{sp: sp, cols: make([][2]int, len(ks))}
	p := 0
	for i, k := range ks {
		w := len(features(k, 0))
		m.cols[i] = [2]int{p, p + w}
		p += w
	}
	n := len(xs)
	yMean := 0.0
	for _, y := range ys {
		yMean += y
	}
	yMean /= float64(n)
	ySD := 0.0
	for _, y := range ys {
		ySD += (y - yMean) * (y - yMean)
	}
	ySD = math.Sqrt(ySD / float64(n))
	m.Intercept, m.yScale = yMean, ySD
	out := make([]KnobImportance, len(ks))
	for i, k := range ks {
		out[i] = KnobImportance{Knob: k.Name}
	}
	if ySD == 0 || p == 0 {
		m.Beta = make([]float64, p)
		m.colMean = make([]float64, p)
		return out, m
	}

	X := mat.NewDense(n, p, nil)
	for r, x := range xs {
		for i, k := range ks {
			for j, f := range features(k, x[i]) {
				X.Set(r, m.cols[i][0]+j, f)
			}
		}
	}
	m.colMean = make([]float64, p)
	for c := 0; c < p; c++ {
		s := 0.0
		for r := 0; r < n; r++ {
			s += X.At(r, c)
		}
		m.colMean[c] = s / float64(n)
		for r := 0; r < n; r++ {
			X.Set(r, c, X.At(r, c)-m.colMean[c])
		}
	}
	y := make([]float64, n)
	for r := range ys {
		y[r] = (ys[r] - yMean) / ySD
	}

	var svd mat.SVD
	if !svd.Factorize(X, mat.SVDThin) {
		m.Beta = make([]float64, p)
		return out, m
	}
	s := svd.Values(nil)
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	uty := make([]float64, len(s))
	for j := range s {
		for r := 0; r < n; r++ {
			uty[j] += U.At(r, j) * y[r]
		}
	}
	// Leave-one-out cross-validation over a log grid of ridge penalties
	// (exact for ridge: the LOO residual is r_i / (1 − h_ii)), then the
	// one-standard-error rule: the largest penalty whose LOO error is
	// within one standard error of the smallest, so noise is not fitted
	// as effects.
	type cvPoint struct{ lambda, cv, se, df, rss float64 }
	var cvs []cvPoint
	yhat := make([]float64, n)
	for e := -3.0; e <= 3.0; e += 0.25 {
		lambda := math.Pow(10, e)
		h := make([]float64, len(s))
		df := 0.0
		for j := range s {
			h[j] = s[j] * s[j] / (s[j]*s[j] + lambda)
			df += h[j]
		}
		var sum, sum2, rss float64
		ok := true
		for r := 0; r < n; r++ {
			yhat[r] = 0
			hii := 0.0
			for j := range s {
				u := U.At(r, j)
				yhat[r] += u * h[j] * uty[j]
				hii += h[j] * u * u
			}
			res := y[r] - yhat[r]
			rss += res * res
			if hii > 1-1e-9 {
				ok = false
				break
			}
			l := res / (1 - hii)
			sum += l * l
			sum2 += l * l * l * l
		}
		if !ok || float64(n)-df <= 0.5 {
			continue
		}
		cv := sum / float64(n)
		se := math.Sqrt(math.Max(0, sum2/float64(n)-cv*cv) / float64(n))
		cvs = append(cvs, cvPoint{lambda, cv, se, df, rss})
	}
	if len(cvs) == 0 {
		m.Beta = make([]float64, p)
		return out, m
	}
	best := cvs[0]
	for _, c := range cvs {
		if c.cv < best.cv {
			best = c
		}
	}
	chosen := best
	for _, c := range cvs {
		if c.lambda > chosen.lambda && c.cv <= best.cv+best.se {
			chosen = c
		}
	}
	bestLambda, bestDF, bestRSS := chosen.lambda, chosen.df, chosen.rss
	m.Beta = make([]float64, p)
	for j := range s {
		c := s[j] / (s[j]*s[j] + bestLambda) * uty[j]
		for r := 0; r < p; r++ {
			m.Beta[r] += V.At(r, j) * c
		}
	}
	for r := range m.Beta {
		m.Beta[r] *= ySD
	}
	// The unexplained variance is the leave-one-out error, not the
	// in-sample residual: what the fit cannot predict of a trial it did not
	// see, so a fit that follows the noise does not claim to explain it.
	m.Resid = math.Max(chosen.cv, bestRSS/(float64(n)-bestDF)) * ySD * ySD

	total := m.Resid
	vars := make([]float64, len(ks))
	m.Effects = make([][]float64, len(ks))
	for i, k := range ks {
		g := Grid(k)
		vals := make([]float64, len(g))
		for gi, u := range g {
			vals[gi] = m.Effect(i, u)
		}
		m.Effects[i] = vals
		if over == OverTrials {
			vals = make([]float64, n)
			for r, x := range xs {
				vals[r] = m.Effect(i, x[i])
			}
		}
		mean := 0.0
		for _, f := range vals {
			mean += f
		}
		mean /= float64(len(vals))
		v := 0.0
		for _, f := range vals {
			v += (f - mean) * (f - mean)
		}
		vars[i] = v / float64(len(vals))
		total += vars[i]
	}
	if total > 0 {
		for i := range out {
			out[i].Importance = vars[i] / total
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Importance > out[b].Importance })
	return out, m
}

// Effect returns knob i's fitted contribution at coordinate u (relative
// to the centred design).
func (m *MainEffects) Effect(i int, u float64) float64 {
	k := m.sp.Knobs()[i]
	f := 0.0
	for j, b := range features(k, u) {
		c := m.cols[i][0] + j
		f += m.Beta[c] * (b - m.colMean[c])
	}
	return f
}

// Predict returns the fitted score at coordinates x.
func (m *MainEffects) Predict(x []float64) float64 {
	y := m.Intercept
	if m.Beta == nil {
		return y
	}
	for i := range m.sp.Knobs() {
		y += m.Effect(i, x[i])
	}
	return y
}
