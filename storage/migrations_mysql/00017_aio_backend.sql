-- MySQL dialect of ../migrations/00017_aio_backend.sql: the asynchronous
-- I/O backend a trial's server reported at start.

-- +goose Up
ALTER TABLE trials ADD COLUMN aio_backend VARCHAR(32) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN aio_backend;
