package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Warm trials: a dataset snapshot carries the buffer pool's page list
// (the file innodb_buffer_pool_filename, "ib_buffer_pool" in the datadir,
// written at shutdown with innodb_buffer_pool_dump_pct = 100 after every
// index of the dataset was read), and every trial's server loads it at
// start-up (innodb_buffer_pool_load_at_startup) before the benchmark
// runs, so a trial measures a server whose pool holds what a server that
// has been running for a day would hold, up to its size. MariaDB KB
// "InnoDB Buffer Pool" (dump and load); MySQL 8.0 manual 17.8.3.6
// "Saving and Restoring the Buffer Pool State". Loading stops when the
// pool is full, so a small pool loads only what fits.

// WarmOptions are the option lines a server that builds a snapshot runs
// with when the snapshot keeps a page list: a pool of poolBytes, and the
// whole pool dumped at shutdown.
func WarmOptions(poolBytes int64) string {
	return fmt.Sprintf("innodb_buffer_pool_size = %d\ninnodb_buffer_pool_dump_pct = 100\ninnodb_buffer_pool_dump_at_shutdown = ON\ninnodb_buffer_pool_load_at_startup = OFF\n", poolBytes)
}

// TrialPoolOptions are the option lines of a trial's server: load the
// snapshot's page list at start-up when warm, never for a cold start,
// and no dump at shutdown (the trial datadir is thrown away).
func TrialPoolOptions(warm bool) string {
	load := "OFF"
	if warm {
		load = "ON"
	}
	return "innodb_buffer_pool_load_at_startup = " + load + "\ninnodb_buffer_pool_dump_at_shutdown = OFF\n"
}

// WarmBufferPool reads every index of every InnoDB table outside the
// system schemas once (SELECT COUNT(*) ... FORCE INDEX), so the buffer
// pool holds the dataset's pages (up to its size). It returns the number
// of indexes read, or the first query's error naming the table.
func WarmBufferPool(ctx context.Context, srv *Server) (int, error) {
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var sys []string
	for n := range systemSchemas {
		sys = append(sys, n)
	}
	sort.Strings(sys)
	q := `SELECT DISTINCT s.TABLE_SCHEMA, s.TABLE_NAME, s.INDEX_NAME FROM information_schema.STATISTICS s
		JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.TABLE_SCHEMA AND t.TABLE_NAME = s.TABLE_NAME
		WHERE t.ENGINE = 'InnoDB' AND s.TABLE_SCHEMA NOT IN ('` + strings.Join(sys, "','") + `')
		ORDER BY s.TABLE_SCHEMA, s.TABLE_NAME, s.INDEX_NAME`
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("list the dataset's indexes: %w", err)
	}
	type index struct{ schema, table, name string }
	var idx []index
	for rows.Next() {
		var i index
		if err := rows.Scan(&i.schema, &i.table, &i.name); err != nil {
			rows.Close()
			return 0, err
		}
		idx = append(idx, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, i := range idx {
		var n int64
		stmt := fmt.Sprintf("SELECT COUNT(*) FROM %s.%s FORCE INDEX (%s)", quoteIdent(i.schema), quoteIdent(i.table), quoteIdent(i.name))
		if err := db.QueryRowContext(ctx, stmt).Scan(&n); err != nil {
			return 0, fmt.Errorf("read %s.%s index %s: %w", i.schema, i.table, i.name, err)
		}
	}
	return len(idx), nil
}

// quoteIdent quotes a MySQL identifier with backticks.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// ErrPoolLoadTimeout is returned by WaitBufferPoolLoad when the load did
// not finish within its limit.
var ErrPoolLoadTimeout = errors.New("buffer pool load did not finish")

// ErrExitedDuringPoolLoad is returned (wrapped, with the exit status) by
// WaitBufferPoolLoad when the server process ends while it waits: e.g.
// killed for memory while it read the pages in.
var ErrExitedDuringPoolLoad = errors.New("the server exited while loading the buffer pool")

// PoolLoad is the end of a buffer pool load.
type PoolLoad struct {
	// Waited is how long the wait took.
	Waited time.Duration
	// Status is the last Innodb_buffer_pool_load_status seen.
	Status string
	// Loaded is false when the server loaded nothing (no page list, or the
	// load was aborted): the trial starts cold.
	Loaded bool
}

// PoolLoadDone classifies an Innodb_buffer_pool_load_status text: done
// is true once the load has ended ("Buffer pool(s) load completed at
// ...", or it was aborted, or the page list could not be read), loaded
// whether it completed. "Loaded 512/7000 pages" and "" (not started yet)
// are not done.
func PoolLoadDone(status string) (done, loaded bool) {
	s := strings.ToLower(status)
	switch {
	case strings.Contains(s, "completed"):
		return true, true
	case strings.Contains(s, "aborted"), strings.Contains(s, "cannot open"), strings.Contains(s, "error"),
		strings.Contains(s, "not started"):
		return true, false
	}
	return false, false
}

// WaitBufferPoolLoad polls Innodb_buffer_pool_load_status every poll
// until the start-up load has ended (PoolLoadDone), at most limit. It
// returns ErrPoolLoadTimeout (wrapped, with the last status) when limit
// passes first, ErrExitedDuringPoolLoad (wrapped, with the exit status)
// as soon as a server that is autotune's child has exited, and ctx.Err()
// when cancelled.
func WaitBufferPoolLoad(ctx context.Context, srv *Server, poll, limit time.Duration) (PoolLoad, error) {
	return waitPoolLoad(ctx, func(ctx context.Context) (string, error) {
		return srv.statusValue(ctx, "Innodb_buffer_pool_load_status")
	}, func() error {
		if !srv.Exited() {
			return nil
		}
		return fmt.Errorf("%w: %s", ErrExitedDuringPoolLoad, exitReason(srv.waitErr))
	}, poll, limit)
}

// waitPoolLoad is WaitBufferPoolLoad over status (the status variable's
// value) and exited (an error once the server has exited, nil before).
func waitPoolLoad(ctx context.Context, status func(context.Context) (string, error), exited func() error, poll, limit time.Duration) (PoolLoad, error) {
	t0 := time.Now()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var last PoolLoad
	for {
		qctx, cancel := context.WithTimeout(ctx, min(limit, 5*time.Second))
		st, err := status(qctx)
		cancel()
		if ctx.Err() != nil {
			return last, ctx.Err()
		}
		if err == nil {
			last.Status = st
			if done, loaded := PoolLoadDone(st); done {
				last.Loaded, last.Waited = loaded, time.Since(t0)
				return last, nil
			}
		} else {
			last.Status = "status query failed: " + err.Error()
			if xerr := exited(); xerr != nil {
				last.Waited = time.Since(t0)
				return last, xerr
			}
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-deadline.C:
			last.Waited = time.Since(t0)
			return last, fmt.Errorf("%w within %s (last status %q)", ErrPoolLoadTimeout, limit, last.Status)
		case <-tick.C:
		}
	}
}

// statusValue returns one global status variable's value.
func (s *Server) statusValue(ctx context.Context, name string) (string, error) {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return "", err
	}
	defer db.Close()
	var n, v string
	// Not a placeholder: SHOW is not preparable on every server version.
	err = db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+strings.ReplaceAll(name, "'", "")+"'").Scan(&n, &v)
	return v, err
}
