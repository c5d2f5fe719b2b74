-- A session identity that travels: every session gets a UUID (random, version 4, lowercase), kept
-- when sessions move between databases, and optional labels (key=value: device, build, branch)
-- stored with it. Sessions recorded before this migration get a UUID here.

ALTER TABLE sessions ADD COLUMN uuid TEXT;

UPDATE sessions SET uuid = lower(
    hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
    || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)));

CREATE UNIQUE INDEX sessions_uuid ON sessions (uuid);

CREATE TABLE session_labels (
    session INTEGER NOT NULL REFERENCES sessions (id),
    key     TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (session, key)
) WITHOUT ROWID;

CREATE INDEX session_labels_by_value ON session_labels (key, value);
