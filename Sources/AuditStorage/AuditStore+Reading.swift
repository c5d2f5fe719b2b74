import AuditModel

/// A stored session as listed by `auditctl sessions`.
public struct SessionSummary: Sendable, Equatable {
    public var id: Int64
    public var name: String?
    public var scenario: String
    public var delegate: String
    /// `recording`, `complete` or `interrupted`. A session still marked `recording` whose
    /// recording process is gone reads as `interrupted`, even before a process that opens the
    /// database to write (which stores it) comes by, or when none can (a full disk).
    public var status: SessionStatus
    public var startedAt: String
    public var endedAt: String?
    public var replayOf: Int64?
    public var replayMode: ReplayMode?
    public var events: Int
    public var inputs: Int
    public var callbacks: Int
    public var vetoes: Int
    public var failures: Int
    /// The session's UUID, which it keeps wherever it is copied (nil in a database from before
    /// migration 0006, opened to read).
    public var uuid: String? = nil
    /// The labels it was recorded with (`record --label key=value`).
    public var labels: [String: String] = [:]

    /// Whether the session falls in `shard`: sessions are split by their UUID (its first 32 bits,
    /// modulo the number of shards), so n jobs with shards 1/n … n/n take every session exactly once,
    /// whichever database holds it and in whatever order.
    public func isIn(_ shard: SessionShard) -> Bool {
        let key = uuid.flatMap { UInt32($0.prefix(8), radix: 16) }.map(UInt64.init) ?? UInt64(bitPattern: id)
        return Int(key % UInt64(shard.count)) == shard.index - 1
    }

    /// Whether the session has every one of `labels`.
    public func has(_ labels: [String: String]) -> Bool {
        labels.allSatisfy { self.labels[$0.key] == $0.value }
    }
}

/// One of `count` disjoint parts of the sessions (`--shard index/count`, from 1).
public struct SessionShard: Sendable, Equatable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index), "a shard is 1…count of count")
        self.index = index
        self.count = count
    }
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
    /// What the answer did (the `timeline` view's `implemented`, `vetoed` and `overridden`).
    public var answer: AnswerOutcome
    public var durationMicroseconds: Double
    public var parentSeq: Int64?
    /// nil unless the callback answers later; then which event of its ask this is (the
    /// `timeline` view's `later`).
    public var later: LaterStep? = nil
    /// For an event after an ask: the ask's `seq` (the `timeline` view's `answers`).
    public var answers: Int64? = nil

    /// nil unless the answer is a veto; then whether it vetoed (the `timeline` view's `vetoed`).
    public var vetoed: Bool? { answer.vetoed }
    /// nil for an input; whether the delegate implemented the callback.
    public var implemented: Bool? { answer.implemented }
    /// nil unless the callback overrides a proposal; then whether the answer differs from it (the
    /// `timeline` view's `overridden`).
    public var overridden: Bool? { answer.overridden }
    /// What the answer did to the widget: nil when it let the widget go on as proposed.
    public var effect: AnswerEffect? { answer.effect }

    /// For an event of a callback answered later, what it is in words: `answer comes later` for
    /// the ask, `answers #12`, `gave up on #12`, `MISTAKE: answered twice (#12)`; nil otherwise.
    public var laterNote: String? {
        guard let later else { return nil }
        let ask = answers.map { "#\($0)" } ?? "an ask"
        switch later {
        case .asked: return "answer comes later"
        case .answered: return "answers \(ask)"
        case .gaveUp: return "gave up on \(ask)"
        case .neverAnswered, .answeredTwice, .answeredAfterGivingUp: return "MISTAKE: \(later.name) (\(ask))"
        }
    }
}

extension AuditStore {
    private static let sessionColumns = """
        id, name, scenario, delegate, status, started_at, ended_at, replay_of, replay_mode,
        event_count, input_count, callback_count, veto_count, failure_count, owner_pid, owner_token
        """

