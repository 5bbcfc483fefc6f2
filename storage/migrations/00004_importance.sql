-- Knob importance of a study: one row per knob, replaced each
-- time `autotune search` ends. Importance is the knob's share of the
-- explained score variance (0..1, the knobs of one study sum to <= 1),
-- estimated from `trials` complete trials (search.Importance).

-- +goose Up
CREATE TABLE importance (
    study           TEXT    NOT NULL REFERENCES studies (name) ON DELETE CASCADE,
    knob            TEXT    NOT NULL,
    importance      REAL    NOT NULL CHECK (importance >= 0 AND importance <= 1),
    -- rank by importance, 1 = most important
    rank            INTEGER NOT NULL CHECK (rank >= 1),
    -- complete trials the estimate is based on
    trials          INTEGER NOT NULL CHECK (trials >= 0),
    computed        TEXT    NOT NULL,
    PRIMARY KEY (study, knob)
) STRICT;

-- +goose Down
DROP TABLE importance;
