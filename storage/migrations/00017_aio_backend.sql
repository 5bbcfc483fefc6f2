-- The asynchronous I/O backend a trial's server reported at start
-- (measure.Outcome.AIOBackend): 'io_uring', 'libaio', 'simulated', or ''
-- when unknown or not started for the trial.

-- +goose Up
ALTER TABLE trials ADD COLUMN aio_backend TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN aio_backend;
