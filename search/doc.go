// Package search owns the study loop: the baseline first, then the warm
// start (Loop.WarmStart), then the proposals of a Strategy (package
// strategy implements them behind the Proposal/Strategy interface here,
// driven ask/tell so the loop owns budget, commits and cancellation). It
// also owns the unit cube the model-based strategies work in (Encode,
// Decode), knob importance (Importance) and the budget plan (MakePlan),
// which Loop.Run keeps itself: it re-plans after every trial, reserves budget
// for the re-measurements of its Confirmation policy and reports the plan
// through Loop.OnPlan.
//
// Data flow per trial: Strategy.Ask → Objective (the trial engine) →
// Store.FinishTrial (one transaction) → Strategy.Tell. The
// strategies never see processes, the runner never sees the search, and the
// store never decides anything. Study (one process) and Worker (several
// sharing a store) apply one trial policy (policy.go): how an objective's
// result becomes a State, which trials are finished (State.Finished) and
// count towards a cap, and what value a strategy learns from a trial,
// live or told again from the history.
//
// Re-measurement has one owner, the study loop's Confirmation policy
// (confirm.go): it confirms winners, races a close pair (race.go),
// re-measures the two best near the end of the horizon, rechecks the
// baseline and runs the final interleaved A/B phase (ab.go); strategies
// only propose. A configuration's estimate pools its measurements
// (estimate.go) and the best is chosen on shrunk estimates
// (incumbent.go). Welch gives the gain with its 95 % confidence interval
// (abtest.go). What a trial's measurement is (samples, warm-up, score) is
// package measure's.
//
// Minimisation (minimize.go) is the study's last phase: the Minimization
// policy reverts the best trial's changes that do not pay, in dependency
// groups derived from the space's repair, least important first, each
// step measured in interleaved pairs, and checks the minimal configuration
// against the full best; its state (Minimized) is derived from the trials
// alone, so it resumes like the rest.
package search
