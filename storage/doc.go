// Package storage keeps studies, trials and per-second benchmark samples in
// trials.db, an SQLite file (github.com/mattn/go-sqlite3, so it needs cgo;
// a build without cgo compiles but keeps only MySQL/MariaDB stores).
//
// The file is opened in WAL mode with a busy timeout of 5 s, foreign keys on,
// and immediate write transactions, through one pooled connection: a *DB is
// safe for concurrent use by goroutines, and several processes may open the
// same file (writers wait for each other up to the busy timeout).
//
// # MySQL/MariaDB stores
//
// [Open] also accepts a URL mysql://USER@HOST:PORT/DATABASE (see
// [ParseMySQLURL]): the same tables in a MySQL/MariaDB database, so that
// several workers on several hosts share one study ([DB.Workers]). The SQL
// is the same except where the dialect differs (the trial upsert, duplicate
// key errors, the migration files in migrations_mysql/, which mirror
// migrations/ version for version and add 00008_workers.sql).
//
// # Schema and migrations
//
// The schema is versioned. Each version is an SQL file embedded from
// migrations/ (00001_initial.sql, 00002_..., in order) and applied by
// github.com/pressly/goose/v3, which records the applied versions in the
// table goose_db_version. [Open] applies every pending migration, each in
// its own transaction, and refuses a file whose schema is newer than this
// program knows. To change the schema, add a new numbered file; never edit
// one that has been released.
//
// # Tables
//
//   - studies: one row per study (name, JSON settings, seed, server
//     version, host cores and RAM, created time, budget spent in seconds).
//   - trials: one row per trial, keyed by (study, number): state, kind,
//     JSON params, the outcome (score, mean and std of tps, p95 latency,
//     server version, restarted, JSON phases, failure, error log excerpt,
//     JSON summary) and the start and end times.
//   - samples: the per-second benchmark reports of each trial, in order.
//   - live_samples: those of a running trial, written while it runs
//     ([DB.AppendLiveSamples], read by [DB.LiveSamples]) and dropped when
//     it finishes.
//   - importance: each knob's importance in a study (search.Importance),
//     replaced when a search ends ([DB.SaveImportance], [DB.Importance]).
//
// # Crash safety
//
// [DB.BeginTrial] commits a trial as running before it is measured, and
// [DB.FinishTrial] records its end state, outcome, samples and the budget it
// used in one transaction. A process killed in between leaves the trial
// running; the next run calls [DB.MarkInterrupted] to mark such trials
// interrupted and try their configurations again.
//
// # Values
//
// Times are stored as RFC 3339 UTC text with nanoseconds and read back in
// UTC (equal instants, compare with time.Time.Equal); the zero time is NULL.
// Measured values are REAL, with NaN stored as NULL. A trial's score is kept
// only for complete trials.
package storage
