import AuditModel
import Foundation

extension AuditStore {
    /// Copies sessions `ids` of `source` (every session when nil) into this database, in one
    /// transaction, as exporting them and importing the export would: renumbered, labels and replay
    /// links kept, callback names interned here, a session whose UUID this database holds skipped.
    /// What `merge` and `replay --all --output-db` do.
    ///
    /// When `source` has this build's schema and its sessions keep their own events, the rows go
    /// across with one `INSERT … SELECT` per table (the source attached to this connection); a
    /// source of an older build, one with sessions that share events (isolated replays), or one
    /// whose rows do not add up goes through the export's records instead, field by field.
    ///
    /// - Complexity: O(*e* log *N*) for the *e* events (and their sessions, widgets and labels) copied
    ///   into a database of *N* rows, each row inserted into its tables' B-trees; the source's
    ///   events are counted once (O(*n*) for its *n* events) to decide the way the rows go.
    public func mergeSessions(from source: AuditStore, sessions ids: [Int64]? = nil) throws
        -> SessionTransfer.Imported
    {
        if let imported = try mergeRows(from: source, sessions: ids) { return imported }
        return try mergeRecords(from: source, sessions: ids)
    }

    /// The sessions of `source` copied the records' way: as an import of their export, field by
    /// field, without the text.
    func mergeRecords(from source: AuditStore, sessions ids: [Int64]? = nil) throws -> SessionTransfer.Imported {
        try importing { reader in
            try source.exportRecords(sessions: ids) { try reader.read(fields: Dictionary($0) { first, _ in first }) }
        }
    }

    /// The latest migration applied to this database.
    private var schemaVersion: Int64? {
        try? connection.scalarInt("SELECT max(version) FROM schema_migrations")
    }

    /// The sessions of `source` copied with SQL, or nil when they need the records' way.
    func mergeRows(from source: AuditStore, sessions ids: [Int64]? = nil) throws -> SessionTransfer.Imported? {
        guard source.schemaVersion == schemaVersion, source.hasSessionIdentity, source.hasSharedEvents else {
            return nil
        }
        let wanted = ids.map(Set.init)
        let sessions = try source.sessions().filter { wanted?.contains($0.id) ?? true }
        let stored = try source.connection.prepare(
            "SELECT session, count(*) AS stored FROM events GROUP BY session"
        ).rows { ($0.int64("session"), $0.int("stored")) }
        let rows = Dictionary(stored) { first, _ in first }
        let sharing = Set(
            try source.connection.prepare("SELECT id FROM sessions WHERE events_from IS NOT NULL").rows {
                $0.int64("id")
            })
        guard
            sessions.allSatisfy({ session in
                !sharing.contains(session.id) && session.uuid.flatMap(UUID.init(uuidString:)) != nil
                    && rows[session.id, default: 0] == session.events
            }),
            sessions.count == ids?.count ?? sessions.count
        else { return nil }
        do {
            try connection.cached("ATTACH DATABASE ? AS merge_source").execute([.text(source.path)])
        } catch {
            return nil  // a source this connection cannot open (read-only media): the records' way
        }
        defer { try? connection.execute("DETACH DATABASE merge_source") }
        defer { forgetCallbackNames() }  // names added, with ids of their own
        return try bulkTransaction {
            try copyWhole(sessions, from: source) ?? copyRows(of: sessions, from: source)
        }
    }

    /// Inside the merge's transaction, when this database holds nothing yet and `sessions` are
    /// every session of the source, numbered 1…n: the tables go across whole, with SQLite's
    /// transfer of records (`INSERT … SELECT *` between tables of the same schema), keeping the
    /// ids, which are what renumbering would give. The first merge into a new database (a shard, a
    /// replay's `--output-db`) takes this way. Nil when it does not apply.
    private func copyWhole(_ sessions: [SessionSummary], from source: AuditStore) throws
        -> SessionTransfer.Imported?
    {
        let tables = ["sessions", "session_labels", "callbacks", "widgets", "events"]
        let empty = try tables.allSatisfy { table in
            try connection.scalarInt("SELECT count(*) FROM (SELECT 1 FROM main.\(table) LIMIT 1)") == 0
        }
        let (count, first, last) = try connection.cached(
            "SELECT count(*) AS sessions, min(id) AS first, max(id) AS last FROM merge_source.sessions"
        ).rows([]) { ($0.int("sessions"), $0.int64("first"), $0.int64("last")) }[0]
        guard empty, count == sessions.count, first == 1, last == Int64(count) else { return nil }
        var events: Int64 = 0
        for table in tables {
            try connection.execute("INSERT INTO main.\(table) SELECT * FROM merge_source.\(table)")
            if table == "events" { events = connection.changes }
        }
        guard events == Int64(sessions.reduce(0) { $0 + $1.events }) else {
            throw SessionTransfer.ImportError(
                line: 0, reason: "the copied events do not add up to the sessions' counts")
        }
        // As the rows' way stores them: owned by no process, and a recording not running here
        // any more did not finish.
        try connection.prepare(
            """
            UPDATE main.sessions SET owner_pid = 0, owner_token = 0,
                                     status = CASE status WHEN ? THEN ? ELSE status END
            """
        ).execute([.text(SessionStatus.recording.rawValue), .text(SessionStatus.interrupted.rawValue)])
        return SessionTransfer.Imported(sessions: sessions.map(\.id))
    }

