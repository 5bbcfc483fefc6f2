package storage

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/autotune/autotune/search"
)

// SaveImportance replaces the knob importance stored with study by imp
// (sorted, most important first), estimated from trials complete trials,
// in one transaction. It returns an error wrapping ErrNoStudy when the
// study does not exist, and an error for an importance outside [0, 1].
func (db *DB) SaveImportance(ctx context.Context, study string, imp []search.KnobImportance, trials int) error {
	fail := func(err error) error { return fmt.Errorf("storage: save importance of study %q: %w", study, err) }
	for _, ki := range imp {
		if math.IsNaN(ki.Importance) || ki.Importance < 0 || ki.Importance > 1 {
			return fail(fmt.Errorf("knob %s: importance %g outside [0, 1]", ki.Knob, ki.Importance))
		}
	}
	now, err := timeText(time.Now())
	if err != nil {
		return fail(err)
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, study); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM importance WHERE study = ?`, study); err != nil {
			return err
		}
		for i, ki := range imp {
			if _, err := tx.ExecContext(ctx, "INSERT INTO importance (study, knob, importance, `rank`, trials, computed) VALUES (?, ?, ?, ?, ?, ?)", study, ki.Knob, ki.Importance, i+1, trials, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// Importance returns the knob importance stored with study, most important
// first, and the number of complete trials it was estimated from; an empty
// slice when none was stored.
func (db *DB) Importance(ctx context.Context, study string) ([]search.KnobImportance, int, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT knob, importance, trials FROM importance WHERE study = ? ORDER BY `rank`", study)
	if err != nil {
		return nil, 0, fmt.Errorf("storage: importance of study %q: %w", study, err)
	}
	defer rows.Close()
	var out []search.KnobImportance
	n := 0
	for rows.Next() {
		var ki search.KnobImportance
		if err := rows.Scan(&ki.Knob, &ki.Importance, &n); err != nil {
			return nil, 0, fmt.Errorf("storage: importance of study %q: %w", study, err)
		}
		out = append(out, ki)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("storage: importance of study %q: %w", study, err)
	}
	return out, n, nil
}
