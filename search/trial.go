package search

import (
	"time"

	"github.com/autotune/autotune/space"
)

// State is the lifecycle state of a trial as stored in trials.db.
type State string

const (
	// Running: started and not finished. A Running trial found at start-up
	// belongs to a killed process; the study marks it Interrupted.
	Running State = "running"
	// Complete: measured and scored.
	Complete State = "complete"
	// Failed: the server refused the config, crashed, or the benchmark
	// failed. The trial carries the reason; the study goes on.
	Failed State = "failed"
	// Interrupted: abandoned by Ctrl-C or a killed process; never counted,
	// its config is tried again on resume.
	Interrupted State = "interrupted"
	// Rejected: refused before any server started (e.g. its memory
	// estimate exceeds the budget). Counted as finished, told a penalised
	// value, never measured.
	Rejected State = "rejected"
	// Pruned: stopped early because it was clearly worse than the
	// incumbent (Trial.PruneBelow). Counted as finished, told its partial
	// score, never the best.
	Pruned State = "pruned"
)

// Finished reports whether a trial in state s is done and counts towards
// the trial cap: complete, failed, rejected or pruned.
func (s State) Finished() bool { return s == Complete || s == Failed || s == Rejected || s == Pruned }

// Sample is one per-second benchmark report.
type Sample struct {
	// T is seconds since the benchmark started (1, 2, 3, ...).
	T float64
	// Warmup is true for samples taken before the measurement window.
	Warmup bool
	// TPS and QPS are transactions and queries per second.
	TPS, QPS float64
	// Reads, Writes and Other are queries per second by kind.
	Reads, Writes, Other float64
	// LatMS is the latency percentile (LatPct, e.g. 95) in milliseconds;
	// 0 with LatPct 0 when the benchmark did not report one.
	LatPct, LatMS float64
	// ErrPS and ReconnPS are errors and reconnects per second.
	ErrPS, ReconnPS float64
	// Threads is the client thread count of the run the sample belongs to
	// (0 when unknown); T restarts at 1 for each thread level.
	Threads int
	// HLL is the InnoDB history list length sampled during this second;
	// nil when it was not sampled.
	HLL *float64
}

// Outcome is what one trial's measurement produced.
type Outcome struct {
	// Score is the objective value (higher is better), see ScoreRule.
	Score float64
	// MeanTPS and StdTPS are the mean and sample standard deviation of the
	// per-second tps of the measurement window.
	MeanTPS, StdTPS float64
	// P95MS is the median over the measurement window of the per-second
	// latency percentile, in milliseconds (0 when not reported).
	P95MS float64
	// Samples holds every per-second sample, warm-up included.
	Samples []Sample
	// Summary is the benchmark's own final report as JSON (may be empty).
	Summary string
	// ServerVersion is SELECT VERSION() of the server that ran the trial.
	ServerVersion string
	// Restarted reports whether the server was (re)started for the trial.
	Restarted bool
	// Phases holds how long each phase took: restore, start, warmup,
	// measure, stop (seconds).
	Phases map[string]float64
	// Failure is non-empty when the trial failed (config refused, server
	// crash, benchmark error) or was rejected; it names the cause.
	Failure string
	// Rejected marks a trial refused before a server started (with the
	// reason in Failure): it ends in state Rejected.
	Rejected bool
	// Pruned marks a trial stopped early as clearly worse than the
	// incumbent: it ends in state Pruned, scored on its partial window.
	Pruned bool
	// ErrorLog is an excerpt of the server's error log for this start when
	// the trial failed (the [ERROR] lines and the last lines).
	ErrorLog string
	// Measurement holds the warm-up, score components and thread levels.
	Measurement
}

// Trial is one measured (or attempted) configuration of a study.
type Trial struct {
	// Study is the study name.
	Study string
	// Number is the trial number in the study, from 0 (the baseline).
	Number int
	// State is the lifecycle state.
	State State
	// Kind says who proposed the trial.
	Kind Kind
	// Source names the seed a Seed trial measures (the --seed-from
	// argument as given: "prod.cnf", "old.db:study1"); "" for other kinds.
	Source string
	// Params is the configuration; empty for the baseline.
	Params space.Config
	// Started and Ended bound the trial in wall-clock time (Ended is zero
	// while Running).
	Started, Ended time.Time
	// Outcome is filled when the trial ends (Complete or Failed).
	Outcome
	// RepeatLink links re-measurements to the trial they repeat.
	RepeatLink
	// Why says what measurement led the strategy to propose the trial
	// (Proposal.Why), for the progress lines; not stored.
	Why string
	// PruneBelow, when > 0, lets the measurement stop the trial early
	// once its throughput (the goal's: tps or qps) stays below it (see
	// trial.PruneRule). Set by the study for new configurations; not
	// stored.
	PruneBelow float64
}

// Duration is how long the trial took (0 while running).
func (t Trial) Duration() time.Duration {
	if t.Ended.IsZero() {
		return 0
	}
	return t.Ended.Sub(t.Started)
}
