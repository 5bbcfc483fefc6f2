-- MySQL dialect of ../migrations/00006_study_changes.sql: changes accepted
-- on resume with --allow-changes.

-- +goose Up
CREATE TABLE study_changes (
    id      BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    study   VARCHAR(255) NOT NULL,
    at      VARCHAR(40)  NOT NULL,
    field   VARCHAR(64)  NOT NULL,
    old     MEDIUMTEXT   NOT NULL,
    new     MEDIUMTEXT   NOT NULL,
    INDEX study_changes_study (study, id),
    CONSTRAINT study_changes_study_fk FOREIGN KEY (study) REFERENCES studies (name) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE study_changes;
