-- Input names belong to widget kinds: two kinds may each have an input of the same name (a
-- slider's `drag` and a scroll view's), with other arguments. From this version an input's row in
-- `callbacks` carries its widget kind in `protocol` (rows written before keep ''), so each has its
-- own labels. The timeline view shows an input's protocol as NULL, as before: its widget_kind
-- column says the kind. Same columns as versions 1 to 3.

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
