package storage

// The column of migration 00012 (trial_source): where a seeded trial's
// configuration came from (search.Trial.Source). Written and read here,
// next to the main trial row, like the measurement columns.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/autotune/autotune/search"
)

// saveSource writes t.Source to its (existing) trial row.
func saveSource(ctx context.Context, tx *sql.Tx, t search.Trial) error {
	if _, err := tx.ExecContext(ctx, `UPDATE trials SET source = ? WHERE study = ? AND number = ?`, t.Source, t.Study, t.Number); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	return nil
}

// loadSources sets Source of trials from the rows matched by where.
func loadSources(ctx context.Context, q querier, trials []search.Trial, where string, args ...any) error {
	if len(trials) == 0 {
		return nil
	}
	byNumber := make(map[int]*search.Trial, len(trials))
	for i := range trials {
		byNumber[trials[i].Number] = &trials[i]
	}
	rows, err := q.QueryContext(ctx, `SELECT number, source FROM trials `+where+` AND source <> ''`, args...)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			number int
			source string
		)
		if err := rows.Scan(&number, &source); err != nil {
			return fmt.Errorf("source: %w", err)
		}
		if t := byNumber[number]; t != nil {
			t.Source = source
		}
	}
	return rows.Err()
}
