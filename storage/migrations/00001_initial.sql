-- Initial schema of trials.db.
--
-- Conventions:
--   * Times are TEXT in RFC 3339 UTC with exactly nine fractional digits
--     ("2006-01-02T15:04:05.000000000Z"), so they sort as text; NULL is the
--     zero time (a trial not yet ended).
--   * Measured values are REAL; NULL stands for NaN (SQLite cannot store
--     NaN). A trial's score is NULL unless the trial is complete.
--   * JSON columns hold JSON text written by the Go code.
--   * State and kind are checked by the Go code, not by CHECK constraints, so
--     that a new state or kind needs no table rebuild.

-- +goose Up
CREATE TABLE studies (
    name            TEXT    NOT NULL PRIMARY KEY CHECK (name <> ''),
    -- benchmark and search settings as JSON; never any password
    settings        TEXT    NOT NULL DEFAULT '',
    seed            INTEGER NOT NULL DEFAULT 0,
    server_version  TEXT    NOT NULL DEFAULT '',
    host_cores      INTEGER NOT NULL DEFAULT 0 CHECK (host_cores >= 0),
    host_ram_bytes  INTEGER NOT NULL DEFAULT 0 CHECK (host_ram_bytes >= 0),
    created         TEXT    NOT NULL,
    -- wall-clock budget used across all runs, in seconds
    spent_seconds   REAL    NOT NULL DEFAULT 0 CHECK (spent_seconds >= 0)
) STRICT;

CREATE TABLE trials (
    study           TEXT    NOT NULL REFERENCES studies (name) ON DELETE CASCADE,
    number          INTEGER NOT NULL CHECK (number >= 0),
    state           TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    -- JSON object: knob name -> canonical value; '{}' for the baseline
    params          TEXT    NOT NULL DEFAULT '{}',
    score           REAL,
    mean_tps        REAL,
    std_tps         REAL,
    p95_ms          REAL,
    server_version  TEXT    NOT NULL DEFAULT '',
    restarted       INTEGER NOT NULL DEFAULT 0 CHECK (restarted IN (0, 1)),
    -- JSON object: phase name -> seconds; NULL when none were recorded
    phases          TEXT,
    failure         TEXT    NOT NULL DEFAULT '',
    error_log       TEXT    NOT NULL DEFAULT '',
    -- the benchmark's own final report (JSON text, may be empty)
    summary         TEXT    NOT NULL DEFAULT '',
    started         TEXT,
    ended           TEXT,
    PRIMARY KEY (study, number)
) STRICT;

CREATE TABLE samples (
    id              INTEGER PRIMARY KEY,
    study           TEXT    NOT NULL,
    trial           INTEGER NOT NULL,
    -- seconds since the benchmark started
    t               REAL,
    warmup          INTEGER NOT NULL CHECK (warmup IN (0, 1)),
    tps             REAL,
    qps             REAL,
    reads           REAL,
    writes          REAL,
    other           REAL,
    lat_pct         REAL,
    lat_ms          REAL,
    err_ps          REAL,
    reconn_ps       REAL,
    FOREIGN KEY (study, trial) REFERENCES trials (study, number) ON DELETE CASCADE
) STRICT;

-- Samples are read per trial, in insertion (id) order.
CREATE INDEX samples_study_trial ON samples (study, trial);

-- +goose Down
DROP INDEX samples_study_trial;
DROP TABLE samples;
DROP TABLE trials;
DROP TABLE studies;
