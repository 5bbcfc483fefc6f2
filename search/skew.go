package search

import (
	"fmt"

	"github.com/autotune/autotune/measure"
)

// Skewed reports whether k is a run of the skew check (SkewBest,
// SkewBase): measured under the second variant of the workload, so it
// never counts towards a configuration's estimate, the run-to-run noise,
// the strategy's history, the knob importance or the trial cap.
func (k Kind) Skewed() bool { return k == SkewBest || k == SkewBase }

// SkewCheck is the policy of the final phase that measures the best and
// the baseline again under a second variant of the workload (another
// access distribution: search --skew-check), on the same server, dataset,
// threads and durations, in interleaved pairs as the final A/B phase
// measures them: after that phase's rounds and before the minimisation,
// so the best's gain is known under both workloads (SkewOf). A nil
// *SkewCheck turns the phase off.
type SkewCheck struct {
	// Label names the variant ("--rand-type=uniform"): every run of the
	// phase records it in Trial.Source, and SkewOf pairs the runs of one
	// label.
	Label string
	// Objective measures a run of the phase under the variant.
	Objective Objective
}

// splitSkewed splits trials into the skew check's runs (Kind.Skewed) and
// the rest, each in trial order.
func splitSkewed(trials []Trial) (own, skewed []Trial) {
	for _, t := range trials {
		if t.Kind.Skewed() {
			skewed = append(skewed, t)
		} else {
			own = append(own, t)
		}
	}
	return own, skewed
}

// skewRuns returns the finished runs of the skew check of label for the
// best trial best, in trial order.
func skewRuns(trials []Trial, best int, label string) []Trial {
	var out []Trial
	for _, t := range trials {
		if t.Kind.Skewed() && t.RepeatOf == best && t.Source == label && t.State.Finished() {
			out = append(out, t)
		}
	}
	return out
}

// skewPairs returns the pairs the skew check aims for: as many as the
// final A/B phase aims for with two arms (Confirmation.abPairs), at least
// MinABPairs.
func (s *Loop) skewPairs(trials []Trial) int {
	return max(MinABPairs, s.Confirm.abPairs(s.Budget, estimate(trials), 2, abNoise(s.Goal, trials)))
}

// skewLeft returns how many runs of the skew check are still to come
// once there is a best other than the baseline (0 before, and with the
// check off): two a pair (skewPairs) less those finished.
func (s *Loop) skewLeft(trials, skewed []Trial) int {
	if s.Skew == nil {
		return 0
	}
	best, base := Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number {
		return 0
	}
	return max(0, 2*s.skewPairs(trials)-len(skewRuns(skewed, best.Number, s.Skew.Label)))
}

// nextSkew returns the next run of the skew check: rounds of the best
// (SkewBest) and the baseline (SkewBase), the order reversed round by
// round (A B, B A, ...), each run linked to the best trial and labelled
// with the variant, until it has skewPairs rounds; false when the check
// is off, when there is nothing to compare (no best other than the
// baseline), when its rounds are done, or when its runs keep failing
// (more failures than rounds).
func (s *Loop) nextSkew(trials, skewed []Trial) (Proposal, RepeatLink, bool) {
	if s.Skew == nil {
		return Proposal{}, RepeatLink{}, false
	}
	best, base := Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number {
		return Proposal{}, RepeatLink{}, false
	}
	pairs := s.skewPairs(trials)
	count, failed := map[Kind]int{}, 0
	for _, r := range skewRuns(skewed, best.Number, s.Skew.Label) {
		count[r.Kind]++
		if unscored(r) {
			failed++
		}
	}
	round := min(count[SkewBest], count[SkewBase])
	if failed > pairs || (round >= pairs && count[SkewBest] == count[SkewBase]) {
		return Proposal{}, RepeatLink{}, false
	}
	arms := []abArm{{SkewBest, best.Params}, {SkewBase, base.Params}}
	for i := range 2 {
		a := arms[(round+i)%2]
		if count[a.kind] == round {
			return Proposal{Config: a.params.Clone(), Kind: a.kind, Source: s.Skew.Label, Handle: -1}, RepeatLink{RepeatOf: best.Number}, true
		}
	}
	return Proposal{}, RepeatLink{}, false
}

// Skew is what the skew check found of the best trial's gain under one
// variant of the workload, beside its gain under the study's own.
type Skew struct {
	// Label names the variant ("--rand-type=uniform").
	Label string
	// Primary is the final A/B phase's gain (ABGain), PrimaryOK whether
	// there is one.
	Primary   Gain
	PrimaryOK bool
	// Gain is the paired gain under the variant, from Pairs complete
	// pairs; Measured is false with fewer than 2 (then Gain is zero).
	Gain     Gain
	Pairs    int
	Measured bool
	// Fragile reports that the configuration is workload-fragile: its
	// gain under the study's workload is significant and positive, and
	// under the variant its 95 % interval includes 0 or lies below it.
	Fragile bool
}

// SkewLabels returns the labels of the skew checks trials hold for the
// best trial best, in the order first measured.
func SkewLabels(trials []Trial, best int) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range trials {
		if t.Kind.Skewed() && t.RepeatOf == best && !seen[t.Source] {
			seen[t.Source] = true
			out = append(out, t.Source)
		}
	}
	return out
}

// SkewOf returns the skew check of label for the best trial best on
// goal: the final A/B phase's gain over the baseline (ABGain) and the
// gain of the skew check's pairs (each round's SkewBest run with its
// SkewBase run, a failed member leaving its pair out), and whether the
// configuration is workload-fragile. trials holds the skew check's runs
// beside the study's others.
func SkewOf(goal measure.Goal, trials []Trial, best int, label string) Skew {
	k := Skew{Label: label}
	k.Primary, k.PrimaryOK = ABGain(goal, trials, best)
	pairs := kindPairs(goal, skewRuns(trials, best, label), SkewBest, SkewBase)
	k.Pairs = len(pairs)
	if g, err := PairedGain(goal, pairs); err == nil {
		k.Gain, k.Measured = g, true
	}
	k.Fragile = k.PrimaryOK && k.Primary.Significant && k.Primary.LoPct > 0 && k.Measured && k.Gain.LoPct <= 0
	return k
}

// String renders the skew check for people: "under --rand-type=uniform:
// +3.1 % tps (95 % CI ...): NOT significant: ...", followed, when
// Fragile, by "; WORKLOAD-FRAGILE: ...", or why there is no gain.
func (k Skew) String() string {
	if !k.Measured {
		return fmt.Sprintf("under %s: not measured: %d complete pair(s), 2 needed (the skew check runs after the final A/B phase)", k.Label, k.Pairs)
	}
	s := fmt.Sprintf("under %s: %s", k.Label, k.Gain)
	if k.Fragile {
		s += fmt.Sprintf("; WORKLOAD-FRAGILE: the gain of %+.1f %% under the study's workload is not shown under %s", k.Primary.Pct, k.Label)
	}
	return s
}
