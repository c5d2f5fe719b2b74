import Foundation

/// Sessions as text and back: `auditctl export` and `auditctl import`.
///
/// The form is JSON Lines, one object a line, in this order for each session: a `session` line
/// (its UUID, names, status, times, labels, counts, scenario), its `widget` lines, its `event` lines
/// in `seq` order; and an `end` line closing the file with the number of sessions. Every stored
/// value is written with its SQL type (an integer, a real, a string; a blob as `{"blob": HEX}`), so
/// export → import → export gives the same bytes. A session that shares the events of the one it
/// replayed is written whole, so a file stands alone. Sessions are named by UUID, never by id:
/// `replay_of` is the original's UUID, and importing renumbers.
public enum SessionTransfer {
    /// The form's version, in every `session` line.
    public static let format = 1

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
                    ([
                        ("type", .string("session")), ("format", .int(SessionTransfer.format)),
                        ("uuid", session.uuid.map(AuditValue.string) ?? .null),
                        ("name", session.name.map(AuditValue.string) ?? .null), ("scenario", .string(session.scenario)),
                        ("delegate", .string(session.delegate)), ("status", .string(session.status.rawValue)),
                        ("started_at", .string(session.startedAt)),
                        ("ended_at", session.endedAt.map(AuditValue.string) ?? .null),
                        ("replay_of", session.replayOf.flatMap { uuids[$0] }.map(AuditValue.string) ?? .null),
                        ("replay_mode", session.replayMode.map { .string($0.rawValue) } ?? .null),
                        ("labels", .object(session.labels.mapValues(AuditValue.string))),
                        ("events", .int(session.events)), ("inputs", .int(session.inputs)),
                        ("callbacks", .int(session.callbacks)), ("vetoes", .int(session.vetoes)),
                        ("failures", .int(session.failures)), ("scenario_source", .string(source)),
                    ]))
                try connection.cached("SELECT id, path, kind, parent FROM widgets WHERE session = ? ORDER BY id")
                    .forEachRow([.integer(session.id)]) { row in
                        try emit(
                            ([("type", .string("widget"))]
                                + zip(
                                    ["id", "path", "kind", "parent"], (0..<4).map { Self.exported(row.value($0)) }
                                )
                                .map { ($0, $1) }))
                    }
                try connection.cached(Self.exportedEvents(answers: hasAnswerKinds)).forEachRow([.integer(session.id)]) {
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

    /// The event fields of an export, in the order of `exportedEvents`.
    static let eventFields = [
        "seq", "t_ns", "widget", "kind", "protocol", "name", "labels", "answer", "args", "result", "vetoed",
        "implemented", "duration_ns", "parent_seq",
    ]

    /// A session's events with their names, its own and those it shares, in `seq` order.
    private static func exportedEvents(answers: Bool) -> String {
        """
        SELECT e.seq, e.t_ns, e.widget, c.kind, c.protocol, c.name, c.labels, \(answers ? "c.answer" : "NULL"),
               e.args, e.result, e.vetoed, e.implemented,
               CASE WHEN e.session = s.id THEN e.duration_ns ELSE 0 END, e.parent_seq
        FROM sessions AS s
        JOIN events AS e ON e.session IN (s.id, s.events_from)
            AND (e.session = s.id OR (e.seq <= s.events_through
                AND NOT EXISTS (SELECT 1 FROM events AS own WHERE own.session = s.id AND own.seq = e.seq)))
        JOIN callbacks AS c ON c.id = e.callback
        WHERE s.id = ? ORDER BY e.seq
        """
    }

    /// A stored value with its SQL type.
    private static func exported(_ value: SQLValue) -> AuditValue {
        switch value {
        case .null: .null
        case .integer(let number): .int(Int(number))
        case .real(let number): .double(number)
        case .text(let text): .string(text)
        case .blob(let bytes):
            .object(["blob": .string(bytes.map { String(format: "%02x", $0) }.joined())])
        }
    }

    private func orderedLine(_ fields: [(String, AuditValue)]) -> String {
        "{" + fields.map { AuditValue.string($0.0).json + ":" + $0.1.json }.joined(separator: ",") + "}"
    }

    /// Imports the sessions of an export, read line by line from `lines`, in one transaction: an
    /// error anywhere (a line that is not what the form says, a file cut short) leaves the
    /// database as it was. A session whose UUID the database holds is skipped.
    public func importSessions(_ lines: some Sequence<String>) throws -> SessionTransfer.Imported {
        try importSessions { feed in
            for line in lines { try feed(line) }
        }
    }

    /// Imports the lines `produce` gives to the function it is handed, as `importSessions(_:)`
    /// does: how `merge` moves sessions from another database without holding them.
    public func importSessions(
        _ produce: (_ feed: (String) throws -> Void) throws -> Void
    ) throws -> SessionTransfer.Imported {
        try importRecords { feed in
            try withoutActuallyEscaping(feed) { feed in try produce { try feed(.line($0)) } }
        }
    }

    func importRecords(_ produce: (_ feed: (ImportRecord) throws -> Void) throws -> Void) throws
        -> SessionTransfer.Imported
    {
        var imported = SessionTransfer.Imported()
        try connection.transaction {
            var reader = ImportReader(store: self)
            var number = 0
            try produce { line in
                number += 1
                do {
                    try reader.read(line, into: &imported)
                } catch let error as SessionTransfer.ImportError {
                    throw error
                } catch let error as SQLiteError {
                    throw SessionTransfer.ImportError(line: number, reason: error.message)
                } catch {
                    throw SessionTransfer.ImportError(line: number, reason: "\(error)")
                }
                if reader.failure != nil {
                    throw SessionTransfer.ImportError(line: number, reason: reader.failure!)
                }
            }
            if let missing = reader.unfinished {
                throw SessionTransfer.ImportError(line: number, reason: "the export ends before \(missing)")
            }
        }
        return imported
    }
}

