-- The key of the conditions each trial was measured under
-- (storage.Fingerprint: server, benchmark, durability, host, dataset):
-- '' in trials made before it was recorded.

-- +goose Up
ALTER TABLE trials ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN fingerprint;
