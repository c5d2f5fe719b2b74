import AuditModel
import Foundation

/// Sessions as text and back: `auditctl export` and `auditctl import`.
///
/// The form is JSON Lines, one object a line, in this order for each session: a `session` line
/// (its UUID, names, status, times, labels, counts, scenario), its `widget` lines, its `event` lines
/// in `seq` order; and an `end` line closing the file with the number of sessions. Format 2 adds an
/// answer that comes later to event lines: its callback's `answered` (`handler` or `async`), the
/// event's `later` (`asked`, `answered`, a mistake…) and `answers`, the `seq` of the ask it
/// belongs to; import reads both formats. Every stored
/// value is written with its SQL type (an integer, a real, a string; a blob as `{"blob": HEX}`), so
/// export → import → export gives the same bytes. A session that shares the events of the one it
/// replayed is written whole, so a file stands alone. Sessions are named by UUID, never by id:
/// `replay_of` is the original's UUID, and importing renumbers.
public enum SessionTransfer {
    /// The form's version, in every `session` line: 2 since answers that come later.
    public static let format = 2
    /// The oldest version import reads.
    static let oldestFormat = 1

    /// What an import did.
    public struct Imported: Sendable, Equatable {
        /// The new ids of the sessions imported, in file order.
        public var sessions: [Int64] = []
        /// The UUIDs of the sessions skipped because the database already holds them.
        public var skipped: [String] = []
    }

    /// A line of an export that cannot be imported.
    public struct ImportError: Error, CustomStringConvertible, Sendable {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }
}

extension AuditStore {
    /// Writes sessions `ids` (every session, oldest first, when nil) as JSON Lines, one `write`
    /// call per line, reading each session's rows as it goes. A session recorded before UUIDs (a
    /// database of an older build, read as it is) is given one derived from what it holds, the
    /// same each time, so merging it twice still skips it the second time.
    ///
    /// - Complexity: O(*s* + *e*) time for the *s* sessions and *e* events written, one session's
    ///   rows read at a time, in order; memory does not grow with *e*.
    public func export(sessions ids: [Int64]? = nil, write: (String) throws -> Void) throws {
        try exportRecords(sessions: ids) { try write(orderedLine($0)) }
    }

    /// What `export` writes, each line as its fields in order, before they are made JSON text.
    func exportRecords(sessions ids: [Int64]?, emit: ([(String, AuditValue)]) throws -> Void) throws {
        let all = try sessions().map { session in
            var session = session
            session.uuid = try transferUUID(of: session)
            return session
        }
        let chosen =
            try ids.map { wanted throws(StoreError) in
                try wanted.map { id throws(StoreError) in try session(id) }
            } ?? all
        let uuids = Dictionary(all.map { ($0.id, $0.uuid ?? "") }, uniquingKeysWith: { first, _ in first })
        do {
            for session in chosen {
                let source = try scenarioSource(of: session.id)
                try emit(
                    [("type", .string("session"))]
                        + zip(
                            Self.sessionFields,
                            [
                                .int(SessionTransfer.format), session.uuid.map(AuditValue.string) ?? .null,
                                session.name.map(AuditValue.string) ?? .null, .string(session.scenario),
                                .string(session.delegate), .string(session.status.rawValue), .string(session.startedAt),
                                session.endedAt.map(AuditValue.string) ?? .null,
                                session.replayOf.flatMap { uuids[$0] }.map(AuditValue.string) ?? .null,
                                session.replayMode.map { .string($0.rawValue) } ?? .null,
                                .object(session.labels.mapValues(AuditValue.string)), .int(session.events),
                                .int(session.inputs), .int(session.callbacks), .int(session.vetoes),
                                .int(session.failures),
                                .string(source),
                            ]
                        )
                        .map { ($0, $1) })
                try connection.cached("SELECT id, path, kind, parent FROM widgets WHERE session = ? ORDER BY id")
                    .forEachRow([.integer(session.id)]) { row in
                        try emit(
                            ([("type", .string("widget"))]
                                + zip(
                                    ["id", "path", "kind", "parent"], (0..<4).map { Self.exported(row.value($0)) }
                                )
                                .map { ($0, $1) }))
                    }
                let events = Self.exportedEvents(
                    answers: hasAnswerKinds, outcomes: hasAnswerOutcomes, later: hasLaterAnswers)
                try connection.cached(events).forEachRow([.integer(session.id)]) {
                    row in
                    try emit(
                        ([("type", .string("event"))]
                            + zip(
                                Self.eventFields, (0..<Self.eventFields.count).map { Self.exported(row.value($0)) }
                            )
                            .map { ($0, $1) }))
                }
            }
            try emit([("type", .string("end")), ("sessions", .int(chosen.count))])
        } catch let error as SQLiteError {
            throw StoreError.sqlite(error)
        }
    }

