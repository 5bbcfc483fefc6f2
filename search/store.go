package search

import (
	"context"
	"time"
)

// Store persists a study's trials. Implemented by storage.DB (trials.db).
type Store interface {
	// BeginTrial records t as Running, so a killed process leaves a trace
	// that the next run marks Interrupted.
	BeginTrial(ctx context.Context, t Trial) error
	// FinishTrial records t's end state, outcome and samples, and adds spent
	// to the study's budget used, in one transaction.
	FinishTrial(ctx context.Context, t Trial, spent time.Duration) error
	// Trials returns every trial of the study ordered by number, without
	// per-second samples.
	Trials(ctx context.Context, study string) ([]Trial, error)
}
