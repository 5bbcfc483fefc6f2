package storage

// The text columns of migrations 00012 (trial_source), 00014
// (pool_load), 00016 (fingerprint) and 00017 (aio_backend): where a
// seeded trial's configuration came from (search.Trial.Source), whether
// its buffer pool loaded the dataset's page list
// (measure.Outcome.PoolLoad), the key of the conditions it was measured
// under (search.Trial.Fingerprint) and the asynchronous I/O backend its
// server used (measure.Outcome.AIOBackend). Written and read here, next to
// the main trial row, like the measurement columns.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/autotune/autotune/search"
)

// saveExtras writes t.Source, t.PoolLoad, t.AIOBackend and t.Fingerprint to its
// (existing) trial row; an empty Fingerprint keeps the stored one.
func saveExtras(ctx context.Context, tx *sql.Tx, t search.Trial) error {
	if _, err := tx.ExecContext(ctx, `UPDATE trials SET source = ?, pool_load = ?, aio_backend = ?, fingerprint = CASE WHEN ? = '' THEN fingerprint ELSE ? END WHERE study = ? AND number = ?`,
		t.Source, t.PoolLoad, t.AIOBackend, t.Fingerprint, t.Fingerprint, t.Study, t.Number); err != nil {
		return fmt.Errorf("source, pool load and fingerprint: %w", err)
	}
	return nil
}

// loadExtras sets Source, PoolLoad, AIOBackend and Fingerprint of trials from the
// rows matched by where.
func loadExtras(ctx context.Context, q querier, trials []search.Trial, where string, args ...any) error {
	if len(trials) == 0 {
		return nil
	}
	byNumber := make(map[int]*search.Trial, len(trials))
	for i := range trials {
		byNumber[trials[i].Number] = &trials[i]
	}
	rows, err := q.QueryContext(ctx, `SELECT number, source, pool_load, aio_backend, fingerprint FROM trials `+where+` AND (source <> '' OR pool_load <> '' OR aio_backend <> '' OR fingerprint <> '')`, args...)
	if err != nil {
		return fmt.Errorf("source, pool load and fingerprint: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			number                 int
			source, load, aio, key string
		)
		if err := rows.Scan(&number, &source, &load, &aio, &key); err != nil {
			return fmt.Errorf("source, pool load and fingerprint: %w", err)
		}
		if t := byNumber[number]; t != nil {
			t.Source, t.PoolLoad, t.AIOBackend, t.Fingerprint = source, load, aio, key
		}
	}
	return rows.Err()
}
