-- Whether a trial's buffer pool loaded the dataset's page list before it
-- was measured (search.Trial.PoolLoad): '' when no load was asked for
-- (--cold-start, an existing server), 'loaded', or why it ran cold.

-- +goose Up
ALTER TABLE trials ADD COLUMN pool_load TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN pool_load;
