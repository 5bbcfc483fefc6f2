package search

import (
	"time"

	"github.com/autotune/autotune/measure"
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
	// Fingerprint is the key of the conditions the trial was measured
	// under (storage.Fingerprint: server, benchmark, durability, host,
	// dataset), stamped by the store the study writes through; "" in
	// trials made before it was recorded. The search never reads it: the
	// store gives a study only the trials of its own fingerprint.
	Fingerprint string
	// Started and Ended bound the trial in wall-clock time (Ended is zero
	// while Running).
	Started, Ended time.Time
	// Outcome is filled when the trial ends (Complete or Failed).
	measure.Outcome
	// RepeatLink links re-measurements to the trial they repeat.
	RepeatLink
	// Why says what measurement led the strategy to propose the trial
	// (Proposal.Why), for the progress lines; not stored.
	Why string
	// PruneBelow, when > 0, lets the measurement stop the trial early
	// once its throughput (the goal's: tps or qps) stays below it (see
	// engine.PruneRule). Set by the study for new configurations; not
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
