import AuditKit
import AuditModel
import AuditReplay
import AuditStorage
import Foundation

/// Which events `matches(in:)` returns: every filter that is set must hold (AND).
///
/// Each filter becomes a fixed SQL condition with a bound parameter; nothing the user typed is
/// ever part of the SQL text.
public struct EventSearch: Sendable, Equatable {
    public var session: Int64?
    /// Only sessions with every one of these labels.
    public var labels: [String: String] = [:]
    /// A widget path: the widget itself and every widget under it.
    public var widget: String?
    /// An SQLite GLOB on the callback (or input) name, case-sensitive: `*shouldSelect*`.
    public var callback: String?
    /// Only vetoes: those that vetoed (true) or those that did not (false).
    public var vetoed: Bool?
    /// Only overrides: those that replaced the proposed value (true) or those that kept it (false).
    public var overridden: Bool?
    /// Only handler mistakes of callbacks answered later (`LaterStep.isMistake`): those events
    /// (true) or every other event (false).
    public var mistakes: Bool?
    public var kind: EventKind?
    /// Sessions that started at or after this instant.
    public var since: Date?
    /// Sessions that started before this instant.
    public var until: Date?

    public init(
        session: Int64? = nil, widget: String? = nil, callback: String? = nil, vetoed: Bool? = nil,
        kind: EventKind? = nil, since: Date? = nil, until: Date? = nil
    ) {
        self.session = session
        self.widget = widget
        self.callback = callback
        self.vetoed = vetoed
        self.kind = kind
        self.since = since
        self.until = until
    }

    /// The SQL conditions and their parameters, in order.
    var conditions: (sql: [String], values: [SQLValue]) {
        var sql: [String] = []
        var values: [SQLValue] = []
        for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
            sql.append(
                "EXISTS (SELECT 1 FROM session_labels l WHERE l.session = t.session AND l.key = ? AND l.value = ?)")
            values += [.text(key), .text(value)]
        }
        if let session {
            sql.append("t.session = ?")
            values.append(.integer(session))
        }
        if let widget {
            sql.append("(t.widget = ? OR substr(t.widget, 1, length(?) + 1) = ? || '/')")
            values += [.text(widget), .text(widget), .text(widget)]
        }
        if let callback {
            sql.append("t.callback GLOB ?")
            values.append(.text(callback))
        }
        if let vetoed {
            sql.append("t.vetoed = ?")
            values.append(.integer(vetoed ? 1 : 0))
        }
        if let overridden {
            sql.append("t.overridden = ?")
            values.append(.integer(overridden ? 1 : 0))
        }
        if let kind {
            sql.append("t.kind = ?")
            values.append(.text(kind.rawValue))
        }
        if let since {
            sql.append("s.started_at >= ?")
            values.append(.text(AuditStore.storedTimestamp(since)))
        }
        if let until {
            sql.append("s.started_at < ?")
            values.append(.text(AuditStore.storedTimestamp(until)))
        }
        return (sql, values)
    }
}

/// One event that matched a search, with its session's start time.
public struct EventMatch: Sendable, Equatable {
    public var session: Int64
    public var sessionStartedAt: String
    public var event: TimelineEvent
}

/// A bound of `--since` / `--until`: an ISO 8601 timestamp or a word.
public enum TimeBound {
    public enum Side: Sendable { case since, until }

    /// Reads `today` (midnight UTC; as an upper bound, the next midnight), `recent` (24 hours
    /// before `now`), `now`, a date (`2026-11-30`: its start; as an upper bound, its end) or a date
    /// and time (`2026-11-30T05:30`, with seconds, fractions and a `Z` or `+02:00` offset; UTC when
    /// no offset is given). Nil when the text is none of these.
    public static func parse(_ text: String, as side: Side, now: Date = Date()) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        switch text.lowercased() {
        case "now": return now
        case "recent": return now.addingTimeInterval(-24 * 60 * 60)
        case "today":
            let midnight = calendar.startOfDay(for: now)
            return side == .since ? midnight : calendar.date(byAdding: .day, value: 1, to: midnight)
        default: break
        }
        if let day = date(text, formats: ["yyyy-MM-dd"]) {
            return side == .since ? day : calendar.date(byAdding: .day, value: 1, to: day)
        }
        let normalized = text.replacingOccurrences(of: " ", with: "T")
        let times = ["HH:mm:ss.SSS", "HH:mm:ss", "HH:mm"]
        return date(normalized, formats: times.flatMap { ["yyyy-MM-dd'T'\($0)XXXXX", "yyyy-MM-dd'T'\($0)"] })
    }

    private static func date(_ text: String, formats: [String]) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.isLenient = false
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

extension EventSearch {
    /// The events that match `search`, by session and `seq`, read from the `timeline` view joined
    /// with `sessions`. An unknown `self.session` is an error, not an empty result.
    ///
    /// - Complexity: as `forEachMatch(in:_:)`, and O(*r*) memory for the *r* matches returned.
    public func matches(in store: AuditStore) throws(StoreError) -> [EventMatch] {
        var matches: [EventMatch] = []
        try forEachMatch(in: store) { matches.append($0) }
        return matches
    }

    /// Calls `body` with each event that match this search, in session and `seq` order, as it is
    /// read: memory does not grow with the matches.
    ///
    /// - Complexity: O(*e*) for the *e* events read: one session's events when `self.session` is
    ///   set (found through the events' index), otherwise every event of the sessions the conditions
    ///   let through, each tested as it is read; O(1) memory.
    public func forEachMatch(in store: AuditStore, _ body: (EventMatch) -> Void) throws(StoreError) {
        if let id = self.session { _ = try store.session(id) }
        // A database from before session labels has no labelled session.
        if !self.labels.isEmpty && !store.hasSessionIdentity { return }
        var (conditions, values) = self.conditions
        if !store.hasAnswerOutcomes, let index = conditions.firstIndex(of: "t.overridden = ?") {
            // A view from before migration 0008 keeps an override's outcome in `vetoed`; which
            // rows are overrides is sorted out below, as they are read.
            conditions[index] = "t.vetoed = ?"
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        try storeOperation {
            let statement = try store.connection.prepare(
                """
                SELECT t.seq, t.t_ms, t.kind, t.widget, t.widget_kind, t.protocol, t.callback, t.args, t.result,
                       \(store.timelineAnswers), t.implemented, t.duration_us, t.parent_seq, t.session, s.started_at
                FROM timeline AS t JOIN sessions AS s ON s.id = t.session
                \(filter)
                ORDER BY t.session, t.seq
                """)
            defer { statement.reset() }
            let columns = TimelineEvent.Columns(statement)
            let (session, startedAt) = (statement.column("session"), statement.column("started_at"))
            statement.bind(values)
            while try statement.step() {
                let event = TimelineEvent(row: statement, columns)
                if let vetoed = self.vetoed, event.vetoed != vetoed { continue }
                if let overridden = self.overridden, event.overridden != overridden { continue }
                if let mistakes = self.mistakes, (event.later?.isMistake ?? false) != mistakes { continue }
                body(
                    EventMatch(
                        session: statement.int64(session), sessionStartedAt: statement.string(startedAt) ?? "",
                        event: event))
            }
        }
    }
}
