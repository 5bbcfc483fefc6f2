package measure

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// ScoreRuleVersion names the current score formula, stored with every
// study so that scores of different formulas are never ranked together:
// "slow-variability" charges λ·SlowVariability (earlier studies charged
// λ·sd of the per-second values and store none).
const ScoreRuleVersion = "slow-variability"

// Goal is what a study optimises (--objective).
type Goal string

const (
	// GoalTPS maximises transactions per second (the default).
	GoalTPS Goal = "tps"
	// GoalQPS maximises queries per second.
	GoalQPS Goal = "qps"
	// GoalP95 minimises the per-second p95 latency (ms); the score is its
	// negated cost so that higher is still better.
	GoalP95 Goal = "p95"
)

// Goals lists the accepted --objective values.
var Goals = []Goal{GoalTPS, GoalQPS, GoalP95}

// ScoreRule turns the measurement window of one run into a score: the
// steady-state value of the goal minus penalties. For the throughput goals
// (x = per-second tps, or qps for GoalQPS):
//
//	m      = mean(x)
//	score  = m − λ·slow(x)
//	           − m·DipWeight·dips/n − m·StallWeight·stalls/n
//	           − m·(ErrWeight·err/s + ReconnWeight·reconn/s)/tps
//	           − m·PurgeWeight·max(0, hll growth/s)/tps
//
// where slow(x) is the variability of x around its level at the scale of
// Block seconds: x is detrended (least-squares line over the window, so a
// slope left from warm-up is not charged as instability), cut into blocks
// of Block seconds, and slow(x) = √max(0, var(block means) − mean
// within-block variance / Block), the spread of the block means beyond
// what per-second jitter alone gives them (a one-way random-effects
// estimate; per-second values move 10–15 % on a healthy server here,
// docs/measurement.md, and that jitter is the benchmark's sampling, not
// the server's instability). Windows shorter than 3 blocks use 1 s blocks
// and the detrended per-second standard deviation. n is the window length in seconds, dips the seconds with
// 0 < x < DipShare·median(x), stalls the seconds with x = 0, err/s and
// reconn/s the window means reported by the benchmark, tps the window mean
// tps, and hll growth/s the least-squares slope of the InnoDB history list
// length sampled every second (entries per second; no penalty when it was
// not sampled). Every penalty but the variance one is a share of m, so the
// terms keep their meaning whatever the goal's unit.
//
// For GoalP95 the cost c = median of the per-second p95 latencies (ms) is
// penalised the same way (c + λ·sd(p95) + c·DipWeight·dips/n + ...), with
// dips and stalls judged on tps, and score = −cost.
type ScoreRule struct {
	// Goal is the optimised quantity.
	Goal Goal
	// Lambda weighs the slow variability of the per-second values (see
	// the formula above).
	Lambda float64
	// Block is the block length of that variability in seconds (0: 5).
	Block int
	// DipShare: a second under DipShare × median is a dip (0..1).
	DipShare float64
	// DipWeight and StallWeight: the extra share of the mean that one
	// dip/stall second costs, per second of window.
	DipWeight, StallWeight float64
	// ErrWeight and ReconnWeight: transactions lost per error and per
	// reconnect.
	ErrWeight, ReconnWeight float64
	// PurgeWeight: share of a transaction charged per history list entry
	// of growth (purge debt left for later).
	PurgeWeight float64
	// MaxP95MS makes a run whose p95 (median of the per-second values)
	// exceeds it infeasible; 0 means no limit.
	MaxP95MS float64
}

// DefaultScoreRule returns the documented defaults: goal tps, λ = 0.5,
// dips under 50 % of the median costing 1 extra second each, stalls 2,
// one lost transaction per error, 10 per reconnect, and half a transaction
// per history-list entry of growth.
func DefaultScoreRule() ScoreRule {
	return ScoreRule{Goal: GoalTPS, Lambda: DefaultLambda, DipShare: 0.5, DipWeight: 1, StallWeight: 2,
		ErrWeight: 1, ReconnWeight: 10, PurgeWeight: 0.5}
}

