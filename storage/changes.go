package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Change is one accepted change of a study's manifest on resume.
type Change struct {
	// At is when the change was accepted.
	At time.Time
	// Field names what changed: "server_version", "host_cores",
	// "host_ram_bytes" or "settings".
	Field string
	// Old and New are the values before and after, as text.
	Old, New string
}

// changeColumns maps a Change.Field to its column in studies.
var changeColumns = map[string]string{
	"server_version": "server_version", "host_cores": "host_cores",
	"host_ram_bytes": "host_ram_bytes", "settings": "settings",
}

// RecordChange stores a manifest change of study and applies the new value
// to the study row, in one transaction. It returns an error wrapping
// ErrNoStudy when the study does not exist, and an error for an unknown
// field or settings that are not JSON or hold a password.
func (db *DB) RecordChange(ctx context.Context, study string, c Change) error {
	col, ok := changeColumns[c.Field]
	if !ok {
		return fmt.Errorf("storage: record change of study %q: unknown field %q", study, c.Field)
	}
	if c.Field == "settings" {
		if err := checkSettings(c.New); err != nil {
			return fmt.Errorf("storage: record change of study %q: %w", study, err)
		}
	}
	at, err := timeText(c.At)
	if err != nil {
		return err
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, study); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO study_changes (study, at, field, old, new) VALUES (?, ?, ?, ?, ?)`,
			study, at, c.Field, c.Old, c.New); err != nil {
			return err
		}
		// col comes from changeColumns, never from input.
		_, err := tx.ExecContext(ctx, `UPDATE studies SET `+col+` = ? WHERE name = ?`, c.New, study)
		return err
	})
	if err != nil {
		return fmt.Errorf("storage: record change of study %q: %w", study, err)
	}
	return nil
}

// Changes returns the recorded manifest changes of study, oldest first.
func (db *DB) Changes(ctx context.Context, study string) ([]Change, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT at, field, old, new FROM study_changes WHERE study = ? ORDER BY id`, study)
	if err != nil {
		return nil, fmt.Errorf("storage: changes of study %q: %w", study, err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var at sql.NullString
		if err := rows.Scan(&at, &c.Field, &c.Old, &c.New); err != nil {
			return nil, fmt.Errorf("storage: changes of study %q: %w", study, err)
		}
		if c.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
