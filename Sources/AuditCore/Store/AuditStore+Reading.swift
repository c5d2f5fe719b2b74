/// A stored session as listed by `auditctl sessions`.
public struct SessionSummary: Sendable, Equatable {
    public var id: Int64
    public var name: String?
    public var scenario: String
    public var delegate: String
    /// `recording`, `complete` or `interrupted`. A session still marked `recording` whose
    /// recording process is gone reads as `interrupted`, even before a process that opens the
    /// database to write (which stores it) comes by, or when none can (a full disk).
    public var status: String
    public var startedAt: String
    public var endedAt: String?
    public var replayOf: Int64?
    public var replayMode: String?
    public var events: Int
    public var inputs: Int
    public var callbacks: Int
    public var vetoes: Int
    public var failures: Int
}

/// One row of the `timeline` view.
public struct TimelineEvent: Sendable, Equatable {
    public var seq: Int64
    public var milliseconds: Double
    public var kind: EventKind
    public var widget: String?
    public var widgetKind: String?
    public var protocolName: String?
    public var callback: String
    /// JSON object text.
    public var arguments: String
    /// JSON text, nil for a void callback.
    public var result: String?
    public var vetoed: Bool?
    public var implemented: Bool?
    public var durationMicroseconds: Double
    public var parentSeq: Int64?
}

extension AuditStore {
    private static let sessionColumns = """
        id, name, scenario, delegate, status, started_at, ended_at, replay_of, replay_mode,
        event_count, input_count, callback_count, veto_count, failure_count, owner_pid, owner_token
        """

    /// Every session, oldest first.
    public func sessions() throws(StoreError) -> [SessionSummary] {
        try storeOperation {
            try connection.prepare("SELECT \(Self.sessionColumns) FROM sessions ORDER BY id").rows([], Self.readSession)
        }
    }

    public func session(_ id: Int64) throws(StoreError) -> SessionSummary {
        let found = try storeOperation {
            try connection.prepare("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?").rows(
                [.integer(id)], Self.readSession)
        }
        guard let session = found.first else { throw .unknownSession(id) }
        return session
    }

    /// The session's scenario file text, as recorded (for a session that shares its events, the
    /// text stored with the session it shares them with).
    public func scenarioSource(of id: Int64) throws(StoreError) -> String {
        let found = try storeOperation {
            try connection.prepare(
                hasSharedEvents
                    ? """
                    SELECT coalesce(shared.scenario_source, s.scenario_source)
                    FROM sessions AS s LEFT JOIN sessions AS shared ON shared.id = s.events_from
                    WHERE s.id = ?
                    """
                    : "SELECT scenario_source FROM sessions WHERE id = ?"
            ).rows([.integer(id)]) { $0.string(0) ?? "" }
        }
        guard let source = found.first else { throw .unknownSession(id) }
        return source
    }

    /// One session's events in `seq` order, read through the `timeline` view.
    public func timeline(of id: Int64) throws(StoreError) -> [TimelineEvent] {
        try timeline(of: id, where: "")
    }

    /// Some events of a session, by `seq`, read through the `timeline` view.
    func timeline(of id: Int64, seqs: [Int64]) throws(StoreError) -> [Int64: TimelineEvent] {
        var events: [Int64: TimelineEvent] = [:]
        for chunk in stride(from: 0, to: seqs.count, by: 500).map({ Array(seqs[$0..<min(seqs.count, $0 + 500)]) }) {
            let list = chunk.map(String.init).joined(separator: ",")
            for event in try timeline(of: id, where: "AND seq IN (\(list))") { events[event.seq] = event }
        }
        return events
    }

    private func timeline(of id: Int64, where condition: String) throws(StoreError) -> [TimelineEvent] {
        _ = try session(id)
        return try storeOperation {
            try connection.prepare(
                """
                SELECT seq, t_ms, kind, widget, widget_kind, protocol, callback, args, result, vetoed, implemented,
                       duration_us, parent_seq
                FROM timeline WHERE session = ? \(condition) ORDER BY seq
                """
            ).rows([.integer(id)], Self.readTimelineEvent)
        }
    }

    /// A `TimelineEvent` from the first 13 columns of a row (the `timeline` columns from `seq` to
    /// `parent_seq`).
    static func readTimelineEvent(_ row: Statement) -> TimelineEvent {
        TimelineEvent(
            seq: row.int64(0), milliseconds: row.double(1),
            kind: EventKind(rawValue: row.string(2) ?? "") ?? .callback,
            widget: row.string(3), widgetKind: row.string(4), protocolName: row.string(5),
            callback: row.string(6) ?? "", arguments: row.string(7) ?? "{}", result: row.string(8),
            vetoed: row.isNull(9) ? nil : row.int(9) != 0, implemented: row.isNull(10) ? nil : row.int(10) != 0,
            durationMicroseconds: row.double(11), parentSeq: row.isNull(12) ? nil : row.int64(12))
    }

    private static func readSession(_ row: Statement) -> SessionSummary {
        var status = row.string(4) ?? ""
        if status == "recording", !ProcessIdentity.isRunning(pid: row.int64(14), startTicks: row.int64(15)) {
            status = "interrupted"
        }
        return SessionSummary(
            id: row.int64(0), name: row.string(1), scenario: row.string(2) ?? "", delegate: row.string(3) ?? "",
            status: status, startedAt: row.string(5) ?? "", endedAt: row.string(6),
            replayOf: row.isNull(7) ? nil : row.int64(7), replayMode: row.string(8), events: row.int(9),
            inputs: row.int(10),
            callbacks: row.int(11), vetoes: row.int(12), failures: row.int(13))
    }
}
