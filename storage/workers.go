package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/search"
)

// ErrNeedsMySQL is returned by DB.Workers on an SQLite store: several
// workers share a study only through a MySQL/MariaDB store.
var ErrNeedsMySQL = errors.New("several workers need a MySQL/MariaDB store (--db mysql://USER@HOST:PORT/DATABASE)")

// WorkerInfo identifies one worker process and its hardware; it is recorded
// with every trial the worker claims.
type WorkerInfo struct {
	// ID is unique per worker process (host name, pid, random suffix).
	ID string
	// Host is the host name.
	Host string
	// Cores and RAMBytes describe the host's hardware (RAM in bytes).
	Cores    int
	RAMBytes int64
	// Fingerprint is the key of the conditions the worker measures under
	// (Fingerprint.Key): its trials are stamped with it, and it sees only
	// the study's trials of that key (Segment). "" stamps nothing and
	// sees every trial.
	Fingerprint string
}

// WorkerStore is a study store seen by one worker: it claims trials for
// that worker, keeps their heartbeat and records their end only while the
// claim holds. It implements search.ClaimStore.
type WorkerStore struct {
	db    *DB
	w     WorkerInfo
	stale time.Duration
}

var _ search.ClaimStore = (*WorkerStore)(nil)

// Workers returns the worker view of a MySQL store. A running trial whose
// heartbeat is older than staleAfter (> 0) is taken to belong to a dead
// worker. It returns ErrNeedsMySQL on an SQLite store and an error for an
// empty worker ID or a non-positive staleAfter.
func (db *DB) Workers(w WorkerInfo, staleAfter time.Duration) (*WorkerStore, error) {
	if db.dialect != mysqlDialect {
		return nil, ErrNeedsMySQL
	}
	if w.ID == "" || staleAfter <= 0 {
		return nil, fmt.Errorf("storage: worker %q with stale limit %v: want an ID and a positive limit", w.ID, staleAfter)
	}
	return &WorkerStore{db: db, w: w, stale: staleAfter}, nil
}

