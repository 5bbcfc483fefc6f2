package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// SaveMinimization replaces the minimisation stored with study by m (its
// steps included) in one transaction; it implements
// search.MinimizationStore. A state with nothing to minimise (m.Best < 0)
// removes what was stored. It returns an error wrapping ErrNoStudy when the
// study does not exist.
func (db *DB) SaveMinimization(ctx context.Context, study string, m search.Minimized) error {
	fail := func(err error) error { return fmt.Errorf("storage: save the minimisation of study %q: %w", study, err) }
	now, err := timeText(time.Now())
	if err != nil {
		return fail(err)
	}
	cfg, err := json.Marshal(orEmpty(m.Config))
	if err != nil {
		return fail(err)
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, study); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM minimization_steps WHERE study = ?`, `DELETE FROM minimizations WHERE study = ?`} {
			if _, err := tx.ExecContext(ctx, q, study); err != nil {
				return err
			}
		}
		if m.Best < 0 {
			return nil
		}
		check := []any{nil, nil, nil, nil}
		if c := m.Check; c != nil {
			check = []any{nullFloat(c.Pct), nullFloat(c.LoPct), nullFloat(c.HiPct), c.Pairs}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO minimizations (study, best, goal, changes, config, done, accepted, runs, pairs,
			check_pct, check_lo, check_hi, check_pairs, computed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			study, m.Best, string(m.Goal), m.Changes, string(cfg), boolInt(m.Done), boolInt(m.Accepted), m.Runs, m.Pairs,
			check[0], check[1], check[2], check[3], now); err != nil {
			return err
		}
		for i, s := range m.Steps {
			knobs, err := json.Marshal(s.Knobs)
			if err != nil {
				return err
			}
			vals, err := json.Marshal(orEmpty(s.Values))
			if err != nil {
				return err
			}
			gain := []any{nil, nil, nil}
			if s.Pairs > 0 {
				gain = []any{nullFloat(s.Pct), nullFloat(s.LoPct), nullFloat(s.HiPct)}
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO minimization_steps (study, step, knobs, vals, status, pct, lo, hi, pairs, `lead`)"+
				" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", study, i+1, string(knobs), string(vals), string(s.Status),
				gain[0], gain[1], gain[2], s.Pairs, s.Lead); err != nil {
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

// Minimization returns the minimisation stored with study; found is false
// when none was stored (the study was not minimised, or was created before
// minimisation existed).
func (db *DB) Minimization(ctx context.Context, study string) (m search.Minimized, found bool, err error) {
	fail := func(err error) error { return fmt.Errorf("storage: the minimisation of study %q: %w", study, err) }
	var goal, cfg string
	var done, accepted int
	var cp, clo, chi sql.NullFloat64
	var cpairs sql.NullInt64
	err = db.sql.QueryRowContext(ctx, `SELECT best, goal, changes, config, done, accepted, runs, pairs, check_pct, check_lo, check_hi, check_pairs
		FROM minimizations WHERE study = ?`, study).Scan(&m.Best, &goal, &m.Changes, &cfg, &done, &accepted, &m.Runs, &m.Pairs, &cp, &clo, &chi, &cpairs)
	if errors.Is(err, sql.ErrNoRows) {
		return search.Minimized{Best: -1}, false, nil
	}
	if err != nil {
		return m, false, fail(err)
	}
	m.Goal, m.Done, m.Accepted = measure.Goal(goal), done == 1, accepted == 1
	if err := json.Unmarshal([]byte(cfg), &m.Config); err != nil {
		return m, false, fail(fmt.Errorf("config: %w", err))
	}
	if cpairs.Valid {
		m.Check = &search.MinCheck{Pct: floatOf(cp), LoPct: floatOf(clo), HiPct: floatOf(chi), Pairs: int(cpairs.Int64)}
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT knobs, vals, status, pct, lo, hi, pairs, `lead` FROM minimization_steps WHERE study = ? ORDER BY step", study)
	if err != nil {
		return m, false, fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s search.MinStep
		var knobs, vals, status string
		var p, lo, hi sql.NullFloat64
		if err := rows.Scan(&knobs, &vals, &status, &p, &lo, &hi, &s.Pairs, &s.Lead); err != nil {
			return m, false, fail(err)
		}
		if err := json.Unmarshal([]byte(knobs), &s.Knobs); err != nil {
			return m, false, fail(fmt.Errorf("step %d knobs: %w", len(m.Steps)+1, err))
		}
		if err := json.Unmarshal([]byte(vals), &s.Values); err != nil {
			return m, false, fail(fmt.Errorf("step %d values: %w", len(m.Steps)+1, err))
		}
		s.Status = search.MinStatus(status)
		if p.Valid {
			s.Pct, s.LoPct, s.HiPct = floatOf(p), floatOf(lo), floatOf(hi)
		}
		m.Steps = append(m.Steps, s)
	}
	if err := rows.Err(); err != nil {
		return m, false, fail(err)
	}
	return m, true, nil
}

func orEmpty(c space.Config) space.Config {
	if c == nil {
		return space.Config{}
	}
	return c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
