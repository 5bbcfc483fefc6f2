// Package search owns the study loop and the strategies that propose
// configurations: the baseline first, then TPE (goptuna, driven ask/tell so
// autotune owns budget, commits and cancellation). It also owns scoring:
// turning a trial's per-second samples into one number.
//
// Data flow per trial: Strategy.Ask → Objective (built by cmd from runner
// pieces) → Store.FinishTrial (one transaction) → Strategy.Tell. The
// strategies never see processes, the runner never sees the search, and the
// store never decides anything.
package search
