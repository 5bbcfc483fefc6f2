package search

import (
	"fmt"
	"math"

	"github.com/autotune/autotune/measure"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Gain is the result of a paired comparison of two configurations measured
// in interleaved pairs (A = the configuration under test, B = the
// baseline): each pair gives the log-ratio of the objective's values, and
// the gain is the geometric mean ratio with a 95 % confidence interval from
// Student's t on the log-ratios (n−1 degrees of freedom). Pairing removes
// the drift of the machine (this machine's baseline moved from 396 to
// 632 tps within 40 minutes, docs/measurement.md): both members of a pair
// are measured within minutes of each other.
type Gain struct {
	// Goal is the compared objective (tps, qps or p95).
	Goal measure.Goal
	// Unit names the objective in String where the goal's name is not
	// the benchmark's own ("tpmC" for TPC-C's tps; "": the goal's name).
	// A relative gain is the same in either.
	Unit string
	// Pairs is the number of pairs the gain is computed from.
	Pairs int
	// NotSteadyLeft is the number of pairs left out for a window that
	// was not steady; NotSteadyKept the number counted with one, where
	// fewer than 2 steady pairs were left (SteadyPairs).
	NotSteadyLeft, NotSteadyKept int
	// MeanA and MeanB are the geometric means of the objective's values
	// (tps, qps, or p95 ms).
	MeanA, MeanB float64
	// SDLog is the standard deviation (n−1) of the pair log-ratios.
	SDLog float64
	// T is the t statistic of the mean log-ratio, DF its degrees of
	// freedom and P the two-sided p-value.
	T, DF, P float64
	// Pct, LoPct and HiPct are the gain and its 95 % interval in percent:
	// for tps and qps (A/B − 1)·100, for p95 (B/A − 1)·100, so a positive
	// gain always means A is better (p95: the baseline's latency is that
	// much higher).
	Pct, LoPct, HiPct float64
	// Significant is true when the interval excludes 0 (P < 0.05).
	Significant bool
}

// Pair is one interleaved pair of measurements of the objective's value
// (tps, qps or p95 ms): A the configuration under test, B the baseline.
// NotSteady is set when either window found no steady start before the
// warm-up cap (measure.Measurement.WarmupCapped).
type Pair struct {
	A, B      float64
	NotSteady bool
}

// SteadyPairs returns the pairs a gain is computed from: those whose two
// windows were steady, when at least 2 are (left: how many pairs with a
// window that was not steady are left out); otherwise every pair (kept:
// how many of them had such a window). A window that found no steady
// start measured a server still moving towards its steady state (or a
// disk whose speed moved under it), so its value is not the steady-state
// throughput the gain is about; a pair holds both arms, so leaving one
// out drops both and keeps the pairing. Where too few steady pairs
// remain, the gain is still given, from all of them, and says so.
func SteadyPairs(pairs []Pair) (use []Pair, left, kept int) {
	for _, p := range pairs {
		if !p.NotSteady {
			use = append(use, p)
		}
	}
	if len(use) >= 2 {
		return use, len(pairs) - len(use), 0
	}
	return pairs, 0, len(pairs) - len(use)
}

// PairedGain compares the pairs at 95 % confidence for goal, those of
// SteadyPairs: pairs with a window that was not steady are left out where
// at least 2 others remain. It returns an error when there are fewer than
// 2 pairs, when a value is not positive, or when every pair has the same
// ratio (no spread to judge by).
func PairedGain(goal measure.Goal, pairs []Pair) (Gain, error) {
	pairs, left, kept := SteadyPairs(pairs)
	if len(pairs) < 2 {
		return Gain{}, fmt.Errorf("paired gain: need at least 2 pairs, have %d", len(pairs))
	}
	logs := make([]float64, len(pairs))
	var la, lb float64
	for i, p := range pairs {
		if !(p.A > 0 && p.B > 0) || math.IsInf(p.A, 0) || math.IsInf(p.B, 0) {
			return Gain{}, fmt.Errorf("paired gain: pair %d has values %g and %g, want both > 0", i+1, p.A, p.B)
		}
		logs[i] = math.Log(p.A / p.B)
		if goal == measure.GoalP95 {
			logs[i] = -logs[i] // lower latency is the gain
		}
		la += math.Log(p.A)
		lb += math.Log(p.B)
	}
	n := float64(len(pairs))
	g := Gain{Goal: goal, Pairs: len(pairs), MeanA: math.Exp(la / n), MeanB: math.Exp(lb / n), DF: n - 1, NotSteadyLeft: left, NotSteadyKept: kept}
	var m float64
	m, g.SDLog = stat.MeanStdDev(logs, nil)
	se := g.SDLog / math.Sqrt(n)
	if !(se > 0) {
		return Gain{}, fmt.Errorf("paired gain: all %d pairs have the same ratio; no spread to judge by", len(pairs))
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: g.DF}
	q := t.Quantile(0.975)
	g.T = m / se
	g.P = 2 * t.Survival(math.Abs(g.T))
	g.Pct, g.LoPct, g.HiPct = pct(m), pct(m-q*se), pct(m+q*se)
	g.Significant = g.LoPct > 0 || g.HiPct < 0
	return g, nil
}

func pct(logRatio float64) float64 { return (math.Exp(logRatio) - 1) * 100 }

// HalfWidthPct returns the expected half-width of the 95 % interval, in
// percent of the ratio, for n pairs whose log-ratios have standard
// deviation sdLog (the t quantile with n−1 degrees of freedom times
// sdLog/√n, as a share): what a planner uses to choose n. NaN for n < 2.
func HalfWidthPct(sdLog float64, n int) float64 {
	if n < 2 {
		return math.NaN()
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return (math.Exp(q*sdLog/math.Sqrt(float64(n))) - 1) * 100
}

// String renders the gain for people: "+12.3 % tps (95 % CI +4.1 ..
// +20.5 %, 5 interleaved pairs, p = 0.012): significant" or, when the
// interval includes 0, "...: NOT significant: the interval includes 0".
func (g Gain) String() string {
	what := string(g.Goal)
	if g.Unit != "" {
		what = g.Unit
	}
	if g.Goal == measure.GoalP95 {
		what = "lower p95 latency"
	}
	steady := ""
	switch {
	case g.NotSteadyLeft > 0:
		steady = fmt.Sprintf("; %d pair(s) left out: a window was NOT STEADY", g.NotSteadyLeft)
	case g.NotSteadyKept > 0:
		steady = fmt.Sprintf(", %d of them with a window NOT STEADY (too few steady pairs to leave them out)", g.NotSteadyKept)
	}
	s := fmt.Sprintf("%+.1f %% %s (95 %% CI %+.1f .. %+.1f %%, %d interleaved pairs%s, p = %.2g)", g.Pct, what, g.LoPct, g.HiPct, g.Pairs, steady, g.P)
	if g.Significant {
		return s + ": significant"
	}
	return s + ": NOT significant: the interval includes 0"
}

// ObjectiveValue returns the value of goal that trial t measured, before
// any penalty: the mean tps or qps of its windows, or the median p95 in
// ms (geometric means across thread levels). NaN when t has no level.
func ObjectiveValue(goal measure.Goal, t Trial) float64 {
	var xs []float64
	for _, l := range t.Levels {
		switch goal {
		case measure.GoalQPS:
			xs = append(xs, l.MeanQPS)
		case measure.GoalP95:
			xs = append(xs, l.P95MS)
		default:
			xs = append(xs, l.MeanTPS)
		}
	}
	if len(xs) == 0 && goal == measure.GoalTPS && t.MeanTPS > 0 {
		return t.MeanTPS
	}
	return measure.GeoMean(xs)
}

// ABPairs returns the complete pairs of the final A/B phase of the best
// trial, in the order they were measured: the best's (ABBest) and the
// baseline's (ABBase) runs of each round (roundPairs). A pair with a
// failed member is left out.
func ABPairs(goal measure.Goal, trials []Trial, best int) []Pair {
	return roundPairs(goal, trials, best, ABBest, ABBase)
}

// roundPairs pairs the final phase's runs of kind a with those of kind b
// (of the best trial best) round by round: the k-th finished run of a
// with the k-th finished run of b, which the phase measures in the same
// round (Confirmation.nextAB: a round measures each arm once, and an
// unfinished run, such as one interrupted by Ctrl-C, is measured again
// in its round). A pair whose member failed, was rejected, pruned or
// infeasible is left out (kindPairs).
func roundPairs(goal measure.Goal, trials []Trial, best int, a, b Kind) []Pair {
	var runs []Trial
	for _, t := range trials {
		if t.RepeatOf == best && (t.Kind == a || t.Kind == b) && t.State.Finished() {
			runs = append(runs, t)
		}
	}
	return kindPairs(goal, runs, a, b)
}

// ABGain returns the gain of the final A/B phase of the best trial on the
// objective (PairedGain of ABPairs). ok is false when there are fewer
// than 2 complete pairs.
func ABGain(goal measure.Goal, trials []Trial, best int) (g Gain, ok bool) {
	g, err := PairedGain(goal, ABPairs(goal, trials, best))
	return g, err == nil
}

// RulesStatus says what a study can tell of its best's gain over the
// expert warm start (the rules): see WarmStartGain.
type RulesStatus int

const (
	// RulesMeasured: Gain holds the best's gain over the warm start from
	// at least 2 complete rounds of the final A/B phase.
	RulesMeasured RulesStatus = iota
	// RulesNone: the study has no warm-start trial (--warm-start=false,
	// or no rule applied to the host and dataset): there are no rules to
	// compare with.
	RulesNone
	// RulesFailed: the warm start's trial failed, was rejected, pruned or
	// infeasible: the rules gave no configuration that could be measured.
	RulesFailed
	// RulesAreBest: the best configuration is the warm start's own.
	RulesAreBest
	// RulesAreBaseline: the warm start's configuration is the baseline's,
	// so the gain over the baseline is the gain over the rules (Gain, when
	// Rounds is at least 2).
	RulesAreBaseline
	// RulesShort: fewer than 2 complete rounds measured the best and the
	// warm start (the warm start's trial or the final phase has not run,
	// or their runs failed).
	RulesShort
)

// RulesGain is the best's gain over the expert warm start.
type RulesGain struct {
	Status RulesStatus
	// Warm is the warm-start trial (Number −1 with RulesNone).
	Warm Trial
	// Gain is the paired gain of the best (A) over the warm start (B);
	// set with RulesMeasured, and with RulesAreBaseline when Rounds ≥ 2
	// (then it is ABGain).
	Gain Gain
	// Rounds is the number of complete pairs the gain is (or would be)
	// computed from.
	Rounds int
}

// WarmStartGain returns the gain of best over the study's expert warm
// start on goal, from the final A/B phase's rounds: the best's (ABBest)
// and the warm start's (ABWarm) runs of each round (roundPairs), as
// ABPairs pairs the best with the baseline.
func WarmStartGain(goal measure.Goal, trials []Trial, best Trial) RulesGain {
	w, ok := warmTrial(trials)
	if !ok {
		return RulesGain{Status: RulesNone, Warm: w}
	}
	r := RulesGain{Warm: w}
	_, base := Best(trials)
	switch {
	case !w.State.Finished():
		r.Status = RulesShort
		return r
	case w.State != Complete || w.Infeasible:
		r.Status = RulesFailed
		return r
	case best.Number >= 0 && w.Params.Key() == best.Params.Key():
		r.Status = RulesAreBest
		return r
	case base.Number >= 0 && w.Params.Key() == base.Params.Key():
		r.Status = RulesAreBaseline
		r.Rounds = len(ABPairs(goal, trials, best.Number))
		r.Gain, _ = ABGain(goal, trials, best.Number)
		return r
	}
	pairs := roundPairs(goal, trials, best.Number, ABBest, ABWarm)
	r.Rounds = len(pairs)
	g, err := PairedGain(goal, pairs)
	if err != nil {
		r.Status = RulesShort
		return r
	}
	r.Status, r.Gain = RulesMeasured, g
	return r
}
