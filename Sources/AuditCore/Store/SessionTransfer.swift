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
    /// The fields of a `session` line after its type, in order.
    static let sessionFields = [
        "format", "uuid", "name", "scenario", "delegate", "status", "started_at", "ended_at", "replay_of",
        "replay_mode",
        "labels", "events", "inputs", "callbacks", "vetoes", "failures", "scenario_source",
    ]

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
    /// does.
    public func importSessions(
        _ produce: (_ feed: (String) throws -> Void) throws -> Void
    ) throws -> SessionTransfer.Imported {
        try importSessions(lineBytes: { feed in
            try withoutActuallyEscaping(feed) { feed in
                try produce { line in
                    var line = line
                    try line.withUTF8 { try feed(UnsafeRawBufferPointer($0)) }
                }
            }
        })
    }

    /// Imports the lines `produce` gives to the function it is handed as UTF-8 bytes, without
    /// their line feeds, as `importSessions(_:)` does: how `auditctl import` reads a file, with no
    /// string made for a line the export's own form takes (see ``SessionTransfer``). The bytes
    /// are read during the call only.
    public func importSessions(
        lineBytes produce: (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
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
            try reader.flush()
            if let missing = reader.unfinished {
                throw SessionTransfer.ImportError(line: number, reason: "the export ends before \(missing)")
            }
        }
        return imported
    }
}

/// A line of an export: its UTF-8 bytes (valid during the call that reads it), or (from
/// `mergeSessions`) the fields its text would hold.
enum ImportRecord {
    case line(UnsafeRawBufferPointer)
    case fields([String: AuditValue])
}

/// A value of an event row waiting to be inserted: a string is a range of `batchedText`.
private enum BatchedValue {
    case null
    case integer(Int64)
    case text(Range<Int>)
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
    /// The same, for lines read in their form: by the hash of the bytes from `kind` to `answer`,
    /// with those bytes.
    var scannedCallbackIDs: [Int: (bytes: [UInt8], id: Int64)] = [:]
    /// The values of the line read in its form.
    var scanned: [ScannedValue] = []
    /// The values of the event rows read and not yet inserted, 11 a row, their strings' bytes
    /// (escapes decoded) in `batchedText`; and the statements that insert rows, by their number.
    var batched: [BatchedValue] = []
    var batchedText: [UInt8] = []
    var eventInserts: [Int: Statement] = [:]
    /// The `seq` of the current session's last event read in its form.
    var lastSeq = Int64.min
    var widgetInsert: Statement?

    static let eventForm = ExportLineForm(type: "event", keys: AuditStore.eventFields)
    static let sessionForm = ExportLineForm(type: "session", keys: AuditStore.sessionFields, labels: "labels")
    static let widgetForm = ExportLineForm(type: "widget", keys: widgetFields)
    static let widgetFields = ["id", "path", "kind", "parent"]

    init(store: AuditStore) { self.store = store }

    /// What is missing at the end of the file, if anything.
    var unfinished: String? {
        if let current, current.seen < current.expected {
            return "the last session's events (\(current.seen) of \(current.expected))"
        }
        return ended ? nil : "its end line"
    }

