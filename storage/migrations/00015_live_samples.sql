-- The per-second samples of a running trial, written while it runs so
-- that autotune dashboard can show them as they arrive (DB.AppendLiveSamples).
-- Same columns as samples. FinishTrial (and MarkInterrupted) delete a
-- trial's rows: a finished trial's samples are in samples.

-- +goose Up
CREATE TABLE live_samples (
    id              INTEGER PRIMARY KEY,
    study           TEXT    NOT NULL,
    trial           INTEGER NOT NULL,
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
    threads         INTEGER,
    hll             REAL,
    FOREIGN KEY (study, trial) REFERENCES trials (study, number) ON DELETE CASCADE
) STRICT;

CREATE INDEX live_samples_study_trial ON live_samples (study, trial);

-- +goose Down
DROP INDEX live_samples_study_trial;
DROP TABLE live_samples;
