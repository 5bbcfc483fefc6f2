package storage

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" database/sql driver
	"github.com/pressly/goose/v3"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

var _ search.Store = (*DB)(nil)

//go:embed migrations/*.sql migrations_mysql/*.sql
var migrationFiles embed.FS

// Errors returned (wrapped) by DB methods; test with errors.Is.
var (
	// ErrNoStudy: the named study does not exist.
	ErrNoStudy = errors.New("no such study")
	// ErrStudyExists: CreateStudy with a name already taken.
	ErrStudyExists = errors.New("study already exists")
	// ErrTrialExists: BeginTrial with a number already used in the study.
	ErrTrialExists = errors.New("trial number already used")
	// ErrSchemaTooNew: the file was migrated by a newer program.
	ErrSchemaTooNew = errors.New("schema is newer than this program supports")
)

// busyTimeout is how long a statement waits for another writer's lock
// before failing with "database is locked" (also in the DSN, as ms).
const busyTimeout = 5 * time.Second

// timeLayout is RFC 3339 with exactly nine fractional digits, so that stored
// times sort as text. time.RFC3339Nano parses it.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// StudyRecord is one tuning study: a named series of trials against one server
// with fixed benchmark and search settings.
type StudyRecord struct {
	// Name identifies the study; not empty.
	Name string
	// Settings is the benchmark and search settings as JSON text (or
	// empty). It must never hold a password: CreateStudy and UpdateStudy
	// refuse an object key that names a password ("password",
	// "db_password", "passwd", "pwd"; any case, any depth) with a non-empty
	// string value. Keys naming a source, like "password_env", are fine.
	Settings string
	// Seed seeds the search strategy.
	Seed int64
	// ServerVersion is SELECT VERSION() of the tuned server.
	ServerVersion string
	// Cores and RAMBytes describe the host the study runs on (RAM in
	// bytes); both >= 0.
	Cores    int
	RAMBytes int64
	// Created is when the study was created (stored to the nanosecond,
	// read back in UTC).
	Created time.Time
	// Spent is the wall-clock budget used across all runs, stored as REAL
	// seconds (kept to well under a microsecond).
	Spent time.Duration
}

// DB is an open trials.db. It is safe for concurrent use by goroutines; all
// calls share one SQLite connection.
type DB struct {
	sql     *sql.DB
	path    string
	dialect dialect
}

// Open opens the SQLite file at path, creating it if missing (its directory
// must exist), and applies every pending schema migration. The special path
// ":memory:" opens a private in-memory database (for tests).
//
// Open returns an error naming path when the file cannot be opened or
// created, is not an SQLite database, cannot be put in WAL mode, a
// migration fails, or the schema is newer than this program supports
// (wrapping ErrSchemaTooNew).
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("storage: open: empty path")
	}
	if IsMySQL(path) {
		return openMySQL(context.Background(), path)
	}
	// Processes opening a fresh file at once race to switch it to WAL
	// mode; SQLite answers the losers "database is locked" without waiting
	// for its busy timeout, so the open is retried up to that timeout.
	deadline := time.Now().Add(busyTimeout)
	for {
		db, err := openSQLite(path)
		if err == nil || !isSQLiteBusy(err) || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// openSQLite opens the SQLite file path once (see Open).
func openSQLite(path string) (*DB, error) {
	fail := func(err error) error { return fmt.Errorf("storage: open %s: %w", path, err) }
	sdb, err := sql.Open("sqlite3", dsn(path))
	if err != nil {
		return nil, fail(err)
	}
	// SQLite allows one writer at a time; a single connection serialises
	// this process's statements instead of failing them with SQLITE_BUSY,
	// and keeps a ":memory:" database alive.
	sdb.SetMaxOpenConns(1)
	sdb.SetMaxIdleConns(1)
	sdb.SetConnMaxLifetime(0)
	sdb.SetConnMaxIdleTime(0)
	db := &DB{sql: sdb, path: path}
	if err := db.init(context.Background()); err != nil {
		sdb.Close()
		return nil, fail(err)
	}
	return db, nil
}

// dsn returns the go-sqlite3 DSN for path: an SQLite URI with the
// characters special in URIs escaped.
func dsn(path string) string {
	if path == ":memory:" {
		return "file::memory:?_foreign_keys=on&_txlock=immediate"
	}
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return fmt.Sprintf("file:%s?_journal_mode=WAL&_busy_timeout=%d&_foreign_keys=on&_txlock=immediate",
		esc, busyTimeout.Milliseconds())
}

func (db *DB) init(ctx context.Context) error {
	var mode string
	if err := db.sql.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	want := "wal"
	if db.path == ":memory:" {
		want = "memory"
	}
	if !strings.EqualFold(mode, want) {
		return fmt.Errorf("journal mode is %q, want %q", mode, want)
	}
	var fk int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return err
	}
	if fk != 1 {
		return errors.New("foreign keys are off")
	}
	return db.migrate(ctx)
}

