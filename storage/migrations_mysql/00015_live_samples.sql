-- MySQL dialect of ../migrations/00015_live_samples.sql: the per-second
-- samples of a running trial, written while it runs.

-- +goose Up
CREATE TABLE live_samples (
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
    threads         INT,
    hll             DOUBLE,
    INDEX live_samples_study_trial (study, trial),
    CONSTRAINT live_samples_trial FOREIGN KEY (study, trial) REFERENCES trials (study, number) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE live_samples;
