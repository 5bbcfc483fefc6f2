package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pressly/goose/v3"

	"github.com/autotune/autotune/internal/secret"
)

// dialect is the SQL flavour of a store. Most statements are portable; the
// few that are not (the trial upsert, constraint errors, migrations) ask
// the dialect. The zero value is SQLite.
type dialect int

const (
	sqliteDialect dialect = iota
	mysqlDialect
)

func (d dialect) goose() goose.Dialect {
	if d == mysqlDialect {
		return goose.DialectMySQL
	}
	return goose.DialectSQLite3
}

// migrationsDir is the embedded directory of the dialect's migrations. The
// MySQL files mirror the SQLite ones version for version (same tables and
// columns, MySQL types); versions only MySQL needs (the worker claims) have
// no SQLite twin.
func (d dialect) migrationsDir() string {
	if d == mysqlDialect {
		return "migrations_mysql"
	}
	return "migrations"
}

// upsertTrial is the conflict clause that turns the INSERT of a trial row
// into an update of the existing row with the same (study, number).
func (d dialect) upsertTrial() string {
	cols := []string{"state", "kind", "params", "score", "mean_tps", "std_tps", "p95_ms", "server_version",
		"restarted", "phases", "failure", "error_log", "summary", "started", "ended"}
	set := make([]string, len(cols))
	for i, c := range cols {
		if d == mysqlDialect {
			set[i] = c + " = VALUES(" + c + ")"
		} else {
			set[i] = c + " = excluded." + c
		}
	}
	if d == mysqlDialect {
		return "ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
	}
	return "ON CONFLICT (study, number) DO UPDATE SET " + strings.Join(set, ", ")
}

// mysqlScheme starts a --db value naming a MySQL/MariaDB store.
const mysqlScheme = "mysql://"

// PasswordEnv is the environment variable holding the password of a MySQL
// store (the URL never does).
const PasswordEnv = "AUTOTUNE_DB_PASSWORD"

// IsMySQL reports whether a --db value names a MySQL/MariaDB store
// ("mysql://...") rather than an SQLite file.
func IsMySQL(db string) bool { return strings.HasPrefix(db, mysqlScheme) }

// ParseMySQLURL turns a store URL into a driver config. Accepted forms:
//
//	mysql://USER@HOST[:PORT]/DATABASE           TCP, port 3306 by default
//	mysql://USER@localhost/DATABASE?socket=PATH unix socket
//
// with an optional query parameter password_file=PATH (a MySQL option file
// with a [client] password= line, or a file holding only the password).
// The password comes from the environment variable AUTOTUNE_DB_PASSWORD
// when set, else from password_file, else there is none. A password in the
// URL itself is refused: it would end up in shell history, `ps` and logs.
// Errors name the URL with any password removed.
func ParseMySQLURL(raw string) (*mysql.Config, error) {
	red := RedactURL(raw)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("--db %s: %s", red, fmt.Sprintf(format, a...))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "mysql" {
		return nil, fail("want mysql://USER@HOST:PORT/DATABASE")
	}
	if _, has := u.User.Password(); has {
		return nil, fail("holds a password; put it in the environment variable %s or in an option file named by ?password_file=PATH, never on the command line", PasswordEnv)
	}
	c := mysql.NewConfig()
	c.User = u.User.Username()
	if c.User == "" {
		return nil, fail("no user: want mysql://USER@HOST:PORT/DATABASE")
	}
	c.DBName = strings.TrimPrefix(u.Path, "/")
	if c.DBName == "" || strings.ContainsAny(c.DBName, "/`") {
		return nil, fail("want a database name after the host, e.g. mysql://tuner@db1:3306/autotune")
	}
	q := u.Query()
	for k := range q {
		if k != "socket" && k != "password_file" {
			return nil, fail("unknown parameter %q (known: socket, password_file)", k)
		}
	}
	if sock := q.Get("socket"); sock != "" {
		c.Net, c.Addr = "unix", sock
	} else {
		if u.Hostname() == "" {
			return nil, fail("no host: want mysql://USER@HOST:PORT/DATABASE")
		}
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		c.Net, c.Addr = "tcp", net.JoinHostPort(u.Hostname(), port)
	}
	if pw, ok := os.LookupEnv(PasswordEnv); ok {
		c.Passwd = pw
	} else if pf := q.Get("password_file"); pf != "" {
		pw, err := secret.FromOptionFile(pf)
		if err != nil {
			return nil, fail("%v", err)
		}
		c.Passwd = pw
	}
	c.Timeout = 10 * time.Second
	// Matched rows, not changed rows, as SQLite counts: an UPDATE writing
	// the values a row already has still finds the row.
	c.ClientFoundRows = true
	c.ParseTime = true
	c.Loc = time.UTC
	return c, nil
}

// RedactURL returns a store URL or driver DSN fit for messages: any
// password between "user:" and "@" is replaced by "xxx".
func RedactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxx")
			return u.String()
		}
		return s
	}
	return secret.RedactDSN(s)
}

