-- MySQL dialect of ../migrations/00012_trial_source.sql: where a seeded
-- trial's configuration came from.

-- +goose Up
ALTER TABLE trials ADD COLUMN source VARCHAR(1024) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN source;