// Claim claims the next trial of study for this worker, atomically: in one
// READ COMMITTED transaction holding the study row's lock (SELECT ... FOR
// UPDATE, so claims and finishes of all workers are serialised) it marks
// running trials whose heartbeat is older than the stale limit (or that
// have no claim at all) Interrupted and returns them as stale, loads every
// trial, calls choose with them and the next free trial number, and, when
// choose says Run, inserts the trial it returns as Running together with its claim
// row. Deadlocks and lock-wait timeouts are retried. It returns an error
// wrapping ErrNoStudy when the study does not exist, and choose's error.
func (ws *WorkerStore) Claim(ctx context.Context, study string, choose search.ChooseFunc) (search.Trial, search.Choice, []search.Trial, error) {
	var (
		t      search.Trial
		choice search.Choice
		stale  []search.Trial
	)
	err := ws.db.retryTx(ctx, func(tx *sql.Tx) error {
		t, choice, stale = search.Trial{}, search.Wait, nil
		if err := lockStudy(ctx, tx, study); err != nil {
			return err
		}
		var err error
		stale, err = queryTrials(ctx, tx, `WHERE state = ? AND study = ? AND number IN (
			SELECT number FROM (
				SELECT t.number FROM trials t LEFT JOIN trial_claims c ON c.study = t.study AND c.number = t.number
				WHERE t.study = ? AND t.state = ?
				AND (c.number IS NULL OR c.heartbeat < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)) AS s)`,
			string(search.Running), study, study, string(search.Running), ws.stale.Microseconds())
		if err != nil {
			return fmt.Errorf("find stale trials: %w", err)
		}
		now, _ := timeText(time.Now())
		for i := range stale {
			stale[i].State = search.Interrupted
			stale[i].Failure = fmt.Sprintf("its worker sent no heartbeat for %s: presumed dead", ws.stale)
			if _, err := tx.ExecContext(ctx, `UPDATE trials SET state = ?, failure = ?, ended = ? WHERE study = ? AND number = ?`,
				string(search.Interrupted), stale[i].Failure, now, study, stale[i].Number); err != nil {
				return fmt.Errorf("mark trial %d stale: %w", stale[i].Number, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM live_samples WHERE study = ? AND trial = ?`, study, stale[i].Number); err != nil {
				return fmt.Errorf("drop the live samples of stale trial %d: %w", stale[i].Number, err)
			}
		}
		trials, err := queryTrials(ctx, tx, `WHERE study = ?`, study)
		if err != nil {
			return err
		}
		next := 0
		for _, x := range trials {
			next = max(next, x.Number+1)
		}
		if ws.w.Fingerprint != "" {
			trials, _ = Segment(trials, ws.w.Fingerprint)
		}
		c := search.Wait
		t, c, err = choose(trials, next)
		if err != nil || c != search.Run {
			t, choice = search.Trial{}, c
			return err
		}
		t.Study, t.Number, t.State, t.Fingerprint = study, next, search.Running, ws.w.Fingerprint
		if t.Started.IsZero() {
			t.Started = time.Now()
		}
		if err := checkTrial(t); err != nil {
			return err
		}
		args, err := trialArgs(t)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO trials (`+trialColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...); err != nil {
			return fmt.Errorf("insert trial %d: %w", next, err)
		}
		if err := saveExtras(ctx, tx, t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO trial_claims
			(study, number, worker, host, host_cores, host_ram_bytes, claimed, heartbeat)
			VALUES (?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))`,
			study, next, ws.w.ID, ws.w.Host, ws.w.Cores, ws.w.RAMBytes); err != nil {
			return fmt.Errorf("claim trial %d: %w", next, err)
		}
		choice = search.Run
		return nil
	})
	if err != nil {
		return search.Trial{}, search.Wait, nil, fmt.Errorf("storage: claim a trial of study %q: %w", study, err)
	}
	return t, choice, stale, nil
}

// Heartbeat tells the store that this worker still runs t. It returns an
// error wrapping search.ErrClaimLost when the trial is no longer running
// under this worker's claim (another worker declared it stale).
func (ws *WorkerStore) Heartbeat(ctx context.Context, t search.Trial) error {
	res, err := ws.db.sql.ExecContext(ctx, `UPDATE trial_claims c JOIN trials t ON t.study = c.study AND t.number = c.number
		SET c.heartbeat = UTC_TIMESTAMP(6)
		WHERE c.study = ? AND c.number = ? AND c.worker = ? AND t.state = ?`,
		t.Study, t.Number, ws.w.ID, string(search.Running))
	if err != nil {
		return fmt.Errorf("storage: heartbeat of trial %d of study %q: %w", t.Number, t.Study, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("storage: heartbeat of trial %d of study %q: %w", t.Number, t.Study, err)
	} else if n == 0 {
		return fmt.Errorf("storage: heartbeat of trial %d of study %q: %w", t.Number, t.Study, search.ErrClaimLost)
	}
	return nil
}

// FinishClaimed records the end of t like DB.FinishTrial, but only while t
// is still Running under this worker's claim; otherwise nothing is written
// and the error wraps search.ErrClaimLost.
func (ws *WorkerStore) FinishClaimed(ctx context.Context, t search.Trial, spent time.Duration) error {
	fail := func(err error) error {
		return fmt.Errorf("storage: finish trial %d of study %q: %w", t.Number, t.Study, err)
	}
	switch t.State {
	case search.Complete, search.Failed, search.Interrupted, search.Pruned:
	default:
		return fail(fmt.Errorf("cannot finish in state %q", t.State))
	}
	if err := checkTrial(t); err != nil {
		return fail(err)
	}
	if spent < 0 {
		return fail(fmt.Errorf("negative spent %v", spent))
	}
	t.Fingerprint = cmp.Or(t.Fingerprint, ws.w.Fingerprint)
	args, err := trialArgs(t)
	if err != nil {
		return fail(err)
	}
	err = ws.db.retryTx(ctx, func(tx *sql.Tx) error {
		if err := lockStudy(ctx, tx, t.Study); err != nil {
			return err
		}
		var state, worker string
		err := tx.QueryRowContext(ctx, `SELECT t.state, c.worker FROM trials t JOIN trial_claims c ON c.study = t.study AND c.number = t.number
			WHERE t.study = ? AND t.number = ? FOR UPDATE`, t.Study, t.Number).Scan(&state, &worker)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (state != string(search.Running) || worker != ws.w.ID)) {
			return search.ErrClaimLost
		}
		if err != nil {
			return err
		}
		return ws.db.finishTx(ctx, tx, t, args, spent)
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// Claims returns the worker and host recorded for each claimed trial of
// study, by trial number.
func (db *DB) Claims(ctx context.Context, study string) (map[int]WorkerInfo, error) {
	if db.dialect != mysqlDialect {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT number, worker, host, host_cores, host_ram_bytes FROM trial_claims WHERE study = ?`, study)
	if err != nil {
		return nil, fmt.Errorf("storage: claims of study %q: %w", study, err)
	}
	defer rows.Close()
	out := map[int]WorkerInfo{}
	for rows.Next() {
		var n int
		var w WorkerInfo
		if err := rows.Scan(&n, &w.ID, &w.Host, &w.Cores, &w.RAMBytes); err != nil {
			return nil, fmt.Errorf("storage: claims of study %q: %w", study, err)
		}
		out[n] = w
	}
	return out, rows.Err()
}

// lockStudy takes the write lock of the study row for the transaction.
func lockStudy(ctx context.Context, tx *sql.Tx, study string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM studies WHERE name = ? FOR UPDATE`, study).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoStudy
	}
	return err
}

// retryTx runs fn in a READ COMMITTED transaction, again (up to 10 times)
// when MySQL reports a deadlock or lock-wait timeout.
func (db *DB) retryTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		err = func() error {
			tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
			if err != nil {
				return err
			}
			if err := fn(tx); err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		}()
		if err == nil || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(50*(attempt+1)) * time.Millisecond):
		}
	}
	return err
}
