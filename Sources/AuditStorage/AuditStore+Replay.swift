import AuditModel
import Foundation

extension AuditStore {
    /// Stores the candidate run of an isolated replay of session `original` as a new session, in
    /// one transaction, and returns its id.
    ///
    /// An isolated replay asks every recorded callback with its recorded arguments, so the
    /// candidate's events are the recorded ones (up to `last`), one for one, with other answers at
    /// some: the new session stores its widgets and the events whose answer differs, copied from
    /// the recording with the `changed` answer, and shares the others (`events_from`,
    /// `events_through`; see `Migrations/0003_shared_events.sql`). It keeps no copy of the
    /// scenario's text either (`scenarioSource(of:)` reads the recording's). Its times are the
    /// recording's; its durations are 0, the candidate's calls are not timed.
    package func storeIsolatedReplay(
        of original: Int64, upTo last: Int64, as session: NewSession, counters: SessionCounters,
        changed: [(seq: Int64, answer: StoredAnswer)]
    ) throws -> Int64 {
        try connection.transaction {
            try connection.cached(
                """
                INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at, ended_at, status, replay_of,
                                      replay_mode, event_count, input_count, callback_count, veto_count, owner_pid,
                                      owner_token, events_from, events_through, uuid)
                SELECT ?, scenario, '', ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, id, ?, ?, ?, ?, ?, ?, ?, id, ?, ?
                FROM sessions WHERE id = ?
                """
            ).execute([
                session.name.map(SQLValue.text) ?? .null, .text(session.delegate),
                .text(SessionStatus.complete.rawValue), session.replayMode.map { .text($0.rawValue) } ?? .null,
                .integer(Int64(counters.events)),
                .integer(Int64(counters.inputs)), .integer(Int64(counters.callbacks)),
                .integer(Int64(counters.vetoes)), .integer(ProcessIdentity.current.pid),
                .integer(ProcessIdentity.current.startTicks), .integer(last), .text(Self.newSessionUUID()),
                .integer(original),
            ])
            let id = connection.lastInsertRowID
            try storeLabels(session.labels, of: id)
            try connection.cached(
                """
                INSERT INTO widgets (session, id, path, kind, parent)
                SELECT ?, id, path, kind, parent FROM widgets WHERE session = ?
                """
            ).execute([.integer(id), .integer(original)])
            let insert = try connection.cached(
                """
                INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                    parent_seq, overridden, later, answers)
                SELECT ?, seq, t_ns, widget, callback, args, ?, ?, ?, 0, parent_seq, ?, later, answers
                FROM events WHERE session = ? AND seq = ?
                """)
            for (seq, answer) in changed {
                let columns = answer.outcome.columns
                try insert.execute([
                    .integer(id), answer.result.sqlValue, columns.vetoed, columns.implemented, columns.overridden,
                    .integer(original), .integer(seq),
                ])
            }
            return id
        }
    }
}
