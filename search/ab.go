package search

import (
	"math"
	"slices"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// MinABPairs is the fewest rounds the final A/B phase runs when the
// measured noise allows fewer than Confirmation.ABPairs: at 3 pairs a 95 %
// interval rests on 2 degrees of freedom.
const MinABPairs = 3

// ABTargetPct is the expected 95 % half-width (in %) of the final A/B
// phase's gain at which its rounds stop short of Confirmation.ABPairs: at
// 1.3 % run-to-run noise, 4 pairs give ±2.9 %.
const ABTargetPct = 3.0

// MaxABPairs bounds the A/B phase.
const MaxABPairs = 50

// abPairs returns the number of A/B rounds (pairs, or triples with the
// warm start's arm) the final phase aims for when a round measures arms
// configurations, at noise, the run-to-run noise abNoise measured (0:
// not measured yet). With the noise measured, the fewest rounds from
// MinABPairs up to ABPairs whose expected 95 % interval of a gain is
// within ±ABTargetPct (HalfWidthPct); ABPairs, or the rounds ABShare of
// the budget holds when more, at a noise that needs them all or when it
// is not known.
func (c *Confirmation) abPairs(budget, perTrial time.Duration, arms int, noise float64) int {
	if c == nil {
		return 0
	}
	n := c.ABPairs
	if noise > 0 {
		for m := MinABPairs; m < n; m++ {
			if HalfWidthPct(noise*math.Sqrt2, m) <= ABTargetPct {
				return m
			}
		}
	}
	if budget > 0 && perTrial > 0 && c.ABShare > 0 {
		if fit := int(float64(budget) * c.ABShare / float64(time.Duration(arms)*perTrial)); fit > n {
			n = fit
		}
	}
	return min(n, MaxABPairs)
}

// abNoise returns the run-to-run noise of goal over trials (NoiseSD) once
// it rests on at least 2 degrees of freedom; 0 before.
func abNoise(goal measure.Goal, trials []Trial) float64 {
	if sd, df := noiseStats(goal, trials); df >= 2 {
		return sd
	}
	return 0
}

// abLeft returns how many runs of the final A/B phase are still to come:
// the rounds it aims for (abPairs at perTrial) times the arms of a round
// (abArms) less the A/B runs of the best trial already finished, once
// there is a best that is not the baseline (before that none: the phase
// would have nothing to compare).
func (c *Confirmation) abLeft(trials []Trial, goal measure.Goal, budget, perTrial time.Duration) int {
	if c == nil {
		return 0
	}
	best, base := Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number {
		return 0
	}
	arms := len(abArms(trials, best, base))
	return max(0, arms*c.abPairs(budget, perTrial, arms, abNoise(goal, trials))-len(abRuns(trials, best.Number)))
}

// abArm is one configuration the final A/B phase measures each round.
type abArm struct {
	kind   Kind
	params space.Config
}

// abArms returns the arms of a round of the final A/B phase of best: the
// best (ABBest) and the baseline (ABBase), and the expert warm start
// (ABWarm) when its trial completed feasibly with a configuration that is
// neither the best's nor the baseline's, and the phase has not begun or
// began with it: its first round measures the warm start third, so a phase
// of best begun with two arms (a study resumed from one that had no third
// arm) keeps two, and every warm-start run stays in the round of the
// best's run it is paired with (WarmStartGain).
func abArms(trials []Trial, best, base Trial) []abArm {
	arms := []abArm{{ABBest, best.Params}, {ABBase, base.Params}}
	w, ok := warmTrial(trials)
	if !ok || w.State != Complete || w.Infeasible {
		return arms
	}
	if k := w.Params.Key(); k == best.Params.Key() || k == base.Params.Key() {
		return arms
	}
	if runs := abRuns(trials, best.Number); len(runs) >= 3 && !slices.ContainsFunc(runs, func(t Trial) bool { return t.Kind == ABWarm }) {
		return arms
	}
	return append(arms, abArm{ABWarm, w.Params})
}

// warmTrial returns the study's expert warm-start trial (the first trial
// of kind Expert, in whatever state), false when the study has none.
func warmTrial(trials []Trial) (Trial, bool) {
	for _, t := range trials {
		if t.Kind == Expert {
			return t, true
		}
	}
	return Trial{Number: -1}, false
}

// abRuns returns the finished A/B runs of the best trial number.
func abRuns(trials []Trial, best int) []Trial {
	var out []Trial
	for _, t := range trials {
		if (t.Kind == ABBest || t.Kind == ABBase || t.Kind == ABWarm) && t.RepeatOf == best && t.State.Finished() {
			out = append(out, t)
		}
	}
	return out
}

// nextAB returns the next run of the final A/B phase: rounds of the
// arms (abArms: the best configuration, the baseline and, where it
// differs from both, the expert warm start), each round in the order of
// the one before rotated by one (A B, B A, A B, ... for two arms; A B W,
// B W A, W A B, ... for three: a cyclic Latin square, so over each cycle
// of rounds a steady drift of the machine favours no arm), until the
// phase has its rounds, then, with extend, while what is left of the
// budget (left) holds a whole round at finalRunCost a run, up to
// MaxABPairs; false when there is
// nothing to compare (no best other than the baseline), when the rounds
// are done, or when the best's and the baseline's runs keep failing.
//
// The warm start's arm is left out when its runs keep failing (more
// failures than rounds: the gain over the baseline must not be lost with
// it) and, before its first run, when the budget is set and what is left
// of it (left) holds fewer than two and a half runs a round at the
// median trial cost (estimate, as the rounds run; not finalRunCost, the
// upper quartile the reserve is held at, which slow confirmations can
// raise past what the rounds cost): the reserve was planned for two arms
// (the best changed after the plan) and a third would overrun the budget.
func (c *Confirmation) nextAB(trials []Trial, goal measure.Goal, budget, left time.Duration, extend bool) (Proposal, RepeatLink, bool) {
	if c == nil {
		return Proposal{}, RepeatLink{}, false
	}
	best, base := Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number {
		return Proposal{}, RepeatLink{}, false
	}
	arms := abArms(trials, best, base)
	per := estimate(trials)
	noise := abNoise(goal, trials)
	pairs := c.abPairs(budget, per, len(arms), noise)
	count, failed := map[Kind]int{}, map[Kind]int{}
	for _, r := range abRuns(trials, best.Number) {
		count[r.Kind]++
		if unscored(r) {
			failed[r.Kind]++
		}
	}
	cost := finalRunCost(trials, per)
	if len(arms) == 3 {
		short := budget > 0 && count[ABWarm] == 0 && per > 0 && left < time.Duration(5*pairs)*per/2
		if short || failed[ABWarm] > pairs {
			arms = arms[:2]
			pairs = c.abPairs(budget, per, 2, noise)
		}
	}
	n := len(arms)
	more := 0
	if extend && cost > 0 {
		more = int(left / (time.Duration(n) * cost))
	}
	runs, round := 0, math.MaxInt
	for _, a := range arms {
		runs += count[a.kind]
		round = min(round, count[a.kind])
	}
	if failed[ABBest]+failed[ABBase] > pairs || runs >= n*MaxABPairs {
		return Proposal{}, RepeatLink{}, false
	}
	// Past its rounds the phase completes a round it began, and begins
	// another while the budget holds one (the reserve is held at a
	// pessimistic run cost, so what it leaves narrows the interval).
	if round >= pairs && runs == n*round && more < 1 {
		return Proposal{}, RepeatLink{}, false
	}
	// The round is the fewest runs of an arm; within it the arms go in
	// the order rotated by the round, and the first one still short of
	// the round runs.
	for i := range n {
		a := arms[(round+i)%n]
		if count[a.kind] == round {
			return Proposal{Config: a.params.Clone(), Kind: a.kind, Handle: -1}, RepeatLink{RepeatOf: best.Number}, true
		}
	}
	return Proposal{}, RepeatLink{}, false
}
