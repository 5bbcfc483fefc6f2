// Package search owns the study loop and the strategies that propose
// configurations: the baseline first, then TPE (goptuna, driven ask/tell so
// autotune owns budget, commits and cancellation). It also owns scoring:
// turning a trial's per-second samples into one number.
//
// Data flow per trial: Strategy.Ask → Objective (built by cmd from runner
// pieces) → Store.FinishTrial (one transaction) → Strategy.Tell. The
// strategies never see processes, the runner never sees the search, and the
// store never decides anything.
//
// Measurement (issue 4): SteadyRule detects the end of warm-up on block
// means (steady.go), ScoreRule scores a measurement window as steady-state
// throughput minus penalties for variance, dips, stalls, errors and purge
// lag (penalty.go), Outcome.Combine aggregates thread levels (measure.go),
// the Confirmation policy re-measures winners, rechecks the baseline and
// runs the final interleaved A/B phase (confirm.go), and Welch gives the
// gain with its 95 % confidence interval (abtest.go).
package search
