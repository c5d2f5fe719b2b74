-- Every `args` value of the timeline view is valid JSON (RFC 8259), whatever its strings hold.
-- Versions 2 to 4 escaped only quote, backslash, tab, LF and CR, so a string with another control
-- character made `json_valid(args)` 0 and `json_extract(args, ...)` fail. Now every control
-- character U+0001 to U+001F is escaped, and U+2028 and U+2029 as the recorder escapes them, one
-- after the other (33 steps of a recursive query: replaces nested that deep overflow SQLite's
-- parser); a string that holds none of them (the GLOB) takes the short way, as before. Only SQL's
-- own functions: the view must work where the schema is not trusted (`auditctl query`), and
-- SQLite 3.40 refuses its JSON scalar functions in a view there. A string's text comes from
-- `json_each`, which ends it at an escaped U+0000. Same columns as versions 1 to 4.

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
    e.parent_seq                                                  AS parent_seq
FROM sessions AS s
JOIN events AS e ON e.session IN (s.id, s.events_from)
    AND (e.session = s.id OR (e.seq <= s.events_through
        AND NOT EXISTS (SELECT 1 FROM events AS own WHERE own.session = s.id AND own.seq = e.seq)))
JOIN callbacks AS c ON c.id = e.callback
LEFT JOIN widgets AS w ON w.session = s.id AND w.id = e.widget;
