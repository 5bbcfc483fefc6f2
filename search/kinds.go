package search

// Kind says which part of the study proposed a trial. Every kind is
// stored as its text in trials.db (trials.kind); each constant's Go name
// spells its stored value.
type Kind string

const (
	// Baseline is trial 0: the server defaults (the empty Config).
	Baseline Kind = "baseline"
	// Expert is the warm-start configuration an expert would try first,
	// derived from the host and the dataset (see ExpertConfig).
	Expert Kind = "expert"
	// Seed is a configuration the user handed to the study (--seed-from: a
	// my.cnf or the best of an earlier study), measured right after the
	// baseline; Trial.Source names where it came from.
	Seed Kind = "seed"
	// Retry repeats the config of an interrupted trial.
	Retry Kind = "retry"

	// Proposed by the strategies.

	// Sampled came from the search strategy (TPE, random, or the hybrid's
	// model step).
	Sampled Kind = "sampled"
	// Screen is a point of the hybrid's space-filling screening design.
	Screen Kind = "screen"
	// Coordinate is a coordinate-descent step: the incumbent with one knob
	// moved to another level.
	Coordinate Kind = "coordinate"
	// Repeat is a run of the study's final race (Confirmation): one of the
	// two configurations with the best estimates measured again. Scheduled
	// by the study, not a strategy, it still counts as a search trial
	// (towards Loop.MaxTrials), as it takes a search trial's turn.
	Repeat Kind = "repeat"
	// Refine is a local step: the incumbent with one to three knobs moved
	// (the local search, the probes, a diagnosis).
	Refine Kind = "refine"

	// Re-measurements (Extra): they repeat a configuration already
	// measured, are scheduled by the study's Confirmation policy (never by
	// the strategy), and do not count towards Loop.MaxTrials.

	// Confirm re-measures a trial that beat the incumbent on its first
	// measurement, before it may become the best.
	Confirm Kind = "confirm"
	// Recheck re-measures the baseline at intervals, so drift of the
	// machine shows.
	Recheck Kind = "recheck"
	// ABBest and ABBase are the final interleaved runs (A B A B ...) of the
	// best configuration and the baseline that give the gain with its
	// confidence interval.
	ABBest Kind = "ab-best"
	ABBase Kind = "ab-base"
	// ABWarm is the third arm of the final runs: the expert warm start's
	// configuration, measured in the same rounds as ABBest and ABBase when
	// it is neither the best nor the baseline, so the best's gain over the
	// rules has an interval too (WarmStartGain).
	ABWarm Kind = "ab-warm"
	// SkewBest and SkewBase are the runs of the skew check (SkewCheck):
	// the best configuration and the baseline measured again in
	// interleaved pairs under a second variant of the workload (another
	// access distribution), named by Trial.Source. Never pooled into an
	// estimate, the run-to-run noise or the strategy's history.
	SkewBest Kind = "skew-best"
	SkewBase Kind = "skew-base"

	// Minimisation runs (Minimizing): like the re-measurements they repeat
	// configurations derived from the best trial, are scheduled by the
	// study's Minimization policy, carry the number of the minimised best
	// trial in RepeatOf, do not count towards Loop.MaxTrials and never
	// pool into a configuration's estimate (so the best trial stays the
	// best while it is minimised).

	// MinCurrent is a run of the current configuration of a minimisation
	// step (the best with the changes reverted so far).
	MinCurrent Kind = "min-current"
	// MinRevert is a run of the current configuration with the step's
	// changes reverted to the baseline's values.
	MinRevert Kind = "min-revert"
	// Minimal is a run of the minimal configuration in the final check,
	// paired with a MinFull run of the full best.
	Minimal Kind = "minimal"
	// MinFull is a run of the full best configuration in the final check.
	MinFull Kind = "min-full"
)

// Known reports whether k is one of the kinds above the re-measurements:
// the baseline, the starts, retries and the strategies' proposals (Extra
// covers the rest).
func (k Kind) Known() bool {
	switch k {
	case Baseline, Sampled, Retry, Expert, Screen, Coordinate, Repeat, Refine, Seed:
		return true
	}
	return false
}
