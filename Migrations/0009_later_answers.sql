-- Answers that come later: a callback whose answer comes through a completion handler or an
-- `async` method is recorded as two events or more. The ask (`later` = 'asked', result NULL) when
-- the widget asks; then, when the delegate answers, an event holding the answer and what it did
-- (`later` = 'answered'); or 'gave up' when the widget stopped waiting. A delegate's mistake is an
-- event of its own: 'never answered' (by the end of the recording, or when the widget went away),
-- 'answered twice', 'answered after giving up'. Every event after the ask names it in `answers`
-- (its seq); an answer's `parent_seq` is the event in progress when it came, as for any event.
--
--   callbacks.answered  'handler' or 'async' for a callback answered later, NULL for one that returns
--   events.later        NULL for an event of any other callback, an input and the rows before 0009
--   events.answers      the ask's seq, for an event after it; NULL otherwise
--
-- The `timeline` view keeps its columns and gains `later` and `answers` at the end.
-- Cost: the columns are added without touching a row; the view is made again.

ALTER TABLE callbacks ADD COLUMN answered TEXT CHECK (answered IN ('handler', 'async'));
ALTER TABLE events ADD COLUMN later TEXT CHECK (later IN (
    'asked', 'answered', 'gave up', 'never answered', 'answered twice', 'answered after giving up'));
ALTER TABLE events ADD COLUMN answers INTEGER;

DROP VIEW timeline;

-- The readable face of the log: the columns of version 8, then `later` and `answers`.
CREATE VIEW timeline AS
SELECT
    s.id                                                          AS session,
    e.seq                                                         AS seq,
    e.t_ns / 1000000.0                                            AS t_ms,
    c.kind                                                        AS kind,
    w.path                                                        AS widget,
    w.kind                                                        AS widget_kind,
    CASE WHEN c.kind = 'callback' THEN NULLIF(c.protocol, '') END AS protocol,
    c.name                                                        AS callback,
    '{' || coalesce((
        SELECT group_concat('"' || l.value || '":' || CASE a.type
            WHEN 'text' THEN '"' || CASE WHEN a.value GLOB '*[' || char(
                    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                    8232, 8233) || ']*'
                THEN (WITH RECURSIVE escaped(step, text) AS (
                    SELECT 0, replace(replace(a.value, '\', '\\'), '"', '\"')
                    UNION ALL
                    SELECT step + 1, replace(text, char(CASE WHEN step < 31 THEN step + 1 ELSE 8232 + step - 31 END),
                        CASE step + 1 WHEN 8 THEN '\b' WHEN 9 THEN '\t' WHEN 10 THEN '\n' WHEN 12 THEN '\f'
                            WHEN 13 THEN '\r'
                            ELSE printf('\u%04x', CASE WHEN step < 31 THEN step + 1 ELSE 8232 + step - 31 END) END)
                    FROM escaped WHERE step < 33)
                    SELECT text FROM escaped WHERE step = 33)
                ELSE replace(replace(a.value, '\', '\\'), '"', '\"') END || '"'
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
    e.parent_seq                                                  AS parent_seq,
    CASE WHEN e.vetoed IS NOT NULL THEN 'veto' WHEN e.overridden IS NOT NULL THEN 'override'
         WHEN c.kind = 'callback' AND e.result IS NOT NULL THEN 'value' END
                                                                  AS answer_kind,
    e.overridden                                                  AS overridden,
    e.later                                                       AS later,
    e.answers                                                     AS answers
FROM sessions AS s
JOIN events AS e ON e.session IN (s.id, s.events_from)
    AND (e.session = s.id OR (e.seq <= s.events_through
        AND NOT EXISTS (SELECT 1 FROM events AS own WHERE own.session = s.id AND own.seq = e.seq)))
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = s.id AND w.id = e.widget;
