package storage

// The text columns of migrations 00012 (trial_source) and 00014
// (pool_load): where a seeded trial's configuration came from
// (search.Trial.Source) and whether its buffer pool loaded the dataset's
// page list (measure.Outcome.PoolLoad). Written and read here, next to
// the main trial row, like the measurement columns.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/autotune/autotune/search"
)

// saveExtras writes t.Source and t.PoolLoad to its (existing) trial row.
func saveExtras(ctx context.Context, tx *sql.Tx, t search.Trial) error {
	if _, err := tx.ExecContext(ctx, `UPDATE trials SET source = ?, pool_load = ? WHERE study = ? AND number = ?`,
		t.Source, t.PoolLoad, t.Study, t.Number); err != nil {
		return fmt.Errorf("source and pool load: %w", err)
	}
	return nil
}

// loadExtras sets Source and PoolLoad of trials from the rows matched by
// where.
func loadExtras(ctx context.Context, q querier, trials []search.Trial, where string, args ...any) error {
	if len(trials) == 0 {
		return nil
	}
	byNumber := make(map[int]*search.Trial, len(trials))
	for i := range trials {
		byNumber[trials[i].Number] = &trials[i]
	}
	rows, err := q.QueryContext(ctx, `SELECT number, source, pool_load FROM trials `+where+` AND (source <> '' OR pool_load <> '')`, args...)
	if err != nil {
		return fmt.Errorf("source and pool load: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			number       int
			source, load string
		)
		if err := rows.Scan(&number, &source, &load); err != nil {
			return fmt.Errorf("source and pool load: %w", err)
		}
		if t := byNumber[number]; t != nil {
			t.Source, t.PoolLoad = source, load
		}
	}
	return rows.Err()
}
