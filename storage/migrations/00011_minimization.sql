-- The minimisation of a study's best trial (search.Minimized): the minimal
-- configuration, whether it is done and accepted, the final check, and one
-- row per step with the changes it reverted and their measured
-- contribution. Replaced after every minimisation run
-- (DB.SaveMinimization); the runs themselves are trials of the
-- minimisation kinds.

-- +goose Up
CREATE TABLE minimizations (
    study       TEXT    NOT NULL PRIMARY KEY REFERENCES studies (name) ON DELETE CASCADE,
    -- the minimised trial
    best        INTEGER NOT NULL CHECK (best >= 0),
    -- objective of the comparisons: tps, qps or p95
    goal        TEXT    NOT NULL,
    -- knobs the best changes from the baseline
    changes     INTEGER NOT NULL CHECK (changes >= 0),
    -- the minimal configuration: JSON object knob -> canonical value
    config      TEXT    NOT NULL,
    done        INTEGER NOT NULL CHECK (done IN (0, 1)),
    accepted    INTEGER NOT NULL CHECK (accepted IN (0, 1)),
    -- finished minimisation runs: the cost in trials
    runs        INTEGER NOT NULL CHECK (runs >= 0),
    -- interleaved pairs per step (--minimize-pairs): it resumes with these
    pairs       INTEGER NOT NULL CHECK (pairs >= 0),
    -- final check, minimal against the full best, percent (NULL: not run)
    check_pct   REAL,
    check_lo    REAL,
    check_hi    REAL,
    check_pairs INTEGER,
    computed    TEXT    NOT NULL
) STRICT;

CREATE TABLE minimization_steps (
    study   TEXT    NOT NULL REFERENCES studies (name) ON DELETE CASCADE,
    -- 1, 2, ... in the order the steps ran
    step    INTEGER NOT NULL CHECK (step >= 1),
    -- the knobs reverted together: JSON array, catalogue order
    knobs   TEXT    NOT NULL,
    -- the best's values of those knobs: JSON object
    vals    TEXT    NOT NULL,
    -- kept, reverted, split, untested or unmeasured (search.MinStatus)
    status  TEXT    NOT NULL,
    -- what keeping the knobs gains over reverting them, percent, with the
    -- 95 % interval (NULL when not measured)
    pct     REAL,
    lo      REAL,
    hi      REAL,
    pairs   INTEGER NOT NULL CHECK (pairs >= 0),
    PRIMARY KEY (study, step)
) STRICT;

-- +goose Down
DROP TABLE minimization_steps;
DROP TABLE minimizations;
