-- Initial schema of a MySQL/MariaDB study store: the MySQL dialect of
-- ../migrations/00001_initial.sql (same tables, columns and meaning).
--
-- Differences from the SQLite file, and why:
--   * TEXT keys become VARCHAR(255) (an index needs a bounded length);
--     long texts are MEDIUMTEXT (an error-log excerpt may exceed 64 KiB).
--   * REAL is DOUBLE, INTEGER is INT/BIGINT, booleans TINYINT.
--   * Foreign keys are table constraints: MySQL ignores an inline
--     REFERENCES on a column.
--   * The tables use utf8mb4_bin so that study names compare exactly, as in
--     SQLite, not case-insensitively.
--   * TEXT columns have no DEFAULT (MySQL before 8.0.13 refuses one); the Go
--     code always writes them.

-- +goose Up
CREATE TABLE studies (
    name            VARCHAR(255) NOT NULL PRIMARY KEY CHECK (name <> ''),
    settings        MEDIUMTEXT   NOT NULL,
    seed            BIGINT       NOT NULL DEFAULT 0,
    server_version  VARCHAR(1024) NOT NULL DEFAULT '',
    host_cores      INT          NOT NULL DEFAULT 0 CHECK (host_cores >= 0),
    host_ram_bytes  BIGINT       NOT NULL DEFAULT 0 CHECK (host_ram_bytes >= 0),
    created         VARCHAR(40)  NOT NULL,
    spent_seconds   DOUBLE       NOT NULL DEFAULT 0 CHECK (spent_seconds >= 0)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE trials (
    study           VARCHAR(255) NOT NULL,
    number          INT          NOT NULL CHECK (number >= 0),
    state           VARCHAR(32)  NOT NULL,
    kind            VARCHAR(32)  NOT NULL,
    params          MEDIUMTEXT   NOT NULL,
    score           DOUBLE,
    mean_tps        DOUBLE,
    std_tps         DOUBLE,
    p95_ms          DOUBLE,
    server_version  VARCHAR(1024) NOT NULL DEFAULT '',
    restarted       TINYINT      NOT NULL DEFAULT 0 CHECK (restarted IN (0, 1)),
    phases          MEDIUMTEXT,
    failure         MEDIUMTEXT   NOT NULL,
    error_log       MEDIUMTEXT   NOT NULL,
    summary         MEDIUMTEXT   NOT NULL,
    started         VARCHAR(40),
    ended           VARCHAR(40),
    PRIMARY KEY (study, number),
    CONSTRAINT trials_study FOREIGN KEY (study) REFERENCES studies (name) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE samples (
    id              BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    study           VARCHAR(255) NOT NULL,
    trial           INT          NOT NULL,
    t               DOUBLE,
    warmup          TINYINT      NOT NULL CHECK (warmup IN (0, 1)),
    tps             DOUBLE,
    qps             DOUBLE,
    `reads`         DOUBLE,
    writes          DOUBLE,
    other           DOUBLE,
    lat_pct         DOUBLE,
    lat_ms          DOUBLE,
    err_ps          DOUBLE,
    reconn_ps       DOUBLE,
    INDEX samples_study_trial (study, trial),
    CONSTRAINT samples_trial FOREIGN KEY (study, trial) REFERENCES trials (study, number) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE samples;
DROP TABLE trials;
DROP TABLE studies;