// openMySQL opens a MySQL/MariaDB store: it creates the database when it
// is missing and the user may, then applies the pending migrations under a
// named lock, so that workers starting together migrate once.
func openMySQL(ctx context.Context, raw string) (*DB, error) {
	red := RedactURL(raw)
	fail := func(err error) error { return fmt.Errorf("storage: open %s: %w", red, err) }
	cfg, err := ParseMySQLURL(raw)
	if err != nil {
		return nil, err
	}
	if err := createDatabase(ctx, cfg); err != nil {
		return nil, fail(err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fail(err)
	}
	sdb := sql.OpenDB(conn)
	sdb.SetMaxOpenConns(8)
	sdb.SetConnMaxIdleTime(time.Minute)
	db := &DB{sql: sdb, path: red, dialect: mysqlDialect}
	if err := db.migrateLocked(ctx); err != nil {
		sdb.Close()
		return nil, fail(err)
	}
	return db, nil
}

// createDatabase runs CREATE DATABASE IF NOT EXISTS for cfg.DBName. A user
// without that privilege on an existing database is fine: the error is
// ignored when the database can be used.
func createDatabase(ctx context.Context, cfg *mysql.Config) error {
	c := cfg.Clone()
	c.DBName = ""
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return err
	}
	sdb := sql.OpenDB(conn)
	defer sdb.Close()
	// The first contact alone is bounded, the handshake included (the
	// driver's dial timeout does not cover a server that accepts and never
	// answers); the CREATE may wait on another worker's migration.
	const firstContact = 30 * time.Second
	pctx, cancel := context.WithTimeout(ctx, firstContact)
	err = sdb.PingContext(pctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && pctx.Err() != nil {
			return fmt.Errorf("no answer within %s: %w", firstContact, err)
		}
		return err
	}
	_, cerr := sdb.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+cfg.DBName+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	if cerr == nil {
		return nil
	}
	if _, err := sdb.ExecContext(ctx, "USE `"+cfg.DBName+"`"); err != nil {
		return fmt.Errorf("create database %s: %w", cfg.DBName, cerr)
	}
	return nil
}

// migrateLocked runs migrate while holding the server-wide named lock
// "autotune_migrate" (GET_LOCK, released when the session ends however the
// process dies).
func (db *DB) migrateLocked(ctx context.Context) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('autotune_migrate', 120)").Scan(&got); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	if !got.Valid || got.Int64 != 1 {
		return errors.New("migration lock: another autotune held autotune_migrate for 120 s")
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK('autotune_migrate')") //nolint:errcheck
	return db.migrate(ctx)
}

// IsMySQL reports whether the store is a MySQL/MariaDB database.
func (db *DB) IsMySQL() bool { return db.dialect == mysqlDialect }

// MySQL error numbers (MySQL manual, "Server Error Message Reference").
const (
	erDupEntry        = 1062
	erLockDeadlock    = 1213
	erLockWaitTimeout = 1205
)

// isMySQLDuplicate reports whether err is a MySQL duplicate-key error.
func isMySQLDuplicate(err error) bool { return mysqlErrNo(err) == erDupEntry }

// retryable reports whether a MySQL transaction failed on a deadlock or a
// lock-wait timeout and may simply be run again.
func retryable(err error) bool {
	n := mysqlErrNo(err)
	return n == erLockDeadlock || n == erLockWaitTimeout
}

func mysqlErrNo(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// ErrStudyLocked is returned (wrapped) by LockStudy when another process
// holds the study.
var ErrStudyLocked = errors.New("study is run by another autotune")

// studyLockName is the GET_LOCK name of a study (at most 64 characters).
func studyLockName(study string) string {
	h := sha256.Sum256([]byte(study))
	return "autotune_study_" + hex.EncodeToString(h[:16])
}

// LockStudy takes the exclusive lock of study in a MySQL store: a named
// lock (GET_LOCK) held by a dedicated session, which the server releases
// when the session ends, however the process dies. It is how `autotune
// search` keeps a second search off a study shared through the server (an
// SQLite store uses a lock file instead). It returns an error wrapping
// ErrStudyLocked when another session holds it, ErrNeedsMySQL on SQLite.
func (db *DB) LockStudy(ctx context.Context, study string) (release func(), err error) {
	if db.dialect != mysqlDialect {
		return nil, ErrNeedsMySQL
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("storage: lock study %q: %w", study, err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", studyLockName(study)).Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("storage: lock study %q: %w", study, err)
	}
	if !got.Valid || got.Int64 != 1 {
		conn.Close()
		return nil, fmt.Errorf("storage: lock study %q in %s: %w", study, db.path, ErrStudyLocked)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "DO RELEASE_LOCK(?)", studyLockName(study))
		conn.Close()
	}, nil
}

// StudyLocked reports whether some session holds study's LockStudy lock
// (false on SQLite).
func (db *DB) StudyLocked(ctx context.Context, study string) (bool, error) {
	if db.dialect != mysqlDialect {
		return false, nil
	}
	var holder sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", studyLockName(study)).Scan(&holder); err != nil {
		return false, fmt.Errorf("storage: study lock of %q: %w", study, err)
	}
	return holder.Valid, nil
}