    /// Inside the merge's transaction: the sessions' rows, then their widgets and events.
    private func copyRows(of sessions: [SessionSummary], from source: AuditStore) throws -> SessionTransfer.Imported {
        try connection.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS merge_sessions (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
            CREATE TEMP TABLE IF NOT EXISTS merge_callbacks (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
            DELETE FROM merge_sessions;
            DELETE FROM merge_callbacks;
            """)
        defer { try? connection.execute("DROP TABLE temp.merge_sessions; DROP TABLE temp.merge_callbacks") }
        var imported = SessionTransfer.Imported()
        var expected = 0
        let uuids = Dictionary(sessions.map { ($0.id, $0.uuid ?? "") }) { first, _ in first }
        for session in sessions {
            let uuid = session.uuid ?? ""
            if try connection.scalarInt("SELECT count(*) FROM sessions WHERE uuid = ?", [.text(uuid)]) ?? 0 > 0 {
                imported.skipped.append(uuid)
                continue
            }
            let replayOf = try session.replayOf.flatMap { uuids[$0] }.flatMap { original in
                try connection.scalarInt("SELECT id FROM sessions WHERE uuid = ?", [.text(original)])
            }
            try connection.cached(
                """
                INSERT INTO sessions (uuid, name, scenario, delegate, status, started_at, ended_at, replay_of,
                                      replay_mode, event_count, input_count, callback_count, veto_count,
                                      failure_count, scenario_source, owner_pid, owner_token)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)
                """
            ).execute([
                .text(uuid), session.name.map(SQLValue.text) ?? .null, .text(session.scenario),
                .text(session.delegate),
                // A recording that is not running here any more did not finish, as `import` reads it.
                .text((session.status == .recording ? .interrupted : session.status).rawValue),
                .text(session.startedAt),
                session.endedAt.map(SQLValue.text) ?? .null, replayOf.map(SQLValue.integer) ?? .null,
                session.replayMode.map { .text($0.rawValue) } ?? .null, .integer(Int64(session.events)),
                .integer(Int64(session.inputs)), .integer(Int64(session.callbacks)),
                .integer(Int64(session.vetoes)), .integer(Int64(session.failures)),
                .text(try source.scenarioSource(of: session.id)),
            ])
            let id = connection.lastInsertRowID
            try storeLabels(session.labels, of: id)
            try connection.cached("INSERT INTO merge_sessions (old, new) VALUES (?, ?)").execute([
                .integer(session.id), .integer(id),
            ])
            imported.sessions.append(id)
            expected += session.events
        }
        // The callback names the copied events use, interned here, and what their ids became.
        try connection.execute(
            """
            INSERT INTO callbacks (kind, protocol, name, labels, answer, answered)
            SELECT kind, protocol, name, labels, answer, answered FROM merge_source.callbacks
            WHERE id IN (SELECT DISTINCT callback FROM merge_source.events
                         WHERE session IN (SELECT old FROM merge_sessions))
            ORDER BY id
            ON CONFLICT (kind, protocol, name) DO NOTHING;
            INSERT INTO merge_callbacks (old, new)
            SELECT s.id, t.id FROM merge_source.callbacks AS s
            JOIN main.callbacks AS t ON t.kind = s.kind AND t.protocol IS s.protocol AND t.name = s.name;
            INSERT INTO widgets (session, id, path, kind, parent)
            SELECT m.new, w.id, w.path, w.kind, w.parent
            FROM merge_source.widgets AS w JOIN merge_sessions AS m ON m.old = w.session;
            INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                parent_seq, overridden, later, answers)
            SELECT m.new, e.seq, e.t_ns, e.widget, c.new, e.args, e.result, e.vetoed, e.implemented, e.duration_ns,
                   e.parent_seq, e.overridden, e.later, e.answers
            FROM merge_source.events AS e
            JOIN merge_sessions AS m ON m.old = e.session
            JOIN merge_callbacks AS c ON c.old = e.callback;
            """)
        let copied = connection.changes  // of the events' INSERT, the last statement above
        guard copied == expected else {
            throw SessionTransfer.ImportError(
                line: 0, reason: "\(copied) of the sessions' \(expected) events have a callback name the source holds")
        }
        return imported
    }
}