    mutating func read(_ record: ImportRecord, into imported: inout SessionTransfer.Imported) throws {
        if case .line(let line) = record, try readInForm(line) { return }
        try flush()
        guard !ended else { return fail("a line after the end line") }
        let value: AuditValue
        switch record {
        case .fields(let fields): value = .object(fields)
        case .line(let line) where Self.sessionForm.scan(line, into: &scanned):
            // A session line in its form: its fields are made from the scan, not parsed again.
            var fields = ["type": AuditValue.string("session")]
            for (key, scanned) in zip(AuditStore.sessionFields, scanned) { fields[key] = scanned.value(in: line) }
            value = .object(fields)
        case .line(let line):
            do {
                value = try AuditValue(json: String(decoding: line, as: UTF8.self))
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
            let values = try Self.widgetFields.map { try reader.sql($0) }
            if let id = session.id {
                let statement = try widgetStatement()
                statement.bind(id, at: 1)
                for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 2)) }
                try statement.run()
            }
        case "event":
            guard current != nil else { return fail("an event before any session line") }
            let values = try AuditStore.eventFields.map { try reader.sql($0) }
            current!.seen += 1
            guard current!.seen <= current!.expected else {
                return fail("more events than the session line's \(current!.expected)")
            }
            // Events read in their form after this one must come after it.
            if case .integer(let seq) = values[0] { lastSeq = max(lastSeq, seq) } else { lastSeq = .max }
            if let id = current!.id {
                let name = Array(values[3...5])
                let callback = try callbackIDs[name] ?? internCallback(Array(values[3...7]))
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
        lastSeq = .min
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

    /// Reads a widget or event line in the export's own form (`ExportLineForm`) and stores it;
    /// false, with nothing done, when the line is not in that form or is one the full reading
    /// must judge (after the end line, outside a session, an event past the count its session
    /// line gave).
    ///
    /// An event read in its form has an integer `seq` greater than the last one's, integer
    /// times and widget, and `args` text: its row cannot fail a constraint, so it waits in a batch
    /// of rows inserted by one statement (`flush()`). Only a failure of the disk can strike a
    /// batch, and it is reported at the line that sent the batch.
    private mutating func readInForm(_ line: UnsafeRawBufferPointer) throws -> Bool {
        guard !ended, let session = current else { return false }
        if session.seen < session.expected, Self.eventForm.scan(line, into: &scanned),
            case .integer(let seq) = scanned[0].kind, seq > lastSeq, case .integer = scanned[1].kind,
            case .integer = scanned[2].kind, case .text = scanned[8].kind, case .integer = scanned[12].kind
        {
            current!.seen += 1
            lastSeq = seq
            guard let id = session.id else { return true }
            let callback = try scannedCallbackID(in: line)
            // seq, t_ns, widget, kind, protocol, name, labels, answer, args, result, vetoed,
            // implemented, duration_ns, parent_seq
            batched.append(.integer(id))
            for index in 0...2 { batch(scanned[index], of: line) }
            batched.append(.integer(callback))
            for index in 8...13 { batch(scanned[index], of: line) }
            if batched.count == Self.batchRows * 11 { try flush() }
            return true
        }
        if Self.widgetForm.scan(line, into: &scanned) {
            guard let id = session.id else { return true }
            let statement = try widgetStatement()
            statement.bind(id, at: 1)
            for index in 0...3 { statement.bind(sqlValue(scanned[index], of: line), at: Int32(index + 2)) }
            try statement.run()
            return true
        }
        return false
    }

    /// How many event rows one INSERT takes.
    static let batchRows = 32

    /// Inserts the event rows waiting in the batch.
    mutating func flush() throws {
        guard !batched.isEmpty else { return }
        defer {
            batched.removeAll(keepingCapacity: true)
            batchedText.removeAll(keepingCapacity: true)
        }
        let statement = try eventStatement(rows: batched.count / 11)
        try batchedText.withUnsafeBytes { text in
            for (offset, value) in batched.enumerated() {
                let index = Int32(offset + 1)
                switch value {
                case .null: statement.bindNull(at: index)
                case .integer(let number): statement.bind(number, at: index)
                case .text(let range):
                    // Not copied: `run()` resets the statement before the text goes.
                    statement.bind(utf8: UnsafeRawBufferPointer(rebasing: text[range]), at: index, copied: false)
                }
            }
            try statement.run()
        }
    }

    /// The id of the callback name of the event line just scanned, from the bytes of its `kind`
    /// to its `answer`.
    private mutating func scannedCallbackID(in line: UnsafeRawBufferPointer) throws -> Int64 {
        let name = UnsafeRawBufferPointer(rebasing: line[scanned[3].bytes.lowerBound..<scanned[7].bytes.upperBound])
        var hasher = Hasher()
        hasher.combine(bytes: name)
        let hash = hasher.finalize()
        if let known = scannedCallbackIDs[hash], known.bytes.count == name.count,
            known.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 })
        {
            return known.id
        }
        let id = try internCallback((3...7).map { sqlValue(scanned[$0], of: line) })
        scannedCallbackIDs[hash] = (Array(name), id)
        return id
    }

    /// Adds a scanned value to the batch, a string's bytes copied (escapes decoded).
    private mutating func batch(_ value: ScannedValue, of line: UnsafeRawBufferPointer) {
        switch value.kind {
        case .null: batched.append(.null)
        case .integer(let number): batched.append(.integer(number))
        case .text(let escaped):
            let start = batchedText.count
            let bytes = UnsafeRawBufferPointer(rebasing: line[value.bytes])
            if escaped {
                ExportLineForm.unescape(bytes, appendingTo: &batchedText)
            } else {
                batchedText.append(contentsOf: bytes)
            }
            batched.append(.text(start..<batchedText.count))
        case .labels: preconditionFailure("only a session line's labels are an object")
        }
    }

    private func sqlValue(_ value: ScannedValue, of line: UnsafeRawBufferPointer) -> SQLValue {
        switch value.value(in: line) {
        case .int(let number): .integer(Int64(number))
        case .string(let text): .text(text)
        default: .null  // a scan gives nothing else outside a session's labels
        }
    }

    /// The id of a callback name (its kind, protocol, name, labels and answer), inserting it
    /// when new.
    private func internCallback(_ name: [SQLValue]) throws -> Int64 {
        let connection = store.connection
        try connection.cached(
            """
            INSERT INTO callbacks (kind, protocol, name, labels, answer) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (kind, protocol, name) DO NOTHING
            """
        ).execute(name)
        return try connection.scalarInt(
            "SELECT id FROM callbacks WHERE kind = ? AND protocol = ? AND name = ?", Array(name[0...2])) ?? 0
    }

    /// The INSERT of `rows` event rows.
    private mutating func eventStatement(rows: Int) throws -> Statement {
        if let statement = eventInserts[rows] { return statement }
        let statement = try store.connection.prepare(
            """
            INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                parent_seq)
            VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
            """)
        eventInserts[rows] = statement
        return statement
    }

    private mutating func widgetStatement() throws -> Statement {
        if let widgetInsert { return widgetInsert }
        let statement = try store.connection.prepare(
            "INSERT INTO widgets (session, id, path, kind, parent) VALUES (?, ?, ?, ?, ?)")
        widgetInsert = statement
        return statement
    }

    private mutating func storeEvent(_ values: [SQLValue], session: Int64, callback: Int64) throws {
        // seq, t_ns, widget, kind, protocol, name, labels, answer, args, result, vetoed, implemented,
        // duration_ns, parent_seq
        let statement = try eventStatement(rows: 1)
        statement.bind(session, at: 1)
        for index in 0...2 { statement.bind(values[index], at: Int32(index + 2)) }
        statement.bind(callback, at: 5)
        for index in 8...13 { statement.bind(values[index], at: Int32(index - 2)) }
        try statement.run()
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
