package storage

// The column of migration 00014 (pool_load): whether a trial's buffer
// pool loaded the dataset's page list before it was measured
// (measure.Outcome.PoolLoad). Written and read next to the main trial
// row, like the trial's source.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/autotune/autotune/search"
)

// savePoolLoad writes t.PoolLoad to its (existing) trial row.
func savePoolLoad(ctx context.Context, tx *sql.Tx, t search.Trial) error {
	if _, err := tx.ExecContext(ctx, `UPDATE trials SET pool_load = ? WHERE study = ? AND number = ?`, t.PoolLoad, t.Study, t.Number); err != nil {
		return fmt.Errorf("pool load: %w", err)
	}
	return nil
}

// loadPoolLoads sets PoolLoad of trials from the rows matched by where.
func loadPoolLoads(ctx context.Context, q querier, trials []search.Trial, where string, args ...any) error {
	if len(trials) == 0 {
		return nil
	}
	byNumber := make(map[int]*search.Trial, len(trials))
	for i := range trials {
		byNumber[trials[i].Number] = &trials[i]
	}
	rows, err := q.QueryContext(ctx, `SELECT number, pool_load FROM trials `+where+` AND pool_load <> ''`, args...)
	if err != nil {
		return fmt.Errorf("pool load: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			number int
			load   string
		)
		if err := rows.Scan(&number, &load); err != nil {
			return fmt.Errorf("pool load: %w", err)
		}
		if t := byNumber[number]; t != nil {
			t.PoolLoad = load
		}
	}
	return rows.Err()
}
