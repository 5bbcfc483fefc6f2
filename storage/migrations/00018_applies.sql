-- autotune apply's audit trail: one row per apply of a configuration to a
-- live server (applies), with what it saved before changing anything, and
-- every step it took (apply_events: plan, set, switch, window, verdict,
-- persist, revert, recover, tripwire).

-- +goose Up
CREATE TABLE applies (
    id       INTEGER NOT NULL PRIMARY KEY,
    server   TEXT    NOT NULL,
    dsn      TEXT    NOT NULL,
    source   TEXT    NOT NULL,
    started  TEXT    NOT NULL,
    ended    TEXT,
    phase    TEXT    NOT NULL,
    verdict  TEXT    NOT NULL DEFAULT '',
    reason   TEXT    NOT NULL DEFAULT '',
    saved    TEXT    NOT NULL DEFAULT '',
    changes  TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX applies_server ON applies (server, id);
CREATE TABLE apply_events (
    id      INTEGER NOT NULL PRIMARY KEY,
    apply   INTEGER NOT NULL REFERENCES applies (id) ON DELETE CASCADE,
    at      TEXT    NOT NULL,
    kind    TEXT    NOT NULL,
    detail  TEXT    NOT NULL
) STRICT;
CREATE INDEX apply_events_apply ON apply_events (apply, id);

-- +goose Down
DROP TABLE apply_events;
DROP TABLE applies;