    /// The UUID `session` travels with: its own, or for a session stored before UUIDs, the one
    /// `export` derives for it (the same each time).
    public func transferUUID(of session: SessionSummary) throws -> String {
        try session.uuid ?? derivedUUID(of: session)
    }

    /// A version-5-shaped UUID made from a session's identity (its scenario's text, delegate,
    /// start time and counts), for a session stored before UUIDs.
    private func derivedUUID(of session: SessionSummary) throws -> String {
        let identity = [
            try scenarioSource(of: session.id), session.delegate, session.startedAt, session.endedAt ?? "",
            "\(session.events)", "\(session.replayOf ?? 0)",
        ].joined(separator: "\u{0}")
        var hex = Array(SHA256.hex(Data(identity.utf8)).prefix(32))
        hex[12] = "5"
        hex[16] = "8"
        let text = String(hex)
        return [
            text.prefix(8), text.dropFirst(8).prefix(4), text.dropFirst(12).prefix(4), text.dropFirst(16).prefix(4),
            text.dropFirst(20),
        ].joined(separator: "-")
    }

    /// The fields of a `session` line after its type, in order.
    static let sessionFields = [
        "format", "uuid", "name", "scenario", "delegate", "status", "started_at", "ended_at", "replay_of",
        "replay_mode",
        "labels", "events", "inputs", "callbacks", "vetoes", "failures", "scenario_source",
    ]

    /// The fields of an `event` line of format 1 after its type.
    static let formatOneEventFields = [
        "seq", "t_ns", "widget", "kind", "protocol", "name", "labels", "answer", "args", "result", "vetoed",
        "implemented", "duration_ns", "parent_seq",
    ]
    /// The fields of an `event` line after its type, in the order of `exportedEvents`: format 1's,
    /// then format 2's three.
    static let eventFields = formatOneEventFields + ["answered", "later", "answers"]

    /// A session's events with their names, its own and those it shares, in `seq` order.
    ///
    /// An event's `vetoed` is, as in every export since format 1, whether its answer took effect:
    /// for a callback whose `answer` is `override`, whether it overrode (`events.overridden` since
    /// migration 0008). A database from before migration 0009 has no answer that comes later.
    private static func exportedEvents(answers: Bool, outcomes: Bool, later: Bool) -> String {
        """
        SELECT e.seq, e.t_ns, e.widget, c.kind, c.protocol, c.name, c.labels,
               \(exportedAnswer(answers: answers, outcomes: outcomes)),
               e.args, e.result, \(outcomes ? "coalesce(e.vetoed, e.overridden)" : "e.vetoed"), e.implemented,
               CASE WHEN e.session = s.id THEN e.duration_ns ELSE 0 END, e.parent_seq,
               \(later ? "c.answered, e.later, e.answers" : "NULL, NULL, NULL")
        FROM sessions AS s
        JOIN events AS e ON e.session IN (s.id, s.events_from)
            AND (e.session = s.id OR (e.seq <= s.events_through
                AND NOT EXISTS (SELECT 1 FROM events AS own WHERE own.session = s.id AND own.seq = e.seq)))
        JOIN callbacks AS c ON c.id = e.callback
        WHERE s.id = ? ORDER BY e.seq
        """
    }

    /// An event line's `answer`: its callback's answer kind. A database of an older build, read as
    /// it is, may not know a name's (before migration 0005): it gets the one 0008 would find.
    private static func exportedAnswer(answers: Bool, outcomes: Bool) -> String {
        let inferred = """
            CASE WHEN c.kind <> 'callback' THEN NULL \
            WHEN e.vetoed IS NOT NULL AND (typeof(e.result) <> 'integer' OR e.vetoed = e.result) THEN 'override' \
            WHEN e.vetoed IS NOT NULL THEN 'veto' WHEN e.result IS NOT NULL THEN 'value' ELSE 'none' END
            """
        return outcomes ? "c.answer" : answers ? "coalesce(c.answer, \(inferred))" : inferred
    }

