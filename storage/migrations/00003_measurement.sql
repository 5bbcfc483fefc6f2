-- Measurement you can trust: detected warm-up, score components,
-- feasibility, thread levels with their metrics, and the links between a
-- trial and its re-measurements (confirmation, baseline rechecks, final
-- A/B runs).
--
-- Conventions as in 00001: REAL NULL stands for "not measured" (never 0);
-- JSON columns hold JSON text written by the Go code.

-- +goose Up
-- For kinds confirm/recheck/ab-best/ab-base: the trial re-measured (the
-- best under test for both A/B arms); NULL for other kinds.
ALTER TABLE trials ADD COLUMN repeat_of INTEGER;
-- confirmation re-measurements this trial needs before it may be the best
-- (the study's --confirm when it ran; 0 = its own score counts)
ALTER TABLE trials ADD COLUMN confirm_needed INTEGER NOT NULL DEFAULT 0 CHECK (confirm_needed >= 0);
-- p95 over --max-p95: complete, but never the best
ALTER TABLE trials ADD COLUMN infeasible INTEGER NOT NULL DEFAULT 0 CHECK (infeasible IN (0, 1));
-- detected warm-up of the first thread level, seconds; capped = reached --warmup
ALTER TABLE trials ADD COLUMN warmup_s REAL;
ALTER TABLE trials ADD COLUMN warmup_capped INTEGER NOT NULL DEFAULT 0 CHECK (warmup_capped IN (0, 1));
-- score components (README "How a trial is measured and scored"), in the
-- objective's unit, averaged over thread levels; NULL without a measurement
ALTER TABLE trials ADD COLUMN pen_variance REAL;
ALTER TABLE trials ADD COLUMN pen_dips REAL;
ALTER TABLE trials ADD COLUMN pen_stalls REAL;
ALTER TABLE trials ADD COLUMN pen_errors REAL;
ALTER TABLE trials ADD COLUMN pen_purge REAL;
-- raw inputs of the penalties: dip and stall seconds (totals), err/s and
-- reconn/s (means), history list growth in entries/s (NULL: not sampled)
ALTER TABLE trials ADD COLUMN dip_s INTEGER;
ALTER TABLE trials ADD COLUMN stall_s INTEGER;
ALTER TABLE trials ADD COLUMN err_ps REAL;
ALTER TABLE trials ADD COLUMN reconn_ps REAL;
ALTER TABLE trials ADD COLUMN hll_growth_ps REAL;
-- JSON array, one object per --threads level: threads, warm-up, score,
-- components, p95, and "metrics" (status deltas and CPU shares; null =
-- not available)
ALTER TABLE trials ADD COLUMN levels TEXT;
-- client threads of the run the sample belongs to (t restarts per level)
ALTER TABLE samples ADD COLUMN threads INTEGER;
-- InnoDB history list length sampled during that second
ALTER TABLE samples ADD COLUMN hll REAL;

-- +goose Down
ALTER TABLE samples DROP COLUMN hll;
ALTER TABLE samples DROP COLUMN threads;
ALTER TABLE trials DROP COLUMN levels;
ALTER TABLE trials DROP COLUMN hll_growth_ps;
ALTER TABLE trials DROP COLUMN reconn_ps;
ALTER TABLE trials DROP COLUMN err_ps;
ALTER TABLE trials DROP COLUMN stall_s;
ALTER TABLE trials DROP COLUMN dip_s;
ALTER TABLE trials DROP COLUMN pen_purge;
ALTER TABLE trials DROP COLUMN pen_errors;
ALTER TABLE trials DROP COLUMN pen_stalls;
ALTER TABLE trials DROP COLUMN pen_dips;
ALTER TABLE trials DROP COLUMN pen_variance;
ALTER TABLE trials DROP COLUMN warmup_capped;
ALTER TABLE trials DROP COLUMN warmup_s;
ALTER TABLE trials DROP COLUMN infeasible;
ALTER TABLE trials DROP COLUMN confirm_needed;
ALTER TABLE trials DROP COLUMN repeat_of;
