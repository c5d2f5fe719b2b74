-- Every `args` value of the timeline view is valid JSON (RFC 8259), whatever its strings hold.
-- Versions 2 to 4 built the object by hand, escaping only quote, backslash, tab, LF and CR, so a
-- string with another control character (U+0000 to U+001F) made `json_valid(args)` 0 and
-- `json_extract(args, ...)` fail. Strings, doubles, arrays and objects are now copied as the
-- recorder wrote them (`->` gives a value's JSON text), escapes included: no SQL text in between,
-- which ends at a U+0000, and no SQL real, which printed doubles to 15 digits (1.0499999999999998
-- read as 1.05). Labels are quoted by `json_quote`. Same columns as versions 1 to 4.

DROP VIEW timeline;

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
        SELECT group_concat(json_quote(l.value) || ':' || CASE a.type
            WHEN 'true' THEN 'true'
            WHEN 'false' THEN 'false'
            WHEN 'null' THEN 'null'
            WHEN 'integer' THEN a.value
            ELSE e.args -> a.fullkey END, ',')
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
