package search

import (
	"context"
	"fmt"
	"sync"
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

// MemoryStore is a Store that keeps one study's trials in memory, for
// studies whose history need not outlive the process: the lab's runs over
// synthetic landscapes, examples. Safe for concurrent use. The zero value
// is ready.
type MemoryStore struct {
	mu     sync.Mutex
	trials []Trial
}

// BeginTrial implements Store.
func (m *MemoryStore) BeginTrial(ctx context.Context, t Trial) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trials = append(m.trials, t)
	return nil
}

// FinishTrial implements Store; it returns an error for a trial that was
// not begun.
func (m *MemoryStore) FinishTrial(ctx context.Context, t Trial, spent time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.trials {
		if m.trials[i].Number == t.Number {
			m.trials[i] = t
			return nil
		}
	}
	return fmt.Errorf("finish trial %d: not begun", t.Number)
}

// Trials implements Store: every trial in the order begun (whatever the
// study name).
func (m *MemoryStore) Trials(ctx context.Context, study string) ([]Trial, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Trial(nil), m.trials...), nil
}
