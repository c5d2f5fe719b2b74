-- auditctl schema, version 1. Migrations are the single source of the schema: never edit a
-- migration that has shipped; add the next NNNN_name.sql instead.

PRAGMA application_id = 1096107092; -- 'AUDT'

-- The migrator's own ledger: one row per applied migration, written in that migration's transaction.
CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    applied_at TEXT NOT NULL
);

-- One row per recording (or replay). `status` moves recording -> complete, or -> interrupted when
-- the process that recorded it died (noticed by the next process that opens the database to write).
CREATE TABLE sessions (
    id              INTEGER PRIMARY KEY,
    name            TEXT,
    scenario        TEXT NOT NULL,
    scenario_source TEXT NOT NULL,
    delegate        TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    ended_at        TEXT,
    status          TEXT NOT NULL DEFAULT 'recording'
                    CHECK (status IN ('recording', 'complete', 'interrupted')),
    replay_of       INTEGER REFERENCES sessions (id),
    replay_mode     TEXT,
    event_count     INTEGER NOT NULL DEFAULT 0,
    input_count     INTEGER NOT NULL DEFAULT 0,
    callback_count  INTEGER NOT NULL DEFAULT 0,
    veto_count      INTEGER NOT NULL DEFAULT 0,
    failure_count   INTEGER NOT NULL DEFAULT 0,
    owner_pid       INTEGER,
    owner_token     INTEGER
);

-- Every callback and input name, stored once. `protocol` is '' for inputs.
CREATE TABLE callbacks (
    id       INTEGER PRIMARY KEY,
    kind     TEXT NOT NULL CHECK (kind IN ('input', 'callback')),
    protocol TEXT NOT NULL,
    name     TEXT NOT NULL,
    UNIQUE (kind, protocol, name)
);

-- The widget tree of a session; events refer to a widget by its small per-session id.
CREATE TABLE widgets (
    session INTEGER NOT NULL REFERENCES sessions (id),
    id      INTEGER NOT NULL,
    path    TEXT NOT NULL,
    kind    TEXT NOT NULL,
    parent  INTEGER,
    PRIMARY KEY (session, id)
) WITHOUT ROWID;

-- The compact event log. flags: 1 implemented, 2 can veto or override, 4 vetoed.
-- args is a JSON object, result is JSON (NULL for a void callback), times are nanoseconds.
CREATE TABLE events (
    session     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    t_ns        INTEGER NOT NULL,
    widget      INTEGER NOT NULL,
    callback    INTEGER NOT NULL,
    flags       INTEGER NOT NULL,
    args        TEXT NOT NULL,
    result      TEXT,
    duration_ns INTEGER NOT NULL,
    parent_seq  INTEGER,
    PRIMARY KEY (session, seq)
) WITHOUT ROWID;

-- The readable face of the log: what users query.
CREATE VIEW timeline AS
SELECT
    e.session                                        AS session,
    e.seq                                            AS seq,
    e.t_ns / 1000000.0                               AS t_ms,
    c.kind                                           AS kind,
    w.path                                           AS widget,
    w.kind                                           AS widget_kind,
    NULLIF(c.protocol, '')                           AS protocol,
    c.name                                           AS callback,
    e.args                                           AS args,
    e.result                                         AS result,
    CASE WHEN e.flags & 2 THEN (e.flags & 4) != 0 END AS vetoed,
    CASE WHEN c.kind = 'callback' THEN e.flags & 1 END AS implemented,
    e.duration_ns / 1000.0                           AS duration_us,
    e.parent_seq                                     AS parent_seq
FROM events AS e
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = e.session AND w.id = e.widget;
