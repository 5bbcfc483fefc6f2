-- Several workers on one study (MySQL/MariaDB stores only): who runs each
-- trial, on which hardware, and when it last proved it is alive.
--
-- A claim row is written in the same transaction as the Running trial row.
-- heartbeat is the store server's UTC clock (UTC_TIMESTAMP(6)), so workers
-- on hosts with skewed clocks still agree on staleness.

-- +goose Up
CREATE TABLE trial_claims (
    study           VARCHAR(255) NOT NULL,
    number          INT          NOT NULL,
    -- worker identity: host name, pid and a random suffix
    worker          VARCHAR(255) NOT NULL,
    host            VARCHAR(255) NOT NULL,
    host_cores      INT          NOT NULL,
    host_ram_bytes  BIGINT       NOT NULL,
    claimed         DATETIME(6)  NOT NULL,
    heartbeat       DATETIME(6)  NOT NULL,
    PRIMARY KEY (study, number),
    CONSTRAINT trial_claims_trial FOREIGN KEY (study, number) REFERENCES trials (study, number) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE trial_claims;
