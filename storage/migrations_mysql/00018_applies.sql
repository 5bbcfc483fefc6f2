-- MySQL dialect of ../migrations/00018_applies.sql: autotune apply's audit
-- trail.

-- +goose Up
CREATE TABLE applies (
    id       BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    server   VARCHAR(512) NOT NULL,
    dsn      VARCHAR(1024) NOT NULL,
    source   MEDIUMTEXT   NOT NULL,
    started  VARCHAR(40)  NOT NULL,
    ended    VARCHAR(40),
    phase    VARCHAR(32)  NOT NULL,
    verdict  VARCHAR(32)  NOT NULL DEFAULT '',
    reason   MEDIUMTEXT   NOT NULL,
    saved    MEDIUMTEXT   NOT NULL,
    changes  MEDIUMTEXT   NOT NULL,
    INDEX applies_server (server(255), id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE apply_events (
    id      BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    apply   BIGINT      NOT NULL,
    at      VARCHAR(40) NOT NULL,
    kind    VARCHAR(32) NOT NULL,
    detail  MEDIUMTEXT  NOT NULL,
    INDEX apply_events_apply (apply, id),
    CONSTRAINT apply_events_apply_fk FOREIGN KEY (apply) REFERENCES applies (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE apply_events;
DROP TABLE applies;
