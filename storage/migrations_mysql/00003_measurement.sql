-- MySQL dialect of ../migrations/00003_measurement.sql: detected warm-up,
-- score components, feasibility, thread levels, re-measurement links.

-- +goose Up
ALTER TABLE trials
    ADD COLUMN repeat_of      BIGINT,
    ADD COLUMN confirm_needed INT      NOT NULL DEFAULT 0,
    ADD COLUMN infeasible     TINYINT  NOT NULL DEFAULT 0,
    ADD COLUMN warmup_s       DOUBLE,
    ADD COLUMN warmup_capped  TINYINT  NOT NULL DEFAULT 0,
    ADD COLUMN pen_variance   DOUBLE,
    ADD COLUMN pen_dips       DOUBLE,
    ADD COLUMN pen_stalls     DOUBLE,
    ADD COLUMN pen_errors     DOUBLE,
    ADD COLUMN pen_purge      DOUBLE,
    ADD COLUMN dip_s          BIGINT,
    ADD COLUMN stall_s        BIGINT,
    ADD COLUMN err_ps         DOUBLE,
    ADD COLUMN reconn_ps      DOUBLE,
    ADD COLUMN hll_growth_ps  DOUBLE,
    ADD COLUMN levels         MEDIUMTEXT;
ALTER TABLE samples
    ADD COLUMN threads INT,
    ADD COLUMN hll     DOUBLE;

-- +goose Down
ALTER TABLE samples DROP COLUMN hll, DROP COLUMN threads;
ALTER TABLE trials
    DROP COLUMN levels, DROP COLUMN hll_growth_ps, DROP COLUMN reconn_ps, DROP COLUMN err_ps,
    DROP COLUMN stall_s, DROP COLUMN dip_s, DROP COLUMN pen_purge, DROP COLUMN pen_errors,
    DROP COLUMN pen_stalls, DROP COLUMN pen_dips, DROP COLUMN pen_variance, DROP COLUMN warmup_capped,
    DROP COLUMN warmup_s, DROP COLUMN infeasible, DROP COLUMN confirm_needed, DROP COLUMN repeat_of;
