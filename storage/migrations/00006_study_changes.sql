-- Changes accepted on resume with --allow-changes: which part of the study
-- manifest (server version, host cores/RAM, settings) changed, and when.

-- +goose Up
CREATE TABLE study_changes (
    id      INTEGER NOT NULL PRIMARY KEY,
    study   TEXT    NOT NULL REFERENCES studies (name) ON DELETE CASCADE,
    at      TEXT    NOT NULL,
    field   TEXT    NOT NULL,
    old     TEXT    NOT NULL,
    new     TEXT    NOT NULL
) STRICT;
CREATE INDEX study_changes_study ON study_changes (study, id);

-- +goose Down
DROP TABLE study_changes;