// Validate returns an error naming the bad field.
func (r ScoreRule) Validate() error {
	switch {
	case r.Goal != GoalTPS && r.Goal != GoalQPS && r.Goal != GoalP95:
		return fmt.Errorf("objective %q: want tps, qps or p95", r.Goal)
	case !(r.Lambda >= 0):
		return fmt.Errorf("lambda %g: want >= 0", r.Lambda)
	case !(r.DipShare >= 0 && r.DipShare < 1):
		return fmt.Errorf("dip share %g: want 0 <= share < 1", r.DipShare)
	case !(r.DipWeight >= 0 && r.StallWeight >= 0 && r.ErrWeight >= 0 && r.ReconnWeight >= 0 && r.PurgeWeight >= 0):
		return errors.New("penalty weights: want >= 0")
	case !(r.MaxP95MS >= 0):
		return fmt.Errorf("max p95 %g ms: want >= 0", r.MaxP95MS)
	}
	return nil
}

// Penalties are the components of a score, each stored with the trial.
type Penalties struct {
	// Variance, Dips, Stalls, Errors and Purge are the amounts subtracted
	// from the goal's value (in its unit: tps, qps, or ms of cost for p95).
	Variance float64 `json:"variance"`
	Dips     float64 `json:"dips"`
	Stalls   float64 `json:"stalls"`
	Errors   float64 `json:"errors"`
	Purge    float64 `json:"purge"`
	// DipSeconds and StallSeconds count the window's dip and stall seconds.
	DipSeconds   int `json:"dip_s"`
	StallSeconds int `json:"stall_s"`
	// ErrPS and ReconnPS are the window means of err/s and reconn/s.
	ErrPS    float64 `json:"err_ps"`
	ReconnPS float64 `json:"reconn_ps"`
	// HLLGrowthPS is the growth of the history list length in entries per
	// second over the window; NaN when it was not sampled.
	HLLGrowthPS float64 `json:"-"`
}

// Eval is the scored measurement window of one run.
type Eval struct {
	// Score is the objective value (higher is better).
	Score float64
	// Base is the goal's value before penalties: mean tps/qps, or the
	// median p95 in ms for GoalP95.
	Base float64
	// MeanTPS, StdTPS and MeanQPS describe the window (tps, qps).
	MeanTPS, StdTPS, MeanQPS float64
	// P95MS is the median of the per-second latency percentile (ms); NaN
	// when the benchmark reported none.
	P95MS float64
	// Seconds is the window length (number of per-second samples).
	Seconds int
	// Penalties are the score's components.
	Penalties
	// Infeasible is set when P95MS exceeds the rule's MaxP95MS.
	Infeasible bool
}

// Evaluate scores window, the per-second samples of one measurement window
// (warm-up excluded), by the rule. It returns an error when the window
// holds fewer than MinMeasureSamples samples, when the goal or a p95 limit
// needs latencies the benchmark did not report, or when the rule is
// invalid.
func (r ScoreRule) Evaluate(window []Sample) (Eval, error) {
	if err := r.Validate(); err != nil {
		return Eval{}, fmt.Errorf("score: %w", err)
	}
	n := len(window)
	if n < MinMeasureSamples {
		return Eval{}, fmt.Errorf("score: %d samples in the measurement window, need at least %d", n, MinMeasureSamples)
	}
	tps := make([]float64, n)
	qps := make([]float64, n)
	var lat, hllT, hllV []float64
	var errSum, reconnSum float64
	for i, s := range window {
		tps[i], qps[i] = s.TPS, s.QPS
		if s.LatPct > 0 {
			lat = append(lat, s.LatMS)
		}
		errSum += s.ErrPS
		reconnSum += s.ReconnPS
		if s.HLL != nil {
			hllT = append(hllT, s.T)
			hllV = append(hllV, *s.HLL)
		}
	}
	e := Eval{Seconds: n, P95MS: math.NaN()}
	e.MeanTPS, e.StdTPS = stat.MeanStdDev(tps, nil)
	e.MeanQPS = Mean(qps)
	if len(lat) > 0 {
		e.P95MS = median(append([]float64(nil), lat...))
	}
	if (r.Goal == GoalP95 || r.MaxP95MS > 0) && len(lat) == 0 {
		return Eval{}, errors.New("score: the benchmark reported no latency percentile, needed by --objective p95 and --max-p95")
	}
	thr := tps
	if r.Goal == GoalQPS {
		thr = qps
	}
	med := median(append([]float64(nil), thr...))
	for _, x := range thr {
		switch {
		case x <= 0:
			e.StallSeconds++
		case x < r.DipShare*med:
			e.DipSeconds++
		}
	}
	e.ErrPS, e.ReconnPS = errSum/float64(n), reconnSum/float64(n)
	e.HLLGrowthPS = math.NaN()
	if len(hllV) >= MinMeasureSamples {
		e.HLLGrowthPS = regress(hllT, hllV)
	}

	var value, sd float64
	switch r.Goal {
	case GoalP95:
		value = e.P95MS
		sd = SlowVariability(lat, r.Block)
	case GoalQPS:
		value = e.MeanQPS
		sd = SlowVariability(qps, r.Block)
	default:
		value = e.MeanTPS
		sd = SlowVariability(tps, r.Block)
	}
	if math.IsNaN(sd) {
		sd = 0
	}
	e.Base = value
	fn := float64(n)
	e.Variance = r.Lambda * sd
	e.Dips = value * r.DipWeight * float64(e.DipSeconds) / fn
	e.Stalls = value * r.StallWeight * float64(e.StallSeconds) / fn
	if e.MeanTPS > 0 {
		e.Errors = value * (r.ErrWeight*e.ErrPS + r.ReconnWeight*e.ReconnPS) / e.MeanTPS
		if g := e.HLLGrowthPS; !math.IsNaN(g) && g > 0 {
			e.Purge = value * r.PurgeWeight * g / e.MeanTPS
		}
	}
	total := e.Variance + e.Dips + e.Stalls + e.Errors + e.Purge
	if r.Goal == GoalP95 {
		e.Score = -(value + total)
	} else {
		e.Score = value - total
	}
	e.Infeasible = r.MaxP95MS > 0 && e.P95MS > r.MaxP95MS
	return e, nil
}