/// A line of an export: its text, or (from `mergeSessions`) the fields its text would hold.
enum ImportRecord {
    case line(String)
    case fields([String: AuditValue])
}

/// Reads an export line by line, checking each against the form, and stores what it reads.
private struct ImportReader {
    let store: AuditStore
    /// The session being read: its new id (nil while skipping one the database holds), and how
    /// many events its `session` line announced and have come.
    var current: (id: Int64?, expected: Int, seen: Int)?
    var sessions = 0
    var ended = false
    var failure: String?
    /// The ids of the callback names met so far, by kind, protocol and name.
    var callbackIDs: [[SQLValue]: Int64] = [:]

    init(store: AuditStore) { self.store = store }

    /// What is missing at the end of the file, if anything.
    var unfinished: String? {
        if let current, current.seen < current.expected {
            return "the last session's events (\(current.seen) of \(current.expected))"
        }
        return ended ? nil : "its end line"
    }

    mutating func read(_ record: ImportRecord, into imported: inout SessionTransfer.Imported) throws {
        guard !ended else { return fail("a line after the end line") }
        let value: AuditValue
        switch record {
        case .fields(let fields): value = .object(fields)
        case .line(let line):
            do {
                value = try AuditValue(json: line)
            } catch {
                return fail("not a JSON object: \(error)")
            }
        }
        guard case .object(let fields) = value, case .string(let type)? = fields["type"] else {
            return fail("expected an object with a \"type\"")
        }
        var reader = LineFields(fields: fields)
        switch type {
        case "session":
            try finishSession()
            guard failure == nil else { return }
            try startSession(&reader, into: &imported)
        case "widget":
            guard let session = current else { return fail("a widget before any session line") }
            let values = try ["id", "path", "kind", "parent"].map { try reader.sql($0) }
            if let id = session.id {
                try store.connection.cached(
                    "INSERT INTO widgets (session, id, path, kind, parent) VALUES (?, ?, ?, ?, ?)"
                ).execute([.integer(id)] + values)
            }
        case "event":
            guard current != nil else { return fail("an event before any session line") }
            let values = try AuditStore.eventFields.map { try reader.sql($0) }
            current!.seen += 1
            guard current!.seen <= current!.expected else {
                return fail("more events than the session line's \(current!.expected)")
            }
            if let id = current!.id {
                let name = Array(values[3...5])
                let callback = try callbackIDs[name] ?? internCallback(values)
                callbackIDs[name] = callback
                try storeEvent(values, session: id, callback: callback)
            }
        case "end":
            try finishSession()
            guard failure == nil else { return }
            let count = try reader.integer("sessions")
            guard count == sessions else {
                return fail("the end line counts \(count) sessions; the file has \(sessions)")
            }
            ended = true
        default:
            return fail("unknown type '\(type)'")
        }
        if failure == nil, let unknown = reader.unknown { fail("unknown field '\(unknown)'") }
        if let problem = reader.problem { fail(problem) }
    }

    private mutating func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    private mutating func finishSession() throws {
        if let current, current.seen < current.expected {
            fail("the session before this line has \(current.seen) of its \(current.expected) events")
        }
        current = nil
    }

