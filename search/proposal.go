package search

import (
	"context"

	"github.com/autotune/autotune/space"
)

// Proposal is a configuration a strategy wants measured.
type Proposal struct {
	// Config is the configuration; knobs absent keep the server default.
	Config space.Config
	// Kind says who proposed it.
	Kind Kind
	// Source names where a seed came from (Kind Seed: the --seed-from
	// argument as given, e.g. "prod.cnf" or "old.db:study1"); "" otherwise.
	// It is recorded with the trial (Trial.Source).
	Source string
	// Why says what measurement led to it (a diagnosis: Hybrid's hint
	// probes), "" otherwise. The study shows it with the trial.
	Why string
	// Handle identifies the proposal inside the strategy (goptuna trial ID),
	// -1 for proposals the study queued itself.
	Handle int
}

// Strategy proposes configurations and learns from their scores.
type Strategy interface {
	// Ask returns the next configuration to measure.
	Ask(ctx context.Context) (Proposal, error)
	// Tell reports the objective value of a proposal (higher is better);
	// failed trials are told a penalised value. A study tells each
	// proposal once, after its trial, with p.Config replaced by the
	// configuration the trial measured (Base under it, repaired, in
	// canonical form: see Shape), which need not be the one asked.
	Tell(ctx context.Context, p Proposal, value float64) error
}

// Horizoner is implemented by strategies that size their phases on the
// planned number of trials (Hybrid).
type Horizoner interface {
	SetHorizon(n int)
}
