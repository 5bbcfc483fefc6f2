-- MySQL dialect of ../migrations/00004_importance.sql: knob importance of a
-- study, one row per knob. `rank` is quoted: it is a reserved word in
-- MySQL 8.0.

-- +goose Up
CREATE TABLE importance (
    study           VARCHAR(255) NOT NULL,
    knob            VARCHAR(128) NOT NULL,
    importance      DOUBLE       NOT NULL CHECK (importance >= 0 AND importance <= 1),
    `rank`          INT          NOT NULL CHECK (`rank` >= 1),
    trials          INT          NOT NULL CHECK (trials >= 0),
    computed        VARCHAR(40)  NOT NULL,
    PRIMARY KEY (study, knob),
    CONSTRAINT importance_study_fk FOREIGN KEY (study) REFERENCES studies (name) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE importance;
