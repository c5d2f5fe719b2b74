-- One answer model: the stored row says what kind of answer it holds and what that answer did.
-- Until now an event's `vetoed` was set for a veto and for an override alike (for an override:
-- whether it differed from its proposal), and only the callback's name (`callbacks.answer`, 0005)
-- told them apart, so `WHERE vetoed` found overrides too. From here:
--
--   events.vetoed      0/1 for a veto (a `should…` answer: whether it vetoed), NULL otherwise
--   events.overridden  0/1 for an override (whether it replaced the proposed value), NULL otherwise
--
-- and the `timeline` view keeps its columns, `vetoed` with the meaning above, and gains two at the
-- end: `answer_kind`, read from the row ('veto' where `vetoed` is set, 'override' where
-- `overridden` is, 'value' for a callback that answered anything else, NULL for a notification and
-- an input), and `overridden`. The partial index `events_vetoes` then holds vetoes alone.
--
-- An override's outcome moves from `vetoed` to `overridden` by its callback's `answer`. A name
-- recorded before 0005 has none: it is found from its events first. A veto's `vetoed` is always
-- the negation of its boolean result; an answer whose `vetoed` is set and that is not a boolean, or
-- equals it (a question defaulting to false, answered true), is an override. Sessions recorded
-- before 0005 counted overrides among their vetoes: their `veto_count` is counted again.
--
-- Cost: one pass over `events` (two for a database from before 0005); only the overrides' rows
-- are written.

ALTER TABLE events ADD COLUMN overridden INTEGER;

WITH seen AS (
    SELECT callback,
           max(vetoed IS NOT NULL AND (typeof(result) <> 'integer' OR vetoed = result)) AS overrides,
           max(vetoed IS NOT NULL) AS vetoes,
           max(result IS NOT NULL) AS answers
    FROM events
    WHERE EXISTS (SELECT 1 FROM callbacks WHERE kind = 'callback' AND answer IS NULL)
    GROUP BY callback)
UPDATE callbacks
SET answer = CASE
    WHEN seen.overrides THEN 'override' WHEN seen.vetoes THEN 'veto' WHEN seen.answers THEN 'value' ELSE 'none' END
FROM seen
WHERE seen.callback = callbacks.id AND callbacks.kind = 'callback' AND callbacks.answer IS NULL;

UPDATE events SET overridden = vetoed, vetoed = NULL
WHERE vetoed IS NOT NULL AND callback IN (SELECT id FROM callbacks WHERE answer = 'override');

DROP VIEW timeline;

-- The readable face of the log: the columns of versions 1 to 6, then `answer_kind` and `overridden`.
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
    e.overridden                                                  AS overridden
FROM sessions AS s
JOIN events AS e ON e.session IN (s.id, s.events_from)
    AND (e.session = s.id OR (e.seq <= s.events_through
        AND NOT EXISTS (SELECT 1 FROM events AS own WHERE own.session = s.id AND own.seq = e.seq)))
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = s.id AND w.id = e.widget;

UPDATE sessions SET veto_count = (SELECT count(*) FROM timeline AS t WHERE t.session = sessions.id AND t.vetoed)
WHERE started_at < (SELECT applied_at FROM schema_migrations WHERE version = 5);