    /// The columns of a session row, with its UUID and labels where the schema has them.
    private var sessionSelect: String {
        hasSessionIdentity
            ? Self.sessionColumns
                + ", uuid, (SELECT json_group_object(key, value) FROM session_labels WHERE session = sessions.id) AS labels"
            : Self.sessionColumns + ", NULL AS uuid, NULL AS labels"
    }

    /// Every session, oldest first.
    ///
    /// - Complexity: O(*s*) for the *s* sessions stored.
    public func sessions() throws(StoreError) -> [SessionSummary] {
        try storeOperation {
            try readSessions(connection.prepare("SELECT \(sessionSelect) FROM sessions ORDER BY id"), [])
        }
    }

    public func session(_ id: Int64) throws(StoreError) -> SessionSummary {
        let found = try storeOperation {
            try readSessions(connection.cached("SELECT \(sessionSelect) FROM sessions WHERE id = ?"), [.integer(id)])
        }
        guard let session = found.first else { throw .unknownSession(id) }
        return session
    }

    /// The session's scenario file text, as recorded (for a session that shares its events, the
    /// text stored with the session it shares them with).
    public func scenarioSource(of id: Int64) throws(StoreError) -> String {
        let found = try storeOperation {
            try connection.cached(
                hasSharedEvents
                    ? """
                    SELECT coalesce(shared.scenario_source, s.scenario_source) AS scenario_source
                    FROM sessions AS s LEFT JOIN sessions AS shared ON shared.id = s.events_from
                    WHERE s.id = ?
                    """
                    : "SELECT scenario_source FROM sessions WHERE id = ?"
            ).rows([.integer(id)]) { $0.string("scenario_source") ?? "" }
        }
        guard let source = found.first else { throw .unknownSession(id) }
        return source
    }

    /// One session's events in `seq` order, read through the `timeline` view.
    ///
    /// - Complexity: O(*e*) time and memory for the session's *e* events, found through the
    ///   events' index.
    public func timeline(of id: Int64) throws(StoreError) -> [TimelineEvent] {
        try timeline(of: id, where: "")
    }

    /// Some events of a session, by `seq`, read through the `timeline` view.
    package func timeline(of id: Int64, seqs: [Int64]) throws(StoreError) -> [Int64: TimelineEvent] {
        var events: [Int64: TimelineEvent] = [:]
        for chunk in stride(from: 0, to: seqs.count, by: 500).map({ Array(seqs[$0..<min(seqs.count, $0 + 500)]) }) {
            let list = chunk.map(String.init).joined(separator: ",")
            for event in try timeline(of: id, where: "AND seq IN (\(list))") { events[event.seq] = event }
        }
        return events
    }

    private func timeline(of id: Int64, where condition: String) throws(StoreError) -> [TimelineEvent] {
        var events: [TimelineEvent] = []
        try forEachTimelineEvent(of: id, where: condition) { events.append($0) }
        return events
    }

    /// Calls `body` with each of one session's events in `seq` order, as they are read: what
    /// `timeline(of:)` returns, without holding it (`show --format json` streams a session this way).
    ///
    /// - Complexity: O(*e*) time for the session's *e* events; O(1) memory.
    public func forEachTimelineEvent(of id: Int64, _ body: (TimelineEvent) -> Void) throws(StoreError) {
        try forEachTimelineEvent(of: id, where: "", body)
    }

    private func forEachTimelineEvent(of id: Int64, where condition: String, _ body: (TimelineEvent) -> Void)
        throws(StoreError)
    {
        _ = try session(id)
        try storeOperation {
            let statement = try connection.prepare(
                """
                SELECT seq, t_ms, kind, widget, widget_kind, protocol, callback, args, result, \(timelineAnswers),
                       implemented, duration_us, parent_seq
                FROM timeline WHERE session = ? \(condition) ORDER BY seq
                """)
            let columns = TimelineEvent.Columns(statement)
            try statement.forEachRow([.integer(id)]) { body(TimelineEvent(row: $0, columns)) }
        }
    }