// provider returns a goose provider over the embedded migrations.
func (db *DB) provider() (*goose.Provider, error) {
	sub, err := fs.Sub(migrationFiles, db.dialect.migrationsDir())
	if err != nil {
		return nil, err
	}
	// Out-of-order migrations are allowed: branches developed in parallel
	// number theirs apart (00002, 00006, ...), and a file migrated by an
	// older build must still take the ones that landed with lower numbers.
	return goose.NewProvider(db.dialect.goose(), db.sql, sub,
		goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
}

// migrate applies the pending migrations.
func (db *DB) migrate(ctx context.Context) error {
	p, err := db.provider()
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	// Another process may apply a migration between our listing of the
	// applied versions and our applying it (the listing is not under the
	// write lock): listing again settles it. Each failure of that kind
	// means another process applied one, so a retry per migration file
	// (and one more) is enough however many processes race.
	for attempt := 0; ; attempt++ {
		_, err := p.Up(ctx)
		if err == nil {
			break
		}
		if attempt > len(p.ListSources()) {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	have, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	if latest := latestVersion(db.dialect.migrationsDir()); have > latest {
		return fmt.Errorf("%w: file at version %d, this program knows up to %d", ErrSchemaTooNew, have, latest)
	}
	return nil
}

func latestVersion(dir string) int64 {
	entries, err := migrationFiles.ReadDir(dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	var latest int64
	for _, e := range entries {
		v, err := goose.NumericComponent(e.Name())
		if err == nil && v > latest {
			latest = v
		}
	}
	return latest
}

// SchemaVersion returns the schema version of the open file (the highest
// applied migration), or an error if it cannot be read.
func (db *DB) SchemaVersion(ctx context.Context) (int64, error) {
	p, err := db.provider()
	if err != nil {
		return 0, err
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("storage: schema version: %w", err)
	}
	return v, nil
}

// Path returns the path given to Open.
func (db *DB) Path() string { return db.path }

// Close closes the database. Calls after Close fail.
func (db *DB) Close() error {
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("storage: close %s: %w", db.path, err)
	}
	return nil
}

// inTx runs fn in one (immediate) transaction, committing when fn returns nil
// and rolling back otherwise.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// ---- studies ----

const studyColumns = `name, settings, seed, server_version, host_cores, host_ram_bytes, created, spent_seconds`

type scanner interface{ Scan(dest ...any) error }

func scanStudy(r scanner) (StudyRecord, error) {
	var (
		s       StudyRecord
		created string
		spent   float64
	)
	if err := r.Scan(&s.Name, &s.Settings, &s.Seed, &s.ServerVersion, &s.Cores, &s.RAMBytes, &created, &spent); err != nil {
		return StudyRecord{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		return StudyRecord{}, fmt.Errorf("study %q: created: %w", s.Name, err)
	}
	s.Created = t
	s.Spent = seconds(spent)
	return s, nil
}

// Study returns the study called name; found is false (with a nil error)
// when there is none. The error reports a failed query.
func (db *DB) Study(ctx context.Context, name string) (s StudyRecord, found bool, err error) {
	row := db.sql.QueryRowContext(ctx, `SELECT `+studyColumns+` FROM studies WHERE name = ?`, name)
	s, err = scanStudy(row)
	if errors.Is(err, sql.ErrNoRows) {
		return StudyRecord{}, false, nil
	}
	if err != nil {
		return StudyRecord{}, false, fmt.Errorf("storage: study %q: %w", name, err)
	}
	return s, true, nil
}

// CreateStudy inserts s. A zero s.Created is set to now. It returns an error
// wrapping ErrStudyExists when the name is taken, and an error when the name
// is empty, Settings is not JSON or holds a password, Cores or RAMBytes or
// Spent is negative.
func (db *DB) CreateStudy(ctx context.Context, s StudyRecord) error {
	if err := checkStudy(s); err != nil {
		return fmt.Errorf("storage: create study %q: %w", s.Name, err)
	}
	if s.Spent < 0 {
		return fmt.Errorf("storage: create study %q: negative spent %v", s.Name, s.Spent)
	}
	if s.Created.IsZero() {
		s.Created = time.Now()
	}
	created, err := timeText(s.Created)
	if err != nil {
		return fmt.Errorf("storage: create study %q: created: %w", s.Name, err)
	}
	_, err = db.sql.ExecContext(ctx, `INSERT INTO studies (`+studyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.Name, s.Settings, s.Seed, s.ServerVersion, s.Cores, s.RAMBytes, created, s.Spent.Seconds())
	if isDuplicateKey(err) {
		return fmt.Errorf("storage: create study %q: %w", s.Name, ErrStudyExists)
	}
	if err != nil {
		return fmt.Errorf("storage: create study %q: %w", s.Name, err)
	}
	return nil
}

// UpdateStudy sets the server version, settings and seed of the study
// s.Name (other fields are ignored). It returns an error wrapping ErrNoStudy
// when there is no such study, and an error when Settings is not JSON or
// holds a password.
func (db *DB) UpdateStudy(ctx context.Context, s StudyRecord) error {
	if err := checkSettings(s.Settings); err != nil {
		return fmt.Errorf("storage: update study %q: %w", s.Name, err)
	}
	res, err := db.sql.ExecContext(ctx, `UPDATE studies SET server_version = ?, settings = ?, seed = ? WHERE name = ?`,
		s.ServerVersion, s.Settings, s.Seed, s.Name)
	if err != nil {
		return fmt.Errorf("storage: update study %q: %w", s.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("storage: update study %q: %w", s.Name, err)
	} else if n == 0 {
		return fmt.Errorf("storage: update study %q: %w", s.Name, ErrNoStudy)
	}
	return nil
}

// Studies returns every study, oldest first (by Created, then name).
func (db *DB) Studies(ctx context.Context) ([]StudyRecord, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+studyColumns+` FROM studies ORDER BY created, name`)
	if err != nil {
		return nil, fmt.Errorf("storage: studies: %w", err)
	}
	defer rows.Close()
	var out []StudyRecord
	for rows.Next() {
		s, err := scanStudy(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: studies: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: studies: %w", err)
	}
	return out, nil
}

// addSpent adds d (>= 0) to the budget used by study; ErrNoStudy when
// there is no such study.
func addSpent(ctx context.Context, tx *sql.Tx, study string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("negative spent %v", d)
	}
	res, err := tx.ExecContext(ctx, `UPDATE studies SET spent_seconds = spent_seconds + ? WHERE name = ?`, d.Seconds(), study)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNoStudy
	}
	return nil
}

func checkStudy(s StudyRecord) error {
	if s.Name == "" {
		return errors.New("empty name")
	}
	if s.Cores < 0 || s.RAMBytes < 0 {
		return fmt.Errorf("negative host size (%d cores, %d bytes RAM)", s.Cores, s.RAMBytes)
	}
	return checkSettings(s.Settings)
}

// checkSettings accepts empty text or JSON without a password in it.
func checkSettings(settings string) error {
	if settings == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(settings), &v); err != nil {
		return fmt.Errorf("settings are not JSON: %w", err)
	}
	if key := passwordKey(v); key != "" {
		return fmt.Errorf("settings hold a password (key %q); store its source, never the value", key)
	}
	return nil
}

// namesPassword reports whether an object key names a password itself
// ("password", "db_password", "passwd", "pwd") rather than where one comes
// from ("password_env", "password_file").
func namesPassword(key string) bool {
	k := strings.ToLower(key)
	return strings.HasSuffix(k, "password") || strings.HasSuffix(k, "passwd") || k == "pwd"
}

// passwordKey returns the first object key in v, at any depth, that names a
// password and has a non-empty string value, or "".
func passwordKey(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := v[k].(string); ok && s != "" && namesPassword(k) {
				return k
			}
			if found := passwordKey(v[k]); found != "" {
				return found
			}
		}
	case []any:
		for _, e := range v {
			if found := passwordKey(e); found != "" {
				return found
			}
		}
	}
	return ""
}

