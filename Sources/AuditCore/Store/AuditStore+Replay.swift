extension AuditStore {
    /// Rows copied per transaction by `storeIsolatedReplay`: the write lock is held for tens of
    /// milliseconds at a time, so a recording into the same database goes on meanwhile.
    static let copyChunk: Int64 = 65_536

    /// Stores the candidate run of an isolated replay of session `original` as a new session and
    /// returns its id.
    ///
    /// An isolated replay asks every recorded callback with its recorded arguments, so the
    /// candidate's session is the recorded one (events up to `last`, widgets, times) with other
    /// answers at some events: SQLite copies the rows, a chunk of `copyChunk` per transaction,
    /// then the `changed` answers are written over them and the session is closed, in one last
    /// transaction. Durations are 0: the candidate's calls are not timed. The session is
    /// `recording` until then; when a write fails it is marked `interrupted` (or reads so once
    /// this process is gone) and the error is thrown, as for a recording whose disk filled up.
    func storeIsolatedReplay(
        of original: Int64, upTo last: Int64, as session: NewSession, counters: SessionCounters,
        changed: [(seq: Int64, answer: StoredAnswer)]
    ) throws -> Int64 {
        // A chunk's pages stay in memory until its commit writes them once (SQLite's default cache
        // of 2 MB would spill them to the WAL mid-way, then write them again).
        let pages = (try? connection.scalarInt("PRAGMA cache_size")) ?? -2_000
        try connection.execute("PRAGMA cache_size = -65536")
        defer { try? connection.execute("PRAGMA cache_size = \(pages)") }
        let id = try connection.transaction {
            try connection.cached(
                """
                INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at, replay_of, replay_mode,
                                      owner_pid, owner_token)
                SELECT ?, scenario, scenario_source, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), id, ?, ?, ?
                FROM sessions WHERE id = ?
                """
            ).execute([
                session.name.map(SQLValue.text) ?? .null, .text(session.delegate),
                session.replayMode.map(SQLValue.text) ?? .null, .integer(ProcessIdentity.current.pid),
                .integer(ProcessIdentity.current.startTicks), .integer(original),
            ])
            let id = connection.lastInsertRowID
            try connection.cached(
                """
                INSERT INTO widgets (session, id, path, kind, parent)
                SELECT ?, id, path, kind, parent FROM widgets WHERE session = ?
                """
            ).execute([.integer(id), .integer(original)])
            return id
        }
        do {
            let copy = try connection.cached(
                """
                INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                    parent_seq)
                SELECT ?, seq, t_ns, widget, callback, args, result, vetoed, implemented, 0, parent_seq
                FROM events WHERE session = ? AND seq > ? AND seq <= ? ORDER BY seq
                """)
            for start in stride(from: 0, to: last, by: Int(Self.copyChunk)) {
                try connection.transaction {
                    try copy.execute([
                        .integer(id), .integer(original), .integer(start), .integer(min(last, start + Self.copyChunk)),
                    ])
                }
            }
            try connection.transaction {
                let update = try connection.cached(
                    "UPDATE events SET result = ?, vetoed = ?, implemented = ? WHERE session = ? AND seq = ?")
                for (seq, answer) in changed {
                    try update.execute([
                        answer.result.sqlValue, answer.vetoed.map { .integer($0 ? 1 : 0) } ?? .null,
                        answer.implemented.map { .integer($0 ? 1 : 0) } ?? .null, .integer(id), .integer(seq),
                    ])
                }
                try updateCounters(session: id, counters)
                try connection.cached(
                    "UPDATE sessions SET status = 'complete', ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?"
                ).execute([.integer(id)])
            }
        } catch {
            try? connection.cached(
                "UPDATE sessions SET status = 'interrupted', ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?"
            ).execute([.integer(id)])
            throw error
        }
        return id
    }
}