    private mutating func startSession(_ reader: inout LineFields, into imported: inout SessionTransfer.Imported)
        throws
    {
        sessions += 1
        let format = try reader.integer("format")
        guard format == SessionTransfer.format else {
            return fail("format \(format); this build reads format \(SessionTransfer.format)")
        }
        let uuid = try reader.string("uuid")
        guard UUID(uuidString: uuid) != nil else { return fail("uuid: not a UUID: '\(uuid)'") }
        let expected = try reader.integer("events")
        let connection = store.connection
        // Every field is read (and checked) before the session is stored or skipped.
        let replayOf = try reader.optionalString("replay_of")
        let values: [SQLValue] = [
            .text(uuid), try reader.optionalString("name").map(SQLValue.text) ?? .null,
            .text(try reader.string("scenario")), .text(try reader.string("delegate")),
            .text(try reader.status()), .text(try reader.string("started_at")),
            try reader.optionalString("ended_at").map(SQLValue.text) ?? .null,
            try replayOf.flatMap { original in
                try connection.scalarInt("SELECT id FROM sessions WHERE uuid = ?", [.text(original)])
            }.map { .integer(Int64($0)) } ?? .null,
            try reader.optionalString("replay_mode").map(SQLValue.text) ?? .null,
            .integer(Int64(expected)), .integer(Int64(try reader.integer("inputs"))),
            .integer(Int64(try reader.integer("callbacks"))), .integer(Int64(try reader.integer("vetoes"))),
            .integer(Int64(try reader.integer("failures"))), .text(try reader.string("scenario_source")),
        ]
        let labels = try reader.labels()
        guard reader.problem == nil, reader.unknown == nil else { return }
        if try connection.scalarInt("SELECT count(*) FROM sessions WHERE uuid = ?", [.text(uuid)]) ?? 0 > 0 {
            imported.skipped.append(uuid)
            current = (nil, expected, 0)
            return
        }
        try connection.cached(
            """
            INSERT INTO sessions (uuid, name, scenario, delegate, status, started_at, ended_at, replay_of, replay_mode,
                                  event_count, input_count, callback_count, veto_count, failure_count, scenario_source,
                                  owner_pid, owner_token)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)
            """
        ).execute(values)
        let id = connection.lastInsertRowID
        try store.storeLabels(labels, of: id)
        imported.sessions.append(id)
        current = (id, expected, 0)
    }

    /// The id of an event's callback name (`values` as in `storeEvent`), inserting it when new.
    private func internCallback(_ values: [SQLValue]) throws -> Int64 {
        let connection = store.connection
        try connection.cached(
            """
            INSERT INTO callbacks (kind, protocol, name, labels, answer) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (kind, protocol, name) DO NOTHING
            """
        ).execute(Array(values[3...7]))
        return try connection.scalarInt(
            "SELECT id FROM callbacks WHERE kind = ? AND protocol = ? AND name = ?", Array(values[3...5])) ?? 0
    }

    private func storeEvent(_ values: [SQLValue], session: Int64, callback: Int64) throws {
        // seq, t_ns, widget, kind, protocol, name, labels, answer, args, result, vetoed, implemented,
        // duration_ns, parent_seq
        try store.connection.cached(
            """
            INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                parent_seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).execute([.integer(session)] + values[0...2] + [.integer(Int64(callback))] + values[8...13])
    }
}

/// The fields of one line, read by name: each read checks its type, and what is left unread at
/// the end is an unknown field.
private struct LineFields {
    var fields: [String: AuditValue]
    var problem: String?

    /// A field no read asked for.
    var unknown: String? { fields.keys.filter { $0 != "type" }.sorted().first }

    mutating func take(_ name: String) -> AuditValue? {
        guard let value = fields.removeValue(forKey: name) else {
            if problem == nil { problem = "\(name): missing field" }
            return nil
        }
        return value
    }

    mutating func string(_ name: String) throws -> String {
        guard case .string(let text)? = take(name) else { return wrong(name, "a string", "") }
        return text
    }

    mutating func optionalString(_ name: String) throws -> String? {
        switch take(name) {
        case .string(let text)?: return text
        case .null?: return nil
        default: return wrong(name, "a string or null", nil)
        }
    }

    mutating func integer(_ name: String) throws -> Int {
        guard case .int(let number)? = take(name) else { return wrong(name, "an integer", 0) }
        return number
    }

    mutating func status() throws -> String {
        let status = try string("status")
        // A recording that is not running here any more: it did not finish.
        return status == "recording" ? "interrupted" : status
    }

    mutating func labels() throws -> [String: String] {
        guard case .object(let labels)? = take("labels") else { return wrong("labels", "an object", [:]) }
        return labels.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
    }

    /// A stored value with its SQL type, as `exported` wrote it.
    mutating func sql(_ name: String) throws -> SQLValue {
        switch take(name) {
        case .null?: return .null
        case .int(let number)?: return .integer(Int64(number))
        case .double(let number)?: return .real(number)
        case .string(let text)?: return .text(text)
        case .object(let blob)? where blob.count == 1:
            if case .string(let hex)? = blob["blob"] {
                let digits = Array(hex.utf8)
                let bytes = stride(from: 0, to: digits.count - 1, by: 2).compactMap {
                    UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
                }
                if bytes.count * 2 == digits.count { return .blob(bytes) }
            }
            return wrong(name, "a value or {\"blob\": HEX}", .null)
        default: return wrong(name, "a value or {\"blob\": HEX}", .null)
        }
    }

    private mutating func wrong<T>(_ name: String, _ expected: String, _ placeholder: T) -> T {
        if problem == nil { problem = "\(name): expected \(expected)" }
        return placeholder
    }
}