// regress returns the least-squares slope of ys against xs.
func regress(xs, ys []float64) float64 {
	_, b := stat.LinearRegression(xs, ys, nil, false)
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return math.NaN()
	}
	return b
}

// AggregateScore combines the scores of one trial measured at several
// thread counts: the geometric mean of the per-level scores, so a 10 %
// gain at any one level moves the aggregate by the same factor whatever
// that level's throughput. For the throughput goals a level scoring at or
// below 1 counts as 1 (a level that collapses drags the aggregate towards
// 0 instead of making it undefined); for GoalP95 the costs (−score) are
// combined and the result negated. One level returns its score unchanged.
func AggregateScore(goal Goal, scores []float64) float64 {
	if len(scores) == 1 {
		return scores[0]
	}
	if len(scores) == 0 {
		return math.NaN()
	}
	sign := 1.0
	if goal == GoalP95 {
		sign = -1
	}
	logSum := 0.0
	for _, s := range scores {
		logSum += math.Log(math.Max(sign*s, 1))
	}
	return sign * math.Exp(logSum/float64(len(scores)))
}

// GeoMean returns the geometric mean of positive xs, ignoring NaN and
// non-positive values (NaN when none is left).
func GeoMean(xs []float64) float64 {
	logSum, n := 0.0, 0
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) {
			logSum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(logSum / float64(n))
}

// SlowVariability returns the standard deviation of x (per-second values)
// around its least-squares line at the scale of blocks of block seconds
// (0 means 5), beyond per-second jitter: √max(0, var(block means) −
// mean within-block variance / block), over the complete blocks. With
// fewer than 3 complete blocks it returns the standard deviation of the
// detrended per-second values. 0 for fewer than 3 values.
func SlowVariability(x []float64, block int) float64 {
	n := len(x)
	if n < 3 {
		return 0
	}
	if block <= 0 {
		block = 5
	}
	idx := make([]float64, n)
	for i := range idx {
		idx[i] = float64(i)
	}
	a, b := stat.LinearRegression(idx, x, nil, false)
	res := make([]float64, n)
	for i, v := range x {
		res[i] = v - (a + b*float64(i))
	}
	nb := n / block
	if nb < 3 || block < 2 {
		_, sd := stat.MeanStdDev(res, nil)
		return sd
	}
	means := make([]float64, nb)
	within := 0.0
	for k := 0; k < nb; k++ {
		m, sd := stat.MeanStdDev(res[k*block:(k+1)*block], nil)
		means[k] = m
		within += sd * sd
	}
	within /= float64(nb)
	_, between := stat.MeanStdDev(means, nil)
	excess := between*between - within/float64(block)
	if excess <= 0 {
		return 0
	}
	return math.Sqrt(excess)
}
