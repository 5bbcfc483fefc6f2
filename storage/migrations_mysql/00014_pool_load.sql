-- MySQL dialect of ../migrations/00014_pool_load.sql: whether a trial's
-- buffer pool loaded the dataset's page list before it was measured.

-- +goose Up
ALTER TABLE trials ADD COLUMN pool_load VARCHAR(1024) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN pool_load;
