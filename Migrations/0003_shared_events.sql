-- Shared events: an isolated replay asks every recorded callback again with its recorded
-- arguments, so its events are the recorded ones, one for one, with the candidate's answers. Such a
-- session stores no event rows: `events_from` names the session whose rows it shares (up to
-- `events_through`), and `answers` holds the candidate's answers where they differ from the
-- recorded ones. Its times are the recording's and its durations 0 (the candidate is not timed).
-- The timeline view reads both kinds of session; each of its two arms is planned on its own, so
-- queries on recorded sessions keep their plans (the vetoes of one widget still start from the
-- widget and read events_vetoes).

ALTER TABLE sessions ADD COLUMN events_from INTEGER REFERENCES sessions (id);
ALTER TABLE sessions ADD COLUMN events_through INTEGER;

CREATE TABLE answers (
    session     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    result,                      -- as events.result
    vetoed      INTEGER,
    implemented INTEGER,
    PRIMARY KEY (session, seq)
) WITHOUT ROWID;

DROP VIEW timeline;

-- The readable face of the log: what users query. Same columns as versions 1 and 2.
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
LEFT JOIN widgets AS w ON w.session = e.session AND w.id = e.widget
UNION ALL
SELECT
    s.id                                                          AS session,
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
    CASE typeof((CASE WHEN x.seq IS NULL THEN e.result ELSE x.result END)) WHEN 'integer'
        THEN CASE (CASE WHEN x.seq IS NULL THEN e.result ELSE x.result END) WHEN 0 THEN 'false' ELSE 'true' END
        ELSE (CASE WHEN x.seq IS NULL THEN e.result ELSE x.result END) END
                                                                  AS result,
    CAST(CASE WHEN x.seq IS NULL THEN e.vetoed ELSE x.vetoed END AS INTEGER)
                                                                  AS vetoed,
    CAST(CASE WHEN x.seq IS NULL THEN e.implemented ELSE x.implemented END AS INTEGER)
                                                                  AS implemented,
    0.0                                                           AS duration_us,
    e.parent_seq                                                  AS parent_seq
FROM sessions AS s
JOIN events AS e ON e.session = s.events_from AND e.seq <= s.events_through
LEFT JOIN answers AS x ON x.session = s.id AND x.seq = e.seq
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = s.id AND w.id = e.widget
WHERE s.events_from IS NOT NULL;