// ---- trials ----

const trialColumns = `study, number, state, kind, params, score, mean_tps, std_tps, p95_ms,
	server_version, restarted, phases, failure, error_log, summary, started, ended`

// trialArgs returns the values of trialColumns for t.
func trialArgs(t search.Trial) ([]any, error) {
	params := t.Params
	if params == nil {
		params = space.Config{}
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	var phases any // NULL when nil
	if t.Phases != nil {
		b, err := json.Marshal(t.Phases)
		if err != nil {
			return nil, fmt.Errorf("phases: %w", err)
		}
		phases = string(b)
	}
	var score any // NULL unless complete or pruned (its partial window)
	if t.State == search.Complete || t.State == search.Pruned {
		score = nullFloat(t.Score)
	}
	started, err := timeText(t.Started)
	if err != nil {
		return nil, fmt.Errorf("started: %w", err)
	}
	ended, err := timeText(t.Ended)
	if err != nil {
		return nil, fmt.Errorf("ended: %w", err)
	}
	return []any{
		t.Study, t.Number, string(t.State), string(t.Kind), string(pj),
		score, nullFloat(t.MeanTPS), nullFloat(t.StdTPS), nullFloat(t.P95MS),
		t.ServerVersion, t.Restarted, phases, t.Failure, t.ErrorLog, t.Summary,
		started, ended,
	}, nil
}

func scanTrial(r scanner) (search.Trial, error) {
	var (
		t                     search.Trial
		state, kind, params   string
		score, mean, std, p95 sql.NullFloat64
		phases                sql.NullString
		started, ended        sql.NullString
	)
	err := r.Scan(&t.Study, &t.Number, &state, &kind, &params, &score, &mean, &std, &p95,
		&t.ServerVersion, &t.Restarted, &phases, &t.Failure, &t.ErrorLog, &t.Summary, &started, &ended)
	if err != nil {
		return search.Trial{}, err
	}
	t.State, t.Kind = search.State(state), search.Kind(kind)
	t.Params = space.Config{}
	if err := json.Unmarshal([]byte(params), &t.Params); err != nil {
		return search.Trial{}, fmt.Errorf("trial %d: params: %w", t.Number, err)
	}
	if phases.Valid {
		if err := json.Unmarshal([]byte(phases.String), &t.Phases); err != nil {
			return search.Trial{}, fmt.Errorf("trial %d: phases: %w", t.Number, err)
		}
	}
	if t.State == search.Complete || t.State == search.Pruned {
		t.Score = floatOf(score)
	}
	t.MeanTPS, t.StdTPS, t.P95MS = floatOf(mean), floatOf(std), floatOf(p95)
	if t.Started, err = parseTime(started); err != nil {
		return search.Trial{}, fmt.Errorf("trial %d: started: %w", t.Number, err)
	}
	if t.Ended, err = parseTime(ended); err != nil {
		return search.Trial{}, fmt.Errorf("trial %d: ended: %w", t.Number, err)
	}
	return t, nil
}

func checkTrial(t search.Trial) error {
	if t.Number < 0 {
		return fmt.Errorf("negative trial number %d", t.Number)
	}
	if !t.Kind.Known() && !t.Kind.Extra() { // Extra: re-measurements (search/confirm.go)
		return fmt.Errorf("unknown kind %q", t.Kind)
	}
	return nil
}

// BeginTrial inserts t in state Running (whatever t.State says), with its
// params, started time and whatever outcome fields are set. It returns an
// error wrapping ErrTrialExists when the study already has a trial with
// t.Number, wrapping ErrNoStudy when the study does not exist, and an error
// for a negative number or an unknown kind.
func (db *DB) BeginTrial(ctx context.Context, t search.Trial) error {
	fail := func(err error) error {
		return fmt.Errorf("storage: begin trial %d of study %q: %w", t.Number, t.Study, err)
	}
	t.State = search.Running
	if err := checkTrial(t); err != nil {
		return fail(err)
	}
	args, err := trialArgs(t)
	if err != nil {
		return fail(err)
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, t.Study); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO trials (`+trialColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
		if isDuplicateKey(err) {
			return ErrTrialExists
		}
		if err != nil {
			return err
		}
		if err := saveMeasurement(ctx, tx, t); err != nil {
			return err
		}
		return saveExtras(ctx, tx, t)
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// FinishTrial records the end of t in one transaction: it writes t's state,
// outcome fields, params and times to the trial row (inserting the row if
// BeginTrial never ran), replaces the trial's samples with t.Samples,
// drops its live samples (AppendLiveSamples), and adds spent to the study's budget used. Either all of it is stored or
// none.
//
// t.State must be Complete, Failed, Rejected or Interrupted. Score is stored only for
// Complete trials. It returns an error wrapping ErrNoStudy when the study
// does not exist, and an error for a Running or unknown state, an unknown
// kind, a negative number or spent, or phases that are not finite.
func (db *DB) FinishTrial(ctx context.Context, t search.Trial, spent time.Duration) error {
	fail := func(err error) error {
		return fmt.Errorf("storage: finish trial %d of study %q: %w", t.Number, t.Study, err)
	}
	switch t.State {
	case search.Complete, search.Failed, search.Interrupted, search.Rejected, search.Pruned:
	default:
		return fail(fmt.Errorf("cannot finish in state %q", t.State))
	}
	if err := checkTrial(t); err != nil {
		return fail(err)
	}
	if spent < 0 {
		return fail(fmt.Errorf("negative spent %v", spent))
	}
	args, err := trialArgs(t)
	if err != nil {
		return fail(err)
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, t.Study); err != nil {
			return err
		}
		return db.finishTx(ctx, tx, t, args, spent)
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// finishTx is the body of FinishTrial's transaction: the upsert of the
// trial row, its samples and the spent budget.
func (db *DB) finishTx(ctx context.Context, tx *sql.Tx, t search.Trial, args []any, spent time.Duration) error {
	{
		_, err := tx.ExecContext(ctx, `INSERT INTO trials (`+trialColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			`+db.dialect.upsertTrial(), args...)
		if err != nil {
			return fmt.Errorf("trial row: %w", err)
		}
		if err := saveMeasurement(ctx, tx, t); err != nil {
			return err
		}
		if err := saveExtras(ctx, tx, t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM samples WHERE study = ? AND trial = ?`, t.Study, t.Number); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		if err := insertSamples(ctx, tx, "samples", t.Study, t.Number, t.Samples); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM live_samples WHERE study = ? AND trial = ?`, t.Study, t.Number); err != nil {
			return fmt.Errorf("live samples: %w", err)
		}
		if err := addSpent(ctx, tx, t.Study, spent); err != nil {
			return fmt.Errorf("spent: %w", err)
		}
		return nil
	}
}

// MarkInterrupted sets every Running trial of study to Interrupted, in one
// transaction, and returns those trials (with params, without samples)
// ordered by number. A Running trial at start-up was left by a killed
// process. The error reports a failed query; no trials are changed then.
func (db *DB) MarkInterrupted(ctx context.Context, study string) ([]search.Trial, error) {
	var out []search.Trial
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = queryTrials(ctx, tx, `WHERE study = ? AND state = ?`, study, string(search.Running))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE trials SET state = ? WHERE study = ? AND state = ?`,
			string(search.Interrupted), study, string(search.Running))
		if err != nil {
			return err
		}
		for _, t := range out {
			if _, err := tx.ExecContext(ctx, `DELETE FROM live_samples WHERE study = ? AND trial = ?`, study, t.Number); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: mark interrupted trials of study %q: %w", study, err)
	}
	for i := range out {
		out[i].State = search.Interrupted
	}
	return out, nil
}

// Trials returns every trial of study ordered by number, without samples;
// none (and a nil error) for an unknown study.
func (db *DB) Trials(ctx context.Context, study string) ([]search.Trial, error) {
	out, err := queryTrials(ctx, db.sql, `WHERE study = ?`, study)
	if err != nil {
		return nil, fmt.Errorf("storage: trials of study %q: %w", study, err)
	}
	return out, nil
}

// Trial returns trial number of study without samples; found is false
// (with a nil error) when there is none.
func (db *DB) Trial(ctx context.Context, study string, number int) (t search.Trial, found bool, err error) {
	out, err := queryTrials(ctx, db.sql, `WHERE study = ? AND number = ?`, study, number)
	if err != nil {
		return search.Trial{}, false, fmt.Errorf("storage: trial %d of study %q: %w", number, study, err)
	}
	if len(out) == 0 {
		return search.Trial{}, false, nil
	}
	return out[0], true, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryTrials(ctx context.Context, q querier, where string, args ...any) ([]search.Trial, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+trialColumns+` FROM trials `+where+` ORDER BY number`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []search.Trial
	for rows.Next() {
		t, err := scanTrial(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if err := loadMeasurements(ctx, q, out, where, args...); err != nil {
		return nil, err
	}
	return out, loadExtras(ctx, q, out, where, args...)
}

// Samples returns the per-second samples of trial number of study in the
// order FinishTrial was given them; none (and a nil error) when the trial
// has none or does not exist.
func (db *DB) Samples(ctx context.Context, study string, number int) ([]measure.Sample, error) {
	out, err := querySamples(ctx, db.sql, "samples", study, number)
	if err != nil {
		return nil, fmt.Errorf("storage: samples of trial %d of study %q: %w", number, study, err)
	}
	return out, nil
}

// sampleColumns are the columns of a sample in the tables samples and
// live_samples, in the order insertSamples and querySamples use.
const sampleColumns = "t, warmup, tps, qps, `reads`, writes, other, lat_pct, lat_ms, err_ps, reconn_ps, threads, hll"

// execer is what insertSamples needs of a transaction.
type execer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// insertSamples appends ss to table (samples or live_samples) for trial
// number of study, in order.
func insertSamples(ctx context.Context, tx execer, table, study string, number int, ss []measure.Sample) error {
	if len(ss) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO `+table+` (study, trial, `+sampleColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	defer stmt.Close()
	for i, s := range ss {
		_, err := stmt.ExecContext(ctx, study, number, nullFloat(s.T), s.Warmup,
			nullFloat(s.TPS), nullFloat(s.QPS), nullFloat(s.Reads), nullFloat(s.Writes), nullFloat(s.Other),
			nullFloat(s.LatPct), nullFloat(s.LatMS), nullFloat(s.ErrPS), nullFloat(s.ReconnPS), nullInt(s.Threads), nullPtr(s.HLL))
		if err != nil {
			return fmt.Errorf("%s: sample %d: %w", table, i, err)
		}
	}
	return nil
}

// querySamples reads the samples of trial number of study from table
// (samples or live_samples) in insertion order.
func querySamples(ctx context.Context, q querier, table, study string, number int) ([]measure.Sample, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+sampleColumns+` FROM `+table+` WHERE study = ? AND trial = ? ORDER BY id`, study, number)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []measure.Sample
	for rows.Next() {
		var (
			s       measure.Sample
			v       [10]sql.NullFloat64
			threads sql.NullInt64
			hll     sql.NullFloat64
		)
		if err := rows.Scan(&v[0], &s.Warmup, &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &threads, &hll); err != nil {
			return nil, err
		}
		s.T, s.TPS, s.QPS = floatOf(v[0]), floatOf(v[1]), floatOf(v[2])
		s.Reads, s.Writes, s.Other = floatOf(v[3]), floatOf(v[4]), floatOf(v[5])
		s.LatPct, s.LatMS = floatOf(v[6]), floatOf(v[7])
		s.ErrPS, s.ReconnPS = floatOf(v[8]), floatOf(v[9])
		s.Threads = int(threads.Int64)
		if hll.Valid {
			s.HLL = &hll.Float64
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// NextTrialNumber returns one more than the highest trial number of study,
// or 0 when it has no trials.
func (db *DB) NextTrialNumber(ctx context.Context, study string) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(number) + 1, 0) FROM trials WHERE study = ?`, study).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("storage: next trial number of study %q: %w", study, err)
	}
	return n, nil
}

// ---- helpers ----

func studyExists(ctx context.Context, tx *sql.Tx, study string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM studies WHERE name = ?`, study).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoStudy
	}
	return err
}

// isDuplicateKey reports whether err is a duplicate-key error of either
// store: MySQL's ER_DUP_ENTRY or an SQLite primary-key or unique constraint
// violation (sqlite_cgo.go).
func isDuplicateKey(err error) bool {
	return isMySQLDuplicate(err) || isSQLiteDuplicate(err)
}

// timeText formats t for storage: NULL for the zero time, else RFC 3339 UTC
// with nine fractional digits. Years outside 0..9999 are an error.
func timeText(t time.Time) (any, error) {
	if t.IsZero() {
		return nil, nil
	}
	u := t.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("year %d out of range", y)
	}
	return u.Format(timeLayout), nil
}

// parseTime reverses timeText.
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s.String)
}

// nullFloat stores NaN and ±Inf as NULL, read back as NaN (not reported):
// SQLite has no NaN, and MySQL's DOUBLE holds neither (Error 1264, out of
// range), so a value that is no measurement is stored alike in both.
func nullFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// floatOf reverses nullFloat: NULL is NaN.
func floatOf(f sql.NullFloat64) float64 {
	if !f.Valid {
		return math.NaN()
	}
	return f.Float64
}

// seconds converts REAL seconds to a Duration, rounded to the nanosecond.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}
