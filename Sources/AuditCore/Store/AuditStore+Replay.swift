extension AuditStore {
    /// Stores the candidate run of an isolated replay of session `original` as a new session, in
    /// one transaction, and returns its id.
    ///
    /// An isolated replay asks every recorded callback with its recorded arguments, so the
    /// candidate's session is the recorded one (events up to `last`, widgets, times) with other
    /// answers at some events: SQLite copies the rows, then the `changed` answers are written
    /// over them. Durations are 0: the candidate's calls are not timed. Nothing is stored when
    /// anything fails.
    func storeIsolatedReplay(
        of original: Int64, upTo last: Int64, as session: NewSession, counters: SessionCounters,
        changed: [(seq: Int64, answer: StoredAnswer)]
    ) throws -> Int64 {
        // The copy's pages stay in memory until the commit writes them once (SQLite's default
        // cache of 2 MB would spill them to the WAL mid-way, then write them again).
        let pages = (try? connection.scalarInt("PRAGMA cache_size", [])) ?? -2_000
        try connection.execute("PRAGMA cache_size = -131072")
        defer { try? connection.execute("PRAGMA cache_size = \(pages)") }
        return try connection.transaction {
            try connection.cached(
                """
                INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at, ended_at, status, replay_of,
                                      replay_mode, event_count, input_count, callback_count, veto_count, owner_pid,
                                      owner_token)
                SELECT ?, scenario, scenario_source, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'complete', id, ?, ?, ?, ?, ?, ?, ?
                FROM sessions WHERE id = ?
                """
            ).execute([
                session.name.map(SQLValue.text) ?? .null, .text(session.delegate),
                session.replayMode.map(SQLValue.text) ?? .null, .integer(Int64(counters.events)),
                .integer(Int64(counters.inputs)), .integer(Int64(counters.callbacks)),
                .integer(Int64(counters.vetoes)), .integer(ProcessIdentity.current.pid),
                .integer(ProcessIdentity.current.startTicks), .integer(original),
            ])
            let id = connection.lastInsertRowID
            try connection.cached(
                "INSERT INTO widgets (session, id, path, kind, parent) SELECT ?, id, path, kind, parent FROM widgets WHERE session = ?"
            ).execute([.integer(id), .integer(original)])
            try connection.cached(
                """
                INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                    parent_seq)
                SELECT ?, seq, t_ns, widget, callback, args, result, vetoed, implemented, 0, parent_seq
                FROM events WHERE session = ? AND seq <= ? ORDER BY seq
                """
            ).execute([.integer(id), .integer(original), .integer(last)])
            let update = try connection.cached(
                "UPDATE events SET result = ?, vetoed = ?, implemented = ? WHERE session = ? AND seq = ?")
            for (seq, answer) in changed {
                try update.execute([
                    answer.result.sqlValue, answer.vetoed.map { .integer($0 ? 1 : 0) } ?? .null,
                    answer.implemented.map { .integer($0 ? 1 : 0) } ?? .null, .integer(id), .integer(seq),
                ])
            }
            return id
        }
    }
}