    /// The `timeline` view's `vetoed` and `overridden`, for a select list. In a database from
    /// before migration 0008, opened to read, the view has no `overridden` and its `vetoed` holds
    /// an override's outcome too: told apart by the callback's `answer` (migration 0005) or, for a
    /// name without one, as 0008 tells them (a veto's `vetoed` is the negation of its boolean
    /// answer; any other answer with a `vetoed` is an override's).
    ///
    /// With them, `later` and `answers` (NULL in a database from before migration 0009).
    package var timelineAnswers: String { answerOutcomes(inTimeline: true) + ", " + laterColumns }

    /// The `events` table's `vetoed`, `overridden`, `later` and `answers`, for a select list: as
    /// `timelineAnswers` reads them from the view.
    var eventAnswers: String { answerOutcomes(inTimeline: false) + ", " + laterColumns }

    /// `later` and `answers`, in the `events` table and the `timeline` view alike.
    private var laterColumns: String { hasLaterAnswers ? "later, answers" : "NULL AS later, NULL AS answers" }

    private func answerOutcomes(inTimeline: Bool) -> String {
        if hasAnswerOutcomes { return "vetoed, overridden" }
        guard inTimeline else { return eventOutcomesBefore0008 }
        let inferred = """
            vetoed IS NOT NULL AND (result IS NULL OR result NOT IN ('true', 'false') OR vetoed = (result = 'true'))
            """
        guard hasAnswerKinds else { return Self.answers(isOverride: inferred) }
        let names = { (answer: String) in
            "kind = 'callback' AND (protocol, callback) IN "
                + "(SELECT protocol, name FROM callbacks WHERE kind = 'callback' AND \(answer))"
        }
        return Self.answers(
            isOverride: "(\(names("answer = 'override'"))) OR (\(names("answer IS NULL")) AND \(inferred))")
    }

    /// The `events` table's `vetoed` and `overridden` in a database from before migration 0008.
    private var eventOutcomesBefore0008: String {
        let inferred = "vetoed IS NOT NULL AND (typeof(result) <> 'integer' OR vetoed = result)"
        guard hasAnswerKinds else { return Self.answers(isOverride: inferred) }
        let names = { (answer: String) in "callback IN (SELECT id FROM callbacks WHERE \(answer))" }
        return Self.answers(
            isOverride: "\(names("answer = 'override'")) OR (\(names("answer IS NULL")) AND \(inferred))")
    }

    /// `vetoed` and `overridden` from a `vetoed` that holds both, where `isOverride` holds.
    private static func answers(isOverride: String) -> String {
        "CASE WHEN \(isOverride) THEN NULL ELSE vetoed END AS vetoed, "
            + "CASE WHEN \(isOverride) THEN vetoed END AS overridden"
    }

    /// The sessions `statement` (a query of `sessionSelect`) reads with `values` bound; a session
    /// still marked `recording` whose recorder is gone reads as `interrupted`.
    private func readSessions(_ statement: Statement, _ values: [SQLValue]) throws -> [SessionSummary] {
        let columns = SessionSummary.Columns(statement)
        return try statement.rows(values) { row in
            var session = SessionSummary(row: row, columns)
            if session.status == .recording,
                !isRecording(
                    session: session.id, pid: row.int64(columns.ownerPID), startTicks: row.int64(columns.ownerToken))
            {
                session.status = .interrupted
            }
            return session
        }
    }
}

extension SessionSummary {
    /// Where a query of `AuditStore.sessionSelect` has each column a session is read from, found
    /// by name once per statement: reading a row then costs no look-up.
    struct Columns {
        let id, name, scenario, delegate, status, startedAt, endedAt, replayOf, replayMode: Int
        let events, inputs, callbacks, vetoes, failures, ownerPID, ownerToken, uuid, labels: Int

        package init(_ statement: Statement) {
            id = statement.column("id")
            name = statement.column("name")
            scenario = statement.column("scenario")
            delegate = statement.column("delegate")
            status = statement.column("status")
            startedAt = statement.column("started_at")
            endedAt = statement.column("ended_at")
            replayOf = statement.column("replay_of")
            replayMode = statement.column("replay_mode")
            events = statement.column("event_count")
            inputs = statement.column("input_count")
            callbacks = statement.column("callback_count")
            vetoes = statement.column("veto_count")
            failures = statement.column("failure_count")
            ownerPID = statement.column("owner_pid")
            ownerToken = statement.column("owner_token")
            uuid = statement.column("uuid")
            labels = statement.column("labels")
        }
    }

