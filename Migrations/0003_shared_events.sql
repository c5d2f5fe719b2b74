-- Shared events: an isolated replay asks every recorded callback again with its recorded
-- arguments, so its events are the recorded ones, one for one, with the candidate's answers. Such a
-- session stores only the events whose answer differs: `events_from` names the session whose
-- other events it shares (those up to `events_through`). Its times are the recording's and its
-- durations 0 (the candidate is not timed); its `scenario_source` is empty (it is the recording's).
--
-- The timeline view reads both kinds of session in one join, with no union or subquery in the
-- way of the planner: it reads session by session, and "the vetoes of one widget in one session"
-- still starts from the widget and reads events_vetoes. An ordered read of one session sorts its
-- rows (they may come from two sessions' ranges).

ALTER TABLE sessions ADD COLUMN events_from INTEGER REFERENCES sessions (id);
ALTER TABLE sessions ADD COLUMN events_through INTEGER;

DROP VIEW timeline;

-- The readable face of the log: what users query. Same columns as versions 1 and 2.
CREATE VIEW timeline AS
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
    CASE typeof(e.result) WHEN 'integer' THEN CASE e.result WHEN 0 THEN 'false' ELSE 'true' END ELSE e.result END
                                                                  AS result,
    e.vetoed                                                      AS vetoed,
    e.implemented                                                 AS implemented,
    CASE WHEN e.session = s.id THEN e.duration_ns / 1000.0 ELSE 0.0 END
                                                                  AS duration_us,
    e.parent_seq                                                  AS parent_seq
FROM sessions AS s
JOIN events AS e ON e.session IN (s.id, s.events_from)
    AND (e.session = s.id OR (e.seq <= s.events_through
        AND NOT EXISTS (SELECT 1 FROM events AS own WHERE own.session = s.id AND own.seq = e.seq)))
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = s.id AND w.id = e.widget;

-- Planner statistics, with those of 0002 (sessions of about a million events, ten million in all):
-- about ten sessions. With them SQLite reads the timeline session by session, each session's rows
-- through the primary key; without them it would scan every event and, for each, every session.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('sessions', NULL, '10');
