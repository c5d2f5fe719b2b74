-- Compact events: arguments stored by position (their labels once per callback), boolean answers
-- and the vetoed/implemented bits as SQL integers 0/1 (which SQLite stores in the record header
-- alone), and a partial index for "the vetoes of one widget in one session".
-- The timeline view keeps its columns and meaning. It uses only functions SQLite calls innocuous
-- (json_each, group_concat, replace), so it works with trusted_schema off, as `auditctl query`
-- runs; SQLite 3.40's JSON scalar functions are not innocuous.

ALTER TABLE callbacks ADD COLUMN labels TEXT NOT NULL DEFAULT '[]';

-- Labels of callbacks recorded by version 1: the keys of any of their argument objects (the
-- recorder wrote them in label order).
UPDATE callbacks SET labels = coalesce(
    (SELECT json_group_array(key)
     FROM (SELECT args FROM events WHERE events.callback = callbacks.id LIMIT 1) AS sample, json_each(sample.args)),
    '[]');

CREATE TABLE events_v2 (
    session     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    t_ns        INTEGER NOT NULL,
    widget      INTEGER NOT NULL,
    callback    INTEGER NOT NULL,
    args        TEXT NOT NULL,   -- JSON array, in the order of callbacks.labels
    result,                      -- 0/1 for a boolean answer, JSON text otherwise, NULL for void (no type:
                                 -- no affinity, so the text "1" stays text)
    vetoed      INTEGER,         -- 0/1 for callbacks that can veto or override, NULL otherwise
    implemented INTEGER,         -- 0/1 for callbacks, NULL for inputs
    duration_ns INTEGER NOT NULL,
    parent_seq  INTEGER,
    PRIMARY KEY (session, seq)
) WITHOUT ROWID;

INSERT INTO events_v2
SELECT e.session, e.seq, e.t_ns, e.widget, e.callback,
       (SELECT json_group_array(e.args -> ('$."' || l.value || '"')) FROM json_each(c.labels) AS l),
       CASE e.result WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE e.result END,
       CASE WHEN e.flags & 2 THEN (e.flags & 4) != 0 END,
       CASE WHEN c.kind = 'callback' THEN (e.flags & 1) != 0 END,
       e.duration_ns, e.parent_seq
FROM events AS e JOIN callbacks AS c ON c.id = e.callback;

DROP VIEW timeline;
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;

CREATE INDEX events_vetoes ON events (session, widget) WHERE vetoed;

-- The readable face of the log: what users query. Same columns as version 1.
CREATE VIEW timeline AS
SELECT
    e.session                                                     AS session,
    e.seq                                                         AS seq,
    e.t_ns / 1000000.0                                            AS t_ms,
    c.kind                                                        AS kind,
    w.path                                                        AS widget,
    w.kind                                                        AS widget_kind,
    NULLIF(c.protocol, '')                                        AS protocol,
    c.name                                                        AS callback,
    '{' || coalesce((
        SELECT group_concat('"' || l.value || '":' || CASE a.type
            WHEN 'text' THEN '"' || replace(replace(replace(replace(replace(
                a.value, '\', '\\'), '"', '\"'), char(10), '\n'), char(13), '\r'), char(9), '\t') || '"'
            WHEN 'true' THEN 'true'
            WHEN 'false' THEN 'false'
            WHEN 'null' THEN 'null'
            ELSE a.value END, ',')
        FROM json_each(c.labels) AS l JOIN json_each(e.args) AS a ON a.key = l.key), '') || '}'
                                                                  AS args,
    CASE typeof(e.result) WHEN 'integer' THEN CASE e.result WHEN 0 THEN 'false' ELSE 'true' END ELSE e.result END
                                                                  AS result,
    e.vetoed                                                      AS vetoed,
    e.implemented                                                 AS implemented,
    e.duration_ns / 1000.0                                        AS duration_us,
    e.parent_seq                                                  AS parent_seq
FROM events AS e
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = e.session AND w.id = e.widget;

-- Planner statistics, written by hand (SQLite reads sqlite_stat1 as if ANALYZE had written it):
-- sessions of about a million events, about ten widgets each, few vetoes. With them, "the vetoes
-- of one widget in one session" starts from the widget and reads events_vetoes, whatever the size
-- of the table; without them SQLite scans the whole session. A later ANALYZE replaces them.
ANALYZE sqlite_schema;
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('events', 'events', '10000000 1000000 1'),
    ('events', 'events_vetoes', '100000 10000 1000'),
    ('widgets', 'widgets', '10000 10 1');
