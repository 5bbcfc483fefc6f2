-- MySQL dialect of ../migrations/00011_minimization.sql: the minimisation
-- of a study's best trial and its steps.

-- +goose Up
CREATE TABLE minimizations (
    study       VARCHAR(255) NOT NULL PRIMARY KEY,
    best        INT          NOT NULL CHECK (best >= 0),
    goal        VARCHAR(16)  NOT NULL,
    changes     INT          NOT NULL CHECK (changes >= 0),
    config      MEDIUMTEXT   NOT NULL,
    done        TINYINT      NOT NULL CHECK (done IN (0, 1)),
    accepted    TINYINT      NOT NULL CHECK (accepted IN (0, 1)),
    runs        INT          NOT NULL CHECK (runs >= 0),
    pairs       INT          NOT NULL CHECK (pairs >= 0),
    check_pct   DOUBLE,
    check_lo    DOUBLE,
    check_hi    DOUBLE,
    check_pairs INT,
    computed    VARCHAR(40)  NOT NULL,
    CONSTRAINT minimizations_study_fk FOREIGN KEY (study) REFERENCES studies (name) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE minimization_steps (
    study   VARCHAR(255) NOT NULL,
    step    INT          NOT NULL CHECK (step >= 1),
    knobs   MEDIUMTEXT   NOT NULL,
    vals    MEDIUMTEXT   NOT NULL,
    status  VARCHAR(16)  NOT NULL,
    pct     DOUBLE,
    lo      DOUBLE,
    hi      DOUBLE,
    pairs   INT          NOT NULL CHECK (pairs >= 0),
    PRIMARY KEY (study, step),
    CONSTRAINT minimization_steps_study_fk FOREIGN KEY (study) REFERENCES studies (name) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE minimization_steps;
DROP TABLE minimizations;
