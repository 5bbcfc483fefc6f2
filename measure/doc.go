// Package measure is the measurement vocabulary the trial engine writes
// and the search reads: a trial's per-second Samples, its Outcome, the
// phases a trial goes through, the SteadyRule that finds the end of the
// warm-up on block means (steady.go), and the ScoreRule that scores a
// measurement window as steady-state throughput minus penalties for
// variance, dips, stalls, errors and purge lag (penalty.go), with
// Outcome.Combine aggregating thread levels (measure.go). It imports
// nothing of the project.
package measure