    /// The session on `row`, its status as stored.
    init(row: Statement, _ columns: Columns) {
        self.init(
            id: row.int64(columns.id), name: row.string(columns.name), scenario: row.string(columns.scenario) ?? "",
            delegate: row.string(columns.delegate) ?? "", status: SessionStatus(stored: row.string(columns.status)),
            startedAt: row.string(columns.startedAt) ?? "", endedAt: row.string(columns.endedAt),
            replayOf: row.isNull(columns.replayOf) ? nil : row.int64(columns.replayOf),
            replayMode: row.string(columns.replayMode).flatMap(ReplayMode.init(rawValue:)),
            events: row.int(columns.events), inputs: row.int(columns.inputs), callbacks: row.int(columns.callbacks),
            vetoes: row.int(columns.vetoes), failures: row.int(columns.failures), uuid: row.string(columns.uuid),
            labels: Self.labels(json: row.string(columns.labels)))
    }

    /// Labels from the `{"key": "value"}` object the session query makes.
    private static func labels(json: String?) -> [String: String] {
        guard let json, case .object(let fields)? = try? AuditValue(json: json) else { return [:] }
        return fields.compactMapValues { if case .string(let value) = $0 { value } else { nil } }
    }
}

extension TimelineEvent {
    /// Where a statement has each `timeline` column an event is read from, found by name once per
    /// statement: reading a row then costs no look-up (replay, `show` and `search` read every event
    /// of a session this way).
    package struct Columns {
        let seq, milliseconds, kind, widget, widgetKind, protocolName, callback, arguments, result: Int
        let vetoed, overridden, implemented, duration, parentSeq, later, answers: Int

        package init(_ statement: Statement) {
            later = statement.column("later")
            answers = statement.column("answers")
            seq = statement.column("seq")
            milliseconds = statement.column("t_ms")
            kind = statement.column("kind")
            widget = statement.column("widget")
            widgetKind = statement.column("widget_kind")
            protocolName = statement.column("protocol")
            callback = statement.column("callback")
            arguments = statement.column("args")
            result = statement.column("result")
            vetoed = statement.column("vetoed")
            overridden = statement.column("overridden")
            implemented = statement.column("implemented")
            duration = statement.column("duration_us")
            parentSeq = statement.column("parent_seq")
        }
    }

    /// The event on `row`, a row of the `timeline` view (its answer columns as
    /// `AuditStore.timelineAnswers` reads them).
    package init(row: Statement, _ columns: Columns) {
        self.init(
            seq: row.int64(columns.seq), milliseconds: row.double(columns.milliseconds),
            kind: EventKind(rawValue: row.string(columns.kind) ?? "") ?? .callback,
            widget: row.string(columns.widget), widgetKind: row.string(columns.widgetKind),
            protocolName: row.string(columns.protocolName), callback: row.string(columns.callback) ?? "",
            arguments: row.string(columns.arguments) ?? "{}", result: row.string(columns.result),
            answer: AnswerOutcome(
                row, implemented: columns.implemented, vetoed: columns.vetoed, overridden: columns.overridden),
            durationMicroseconds: row.double(columns.duration),
            parentSeq: row.isNull(columns.parentSeq) ? nil : row.int64(columns.parentSeq),
            later: row.laterStep(columns.later),
            answers: row.isNull(columns.answers) ? nil : row.int64(columns.answers))
    }
}

extension AuditStore {
    /// The newest complete recording (not a replay) with this name.
    package func latestBaseline(named name: String) throws(StoreError) -> Int64? {
        try storeOperation {
            try connection.scalarInt(
                "SELECT max(id) FROM sessions WHERE name = ? AND replay_of IS NULL AND status = ?",
                [.text(name), .text(SessionStatus.complete.rawValue)])
        }
    }
}
