-- MySQL dialect of ../migrations/00016_fingerprint.sql: the key of the
-- conditions each trial was measured under.

-- +goose Up
ALTER TABLE trials ADD COLUMN fingerprint VARCHAR(64) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN fingerprint;
