package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
)

// readableSchema is the oldest schema a read-only store may have: the
// first with every column this program reads (trials.fingerprint,
// migration 00016; live_samples is 00015).
const readableSchema = 16

// AppendLiveSamples adds ss to the live samples of trial number of study,
// in order, while the trial runs, so that a reader in another process
// (autotune dashboard) sees its per-second throughput as it arrives. The
// samples are written only while the trial is Running in the store: a
// sample that arrives after FinishTrial or MarkInterrupted is dropped
// (those delete a trial's live samples; its samples are then FinishTrial's).
// The error reports a failed write; callers treat it as non-fatal.
func (db *DB) AppendLiveSamples(ctx context.Context, study string, number int, ss []measure.Sample) error {
	if len(ss) == 0 {
		return nil
	}
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM trials WHERE study = ? AND number = ?`, study, number).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && state != string(search.Running)) {
			return nil // not begun, or finished: nothing live to add to
		}
		if err != nil {
			return err
		}
		return insertSamples(ctx, tx, "live_samples", study, number, ss)
	})
	if err != nil {
		return fmt.Errorf("storage: live samples of trial %d of study %q: %w", number, study, err)
	}
	return nil
}

// LiveSamples returns the live samples of trial number of study (those
// AppendLiveSamples wrote while it runs) in order; none (and a nil error)
// when it has none or has finished.
func (db *DB) LiveSamples(ctx context.Context, study string, number int) ([]measure.Sample, error) {
	out, err := querySamples(ctx, db.sql, "live_samples", study, number)
	if err != nil {
		return nil, fmt.Errorf("storage: live samples of trial %d of study %q: %w", number, study, err)
	}
	return out, nil
}

// OpenReadOnly opens an existing store for reading only, as autotune
// dashboard does while a study writes it: no migration, no file created.
// An SQLite file is opened in read-only mode (it must exist); a MySQL
// store's sessions are read-only transactions (the server refuses any
// write) and its database is never created. A store whose schema is newer
// than this program wraps ErrSchemaTooNew; one older than readableSchema
// (which lacks columns this program reads) is refused with the remedy.
// Errors name the store with any password removed.
func OpenReadOnly(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("storage: open: empty path")
	}
	var (
		db  *DB
		err error
	)
	if IsMySQL(path) {
		db, err = openMySQLReadOnly(context.Background(), path)
	} else {
		db, err = openSQLiteReadOnly(path)
	}
	if err != nil {
		return nil, err
	}
	if err := db.checkReadable(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: open %s: %w", db.path, err)
	}
	return db, nil
}

// openSQLiteReadOnly opens the SQLite file path with mode=ro.
func openSQLiteReadOnly(path string) (*DB, error) {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	sdb, err := sql.Open("sqlite3", fmt.Sprintf("file:%s?mode=ro&_busy_timeout=%d&_txlock=deferred", esc, busyTimeout.Milliseconds()))
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	sdb.SetMaxOpenConns(2)
	if err := sdb.Ping(); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	return &DB{sql: sdb, path: path}, nil
}

// erUnknownSystemVariable is MySQL's ER_UNKNOWN_SYSTEM_VARIABLE.
const erUnknownSystemVariable = 1193

// openMySQLReadOnly opens a MySQL store with read-only sessions:
// transaction_read_only (MySQL 8, MariaDB 11.1+) or else tx_read_only
// (MariaDB before 11.1).
func openMySQLReadOnly(ctx context.Context, raw string) (*DB, error) {
	red := RedactURL(raw)
	cfg, err := ParseMySQLURL(raw)
	if err != nil {
		return nil, err
	}
	var last error
	for _, v := range []string{"transaction_read_only", "tx_read_only"} {
		c := cfg.Clone()
		c.Params = map[string]string{v: "1"}
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return nil, fmt.Errorf("storage: open %s: %w", red, err)
		}
		sdb := sql.OpenDB(conn)
		sdb.SetMaxOpenConns(4)
		sdb.SetConnMaxIdleTime(time.Minute)
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = sdb.PingContext(pctx)
		cancel()
		if err == nil {
			return &DB{sql: sdb, path: red, dialect: mysqlDialect}, nil
		}
		sdb.Close()
		last = err
		if mysqlErrNo(err) != erUnknownSystemVariable {
			break
		}
	}
	return nil, fmt.Errorf("storage: open %s: %w", red, last)
}

// checkReadable compares the store's schema with this program's.
func (db *DB) checkReadable(ctx context.Context) error {
	have, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	latest := latestVersion(db.dialect.migrationsDir())
	switch {
	case have > latest:
		return fmt.Errorf("%w: store at version %d, this program knows up to %d", ErrSchemaTooNew, have, latest)
	case have < readableSchema:
		return fmt.Errorf("the store's schema (version %d) is older than this program's (%d), and a read-only reader does not upgrade it: autotune studies --db %s (or a search or worker on it) brings it up to date", have, latest, db.path)
	}
	return nil
}
