-- Where a seeded trial's configuration came from (--seed-from: a my.cnf
-- or an earlier study, as the user named it); '' for every other trial.

-- +goose Up
ALTER TABLE trials ADD COLUMN source TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE trials DROP COLUMN source;