    /// A stored value with its SQL type.
    private static func exported(_ value: SQLValue) -> AuditValue {
        switch value {
        case .null: .null
        case .integer(let number): .int(Int(number))
        case .real(let number): .double(number)
        case .text(let text): .string(text)
        case .blob(let bytes):
            .object(["blob": .string(SHA256.hexadecimal(bytes))])
        }
    }

    private func orderedLine(_ fields: [(String, AuditValue)]) -> String {
        "{" + fields.map { AuditValue.string($0.0).json + ":" + $0.1.json }.joined(separator: ",") + "}"
    }

    /// Imports the sessions of an export, read line by line from `lines`, in one transaction: an
    /// error anywhere (a line that is not what the form says, a file cut short) leaves the
    /// database as it was. A session whose UUID the database holds is skipped.
    ///
    /// - Complexity: O(*e* log *N*) for the *e* events of the lines, stored into a database of *N*
    ///   rows in one transaction; memory does not grow with *e*.
    public func importSessions(_ lines: some Sequence<String>) throws -> SessionTransfer.Imported {
        try importSessions { feed in
            for line in lines { try feed(line) }
        }
    }

    /// Imports the lines `produce` gives to the function it is handed, as `importSessions(_:)`
    /// does, on this thread.
    ///
    /// - Complexity: as `importSessions(_:)`: O(*e* log *N*) for *e* events into *N* rows.
    public func importSessions(
        _ produce: (_ feed: (String) throws -> Void) throws -> Void
    ) throws -> SessionTransfer.Imported {
        try importing { reader in
            var scanner = ImportScanner()
            try produce { line in
                var line = line
                line.withUTF8 { scanner.add(UnsafeRawBufferPointer($0)) }
                if scanner.isFull { try reader.read(scanner.take()) }
            }
            try reader.read(scanner.take())
        }
    }

    /// Imports the lines `produce` gives to the function it is handed as UTF-8 bytes, without
    /// their line feeds, as `importSessions(_:)` does: how `auditctl import` reads a file.
    ///
    /// `produce` runs on a thread of its own, which scans the lines (`ImportScanner`) a chunk
    /// ahead of this one, which stores them; at most a few chunks of about 1 MB wait between the
    /// two, and as many, stored, wait to be filled again. A line's bytes are read during the call
    /// that gives them only. When storing fails, the function `produce` was handed throws, so that
    /// it stops; this function returns once `produce` has.
    ///
    /// - Complexity: as `importSessions(_:)`: O(*e* log *N*) for *e* events into *N* rows.
    public func importSessions(
        lineBytes produce: (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> SessionTransfer.Imported {
        try importSessions(lineBytes: produce, chunkBytes: ImportScanner.chunkBytes)
    }

    /// `importSessions(lineBytes:)` with chunks of about `chunkBytes` (tests make them small).
    func importSessions(
        lineBytes produce: (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void, chunkBytes: Int
    ) throws -> SessionTransfer.Imported {
        try importing { reader in
            try ImportChunk.scanning(produce, chunkBytes: chunkBytes) { try reader.read($0) }
        }
    }

    /// Runs `body` with a reader in one transaction, and checks that the export was whole.
    func importing(_ body: (inout ImportReader) throws -> Void) throws -> SessionTransfer.Imported {
        try bulkTransaction {
            var reader = ImportReader(store: self)
            try body(&reader)
            try reader.finish()
            return reader.imported
        }
    }

    /// Runs `body` in one transaction: in a database that holds no session yet, written to the
    /// file directly rather than through the WAL (`Connection.transactionBypassingWAL`), as
    /// importing or merging into a new database is.
    func bulkTransaction<T>(_ body: () throws -> T) throws -> T {
        if try connection.scalarInt("SELECT EXISTS (SELECT 1 FROM sessions)") == 0 {
            return try connection.transactionBypassingWAL(body)
        }
        return try connection.transaction(body)
    }
}
