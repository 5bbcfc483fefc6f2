package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/autotune/autotune/internal/secret"
)

// The phases of an apply (ApplyRecord.Phase). An apply is pending while
// its phase is one of PhaseApplying, PhaseWatching, PhasePersisting or
// PhaseReverting: the server may hold a mix of the settings, and the next
// apply on that server finishes it first (apply.Recover).
const (
	// ApplyPlanned: the plan was made, nothing changed yet.
	ApplyPlanned = "planned"
	// ApplyApplying: the originals are saved and the new settings are
	// being set at runtime.
	ApplyApplying = "applying"
	// ApplyWatching: old and new settings alternate on the live traffic.
	ApplyWatching = "watching"
	// ApplyPersisting: the verdict was a pass and the new settings are
	// being persisted.
	ApplyPersisting = "persisting"
	// ApplyReverting: the originals are being put back.
	ApplyReverting = "reverting"
	// ApplyPassed: the new settings run and are persisted (the end of a
	// pass).
	ApplyPassed = "passed"
	// ApplyReverted: the originals run and are persisted as before (the
	// end of a fail, an inconclusive watch, a tripwire or a recovery).
	ApplyReverted = "reverted"
	// ApplyAborted: the apply ended before it changed anything (a refused
	// plan, no consent).
	ApplyAborted = "aborted"
)

// PendingPhase reports whether an apply in phase may have left the server
// with a mix of settings.
func PendingPhase(phase string) bool {
	switch phase {
	case ApplyApplying, ApplyWatching, ApplyPersisting, ApplyReverting:
		return true
	}
	return false
}

// ApplyRecord is one apply of a configuration to a live server.
type ApplyRecord struct {
	// ID is the store's number of the apply.
	ID int64
	// Server identifies the server ("host:port, uuid ..."), DSN is its
	// DSN without a password, Source what was applied ("FILE", or "trial
	// N of study S").
	Server, DSN, Source string
	// Started and Ended bound the apply (Ended zero while it runs).
	Started, Ended time.Time
	// Phase is one of the Apply* phases; Verdict "pass", "fail",
	// "inconclusive", "tripwire" or "" (none yet); Reason says why.
	Phase, Verdict, Reason string
	// Saved is what the apply saved before its first change, as JSON
	// (the apply package's own shape); Changes the changes it makes, as
	// JSON.
	Saved, Changes string
}

// ApplyEvent is one step of an apply, in order.
type ApplyEvent struct {
	// Apply is the apply's ID; At when the step happened.
	Apply int64
	At    time.Time
	// Kind names the step ("plan", "set", "switch", "window", "verdict",
	// "persist", "revert", "recover", "tripwire"); Detail says what, in
	// words or as JSON (the apply package's).
	Kind, Detail string
}

// CreateApply stores a new apply and returns its ID. DSN must hold no
// password (secret.RedactDSN); a DSN with one is refused.
func (db *DB) CreateApply(ctx context.Context, a ApplyRecord) (int64, error) {
	if secret.RedactDSN(a.DSN) != a.DSN {
		return 0, fmt.Errorf("storage: create apply: the DSN %q holds a password", secret.RedactDSN(a.DSN))
	}
	started, err := timeText(a.Started)
	if err != nil {
		return 0, err
	}
	res, err := db.sql.ExecContext(ctx, `INSERT INTO applies (server, dsn, source, started, phase, verdict, reason, saved, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.Server, a.DSN, a.Source, started, a.Phase, a.Verdict, a.Reason, a.Saved, a.Changes)
	if err != nil {
		return 0, fmt.Errorf("storage: create apply: %w", err)
	}
	return res.LastInsertId()
}

// SetApplyPhase records apply id's phase, verdict and reason (and, when
// the phase ends the apply, when it ended), with an event of kind
// "phase", in one transaction.
func (db *DB) SetApplyPhase(ctx context.Context, id int64, phase, verdict, reason string) error {
	now := time.Now()
	var ended any
	if !PendingPhase(phase) && phase != ApplyPlanned {
		ended, _ = timeText(now)
	}
	at, _ := timeText(now)
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE applies SET phase = ?, verdict = ?, reason = ?, ended = ? WHERE id = ?`, phase, verdict, reason, ended, id); err != nil {
			return fmt.Errorf("storage: apply %d phase: %w", id, err)
		}
		detail := phase
		if verdict != "" {
			detail += " (" + verdict + ")"
		}
		if reason != "" {
			detail += ": " + reason
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO apply_events (apply, at, kind, detail) VALUES (?, ?, ?, ?)`, id, at, "phase", detail); err != nil {
			return fmt.Errorf("storage: apply %d phase: %w", id, err)
		}
		return nil
	})
}

// SetApplySaved records what apply id saved before its first change.
func (db *DB) SetApplySaved(ctx context.Context, id int64, saved string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE applies SET saved = ? WHERE id = ?`, saved, id); err != nil {
		return fmt.Errorf("storage: apply %d saved state: %w", id, err)
	}
	return nil
}

// AddApplyEvent appends a step to its apply's trail.
func (db *DB) AddApplyEvent(ctx context.Context, e ApplyEvent) error {
	at, err := timeText(e.At)
	if err != nil {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO apply_events (apply, at, kind, detail) VALUES (?, ?, ?, ?)`, e.Apply, at, e.Kind, e.Detail); err != nil {
		return fmt.Errorf("storage: apply %d event: %w", e.Apply, err)
	}
	return nil
}

// Applies returns the applies of the store, oldest first; with server
// set, only that server's.
func (db *DB) Applies(ctx context.Context, server string) ([]ApplyRecord, error) {
	if server != "" {
		return db.applies(ctx, ` WHERE server = ?`, server)
	}
	return db.applies(ctx, "")
}

// applies returns the applies matched by where (with args), oldest first.
func (db *DB) applies(ctx context.Context, where string, args ...any) ([]ApplyRecord, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, server, dsn, source, started, ended, phase, verdict, reason, saved, changes FROM applies`+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: applies: %w", err)
	}
	defer rows.Close()
	var out []ApplyRecord
	for rows.Next() {
		var a ApplyRecord
		var started, ended sql.NullString
		if err := rows.Scan(&a.ID, &a.Server, &a.DSN, &a.Source, &started, &ended, &a.Phase, &a.Verdict, &a.Reason, &a.Saved, &a.Changes); err != nil {
			return nil, fmt.Errorf("storage: applies: %w", err)
		}
		if a.Started, err = parseTime(started); err != nil {
			return nil, err
		}
		if a.Ended, err = parseTime(ended); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Apply returns apply id; the error wraps sql.ErrNoRows when there is
// none.
func (db *DB) Apply(ctx context.Context, id int64) (ApplyRecord, error) {
	as, err := db.applies(ctx, ` WHERE id = ?`, id)
	if err != nil {
		return ApplyRecord{}, err
	}
	if len(as) == 0 {
		return ApplyRecord{}, fmt.Errorf("storage: apply %d: %w", id, sql.ErrNoRows)
	}
	return as[0], nil
}

// ApplyEvents returns the steps of apply id, in order.
func (db *DB) ApplyEvents(ctx context.Context, id int64) ([]ApplyEvent, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT at, kind, detail FROM apply_events WHERE apply = ? ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("storage: apply %d events: %w", id, err)
	}
	defer rows.Close()
	var out []ApplyEvent
	for rows.Next() {
		e := ApplyEvent{Apply: id}
		var at sql.NullString
		if err := rows.Scan(&at, &e.Kind, &e.Detail); err != nil {
			return nil, fmt.Errorf("storage: apply %d events: %w", id, err)
		}
		if e.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
