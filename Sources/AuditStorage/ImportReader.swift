import AuditModel
import Foundation

/// Reads an export line by line, checking each against the form, and stores what it reads, in
/// the caller's transaction.
///
/// Lines come in chunks (`ImportChunk`). An event or widget line that a scan found in the
/// export's own form (`ExportLineForm`) is stored from the values the scan took; every other line
/// goes through the full reading (`AuditValue(json:)` and `LineFields`), which judges it and names
/// what is wrong. Each error is an `ImportError` naming its line.
struct ImportReader {
    let store: AuditStore
    private(set) var imported = SessionTransfer.Imported()
    /// The number of the line being read, from 1.
    private(set) var line = 0
    /// The session being read: its new id (nil while skipping one the database holds), and how
    /// many events its `session` line announced and have come.
    private var current: (id: Int64?, expected: Int, seen: Int)?
    /// The export format of the current session's line: which fields its event lines have.
    private var format = SessionTransfer.format
    /// The `seq` of the current session's last event and the id of its last widget, or `.max`
    /// once one was not an integer.
    private var lastSeq = Int64.min
    private var lastWidget = Int64.min
    private var sessions = 0
    private var ended = false
    private var failure: String?
    /// The ids of the callback names read in full lines, by kind, protocol and name.
    private var callbackIDs: [[SQLValue]: Int64] = [:]
    /// The callback names the scanner numbered (kind, protocol, name, labels, answer and
    /// answered), and their ids once stored.
    private var names: [[SQLValue]] = []
    private var nameIDs: [Int64?] = []
    /// Event rows scanned and not yet inserted: their first value in the chunk, their session and
    /// callback ids, and whether their name's answer is an override.
    private var rows: [(first: Int, session: Int64, callback: Int64, isOverride: Bool)] = []
    /// Widget rows scanned and not yet inserted: their first value in the chunk and their session.
    private var widgetRows: [(first: Int, session: Int64)] = []
    private var widgetInserts: [Int: Statement] = [:]

    init(store: AuditStore) { self.store = store }

    /// Reads a chunk of lines.
    mutating func read(_ chunk: ImportChunk) throws {
        names += chunk.newNames
        nameIDs += Array(repeating: nil, count: chunk.newNames.count)
        defer {
            rows.removeAll(keepingCapacity: true)
            widgetRows.removeAll(keepingCapacity: true)
        }
        try chunk.text.withUnsafeBytes { text in
            try chunk.bytes.withUnsafeBytes { bytes in
                for (offset, entry) in chunk.lines.enumerated() {
                    line = chunk.firstLine + offset
                    do {
                        try read(entry, of: chunk, bytes, text)
                    } catch {
                        throw named(error)
                    }
                    if let failure { throw SessionTransfer.ImportError(line: line, reason: failure) }
                }
                do {
                    try insertRows(chunk.values, text)
                } catch {
                    throw named(error)
                }
            }
        }
    }

    /// Reads a line given as its fields (how `mergeSessions` moves sessions it cannot copy whole).
    mutating func read(fields: [String: AuditValue]) throws {
        line += 1
        do {
            try readFully(.object(fields))
        } catch {
            throw named(error)
        }
        if let failure { throw SessionTransfer.ImportError(line: line, reason: failure) }
    }

    private mutating func read(
        _ entry: ImportChunk.Line, of chunk: ImportChunk, _ bytes: UnsafeRawBufferPointer,
        _ text: UnsafeRawBufferPointer
    ) throws {
        switch entry.form {
        case .event(let first, let seq, let name) where takesEvent(seq: seq):
            current!.seen += 1
            lastSeq = seq
            guard let id = current!.id else { return }
            rows.append((first, id, try callbackID(name), Self.isOverride(names[name])))
            if rows.count == AuditStore.rowsPerInsert { try insertRows(chunk.values, text) }
        case .widget(let first, let id) where !ended && current != nil && id > lastWidget:
            lastWidget = id
            guard let session = current!.id else { return }
            widgetRows.append((first, session))
            if widgetRows.count == AuditStore.rowsPerInsert { try insertRows(chunk.values, text) }
        case .fields(let fields):
            try insertRows(chunk.values, text)
            try readFully(.object(fields))
        default:
            try insertRows(chunk.values, text)
            try readFully(UnsafeRawBufferPointer(rebasing: bytes[entry.bytes]))
        }
    }

    /// An error met reading the current line, as one that names it.
    private func named(_ error: any Error) -> any Error {
        switch error {
        case let error as SessionTransfer.ImportError: error
        case let error as SQLiteError: SessionTransfer.ImportError(line: line, reason: error.message)
        default: SessionTransfer.ImportError(line: line, reason: "\(error)")
        }
    }

    /// Checks that the export is whole, once every line is read.
    func finish() throws {
        if let current, current.seen < current.expected {
            throw SessionTransfer.ImportError(
                line: line,
                reason: "the export ends before the last session's events (\(current.seen) of \(current.expected))")
        }
        if !ended { throw SessionTransfer.ImportError(line: line, reason: "the export ends before its end line") }
    }

    /// Whether an event scanned in its form can be stored as it is: it belongs to a session of
    /// this build's format (the form's fields), is within its count, and comes after the last one. Its row then cannot fail a constraint,
    /// so it waits in a batch; only a failure of the disk can strike a batch, and it is reported
    /// at the line that sent it. Any other event goes through the full reading, which judges it.
    /// A widget waits in a batch of its own on the same terms: in a session, its id above the
    /// last one's.
    private func takesEvent(seq: Int64) -> Bool {
        guard !ended, format == SessionTransfer.format, let current, current.seen < current.expected else {
            return false
        }
        return seq > lastSeq
    }

    /// The id of a callback name the scanner numbered, inserting it when new. Names are known by
    /// kind, protocol and name, whichever way their lines were read: the first line of a name
    /// gives its labels and answer.
    private mutating func callbackID(_ number: Int) throws -> Int64 {
        if let id = nameIDs[number] { return id }
        let name = names[number]
        let id = try callbackIDs[Array(name[0...2])] ?? internCallback(name)
        callbackIDs[Array(name[0...2])] = id
        nameIDs[number] = id
        return id
    }

    /// Inserts the widget and event rows waiting, with one statement each.
    private mutating func insertRows(_ values: [FormValue], _ text: UnsafeRawBufferPointer) throws {
        if !widgetRows.isEmpty {
            defer { widgetRows.removeAll(keepingCapacity: true) }
            let statement = try widgetInsert(rows: widgetRows.count)
            // Each row: session, id, path, kind, parent; the scan took all but the session.
            for (number, row) in widgetRows.enumerated() {
                let at = number * 5
                statement.bind(row.session, at: Int32(at + 1))
                for index in 0..<4 { bind(values[row.first + index], text, to: statement, at: at + index + 2) }
            }
            try statement.run()
        }
        guard !rows.isEmpty else { return }
        defer { rows.removeAll(keepingCapacity: true) }
        let statement = try store.eventInsert(rows: rows.count)
        // Each row: session, seq, t_ns, widget, callback, args, result, vetoed, implemented,
        // duration_ns, parent_seq, overridden, later, answers; the scan took all but the session,
        // the callback and `overridden`, which is an override's `vetoed` (see `isOverride`).
        for (number, row) in rows.enumerated() {
            let at = number * AuditStore.eventColumns
            statement.bind(row.session, at: Int32(at + 1))
            for index in 0..<3 { bind(values[row.first + index], text, to: statement, at: at + index + 2) }
            statement.bind(row.callback, at: Int32(at + 5))
            for index in 3..<9 { bind(values[row.first + index], text, to: statement, at: at + index + 3) }
            statement.bindNull(at: Int32(at + (row.isOverride ? 8 : 12)))
            if row.isOverride { bind(values[row.first + 5], text, to: statement, at: at + 12) }
            bind(values[row.first + 9], text, to: statement, at: at + 13)
            bind(values[row.first + 10], text, to: statement, at: at + 14)
        }
        try statement.run()
    }

    /// Binds a scanned value; its text is not copied, as `run()` resets the statement before the
    /// chunk goes.
    private func bind(_ value: FormValue, _ text: UnsafeRawBufferPointer, to statement: Statement, at index: Int) {
        switch value {
        case .null: statement.bindNull(at: Int32(index))
        case .integer(let number): statement.bind(number, at: Int32(index))
        case .text(let range):
            statement.bind(utf8: UnsafeRawBufferPointer(rebasing: text[range]), at: Int32(index), copied: false)
        }
    }

    // MARK: The full reading

    private mutating func readFully(_ line: UnsafeRawBufferPointer) throws {
        guard !ended else { return fail("a line after the end line") }
        let text = String(decoding: line, as: UTF8.self).utf8  // as `AuditValue(json:)` reads it
        let value: AuditValue
        do {
            value = try AuditValue.parse(json: text, readingTags: true)
        } catch {
            return fail(error.reason(in: text))
        }
        try readFully(value)
    }

    private mutating func readFully(_ value: AuditValue) throws {
        guard !ended else { return fail("a line after the end line") }
        guard case .object(let fields) = value, case .string(let type)? = fields["type"] else {
            return fail("expected an object with a \"type\"")
        }
        var reader = LineFields(fields: fields)
        switch type {
        case "session":
            try finishSession()
            guard failure == nil else { return }
            try startSession(&reader)
        case "widget":
            guard let session = current else { return fail("a widget before any session line") }
            let values = try ImportScanner.widgetFields.map { try reader.sql($0) }
            // Widgets stored from a scan after this one must come after it.
            if case .integer(let id) = values[0] { lastWidget = max(lastWidget, id) } else { lastWidget = .max }
            if let id = session.id {
                let statement = try widgetInsert(rows: 1)
                statement.bind(id, at: 1)
                for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 2)) }
                try statement.run()
            }
        case "event":
            guard current != nil else { return fail("an event before any session line") }
            let fields = format == 1 ? AuditStore.formatOneEventFields : AuditStore.eventFields
            let values = try fields.map { try reader.sql($0) }
            current!.seen += 1
            guard current!.seen <= current!.expected else {
                return fail("more events than the session line's \(current!.expected)")
            }
            // Events stored from a scan after this one must come after it.
            if case .integer(let seq) = values[0] { lastSeq = max(lastSeq, seq) } else { lastSeq = .max }
            if let id = current!.id {
                let name = Array(values[3...5])
                let callback = try callbackIDs[name] ?? internCallback(Array(values[3...7]) + [values[safe: 14]])
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
        lastWidget = .min
    }

    private mutating func startSession(_ reader: inout LineFields) throws {
        sessions += 1
        format = try reader.integer("format")
        guard (SessionTransfer.oldestFormat...SessionTransfer.format).contains(format) else {
            return fail(
                "format \(format); this build reads formats \(SessionTransfer.oldestFormat) to \(SessionTransfer.format)"
            )
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

    /// The id of a callback name (its kind, protocol, name, labels, answer and answered),
    /// inserting it when new.
    private func internCallback(_ name: [SQLValue]) throws -> Int64 {
        let connection = store.connection
        store.forgetCallbackNames()
        try connection.cached(
            """
            INSERT INTO callbacks (kind, protocol, name, labels, answer, answered) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (kind, protocol, name) DO NOTHING
            """
        ).execute(name)
        return try connection.scalarInt(
            "SELECT id FROM callbacks WHERE kind = ? AND protocol = ? AND name = ?", Array(name[0...2])) ?? 0
    }

    /// The INSERT of `rows` widget rows.
    private mutating func widgetInsert(rows: Int) throws -> Statement {
        if let statement = widgetInserts[rows] { return statement }
        let statement = try store.connection.prepare(
            "INSERT INTO widgets (session, id, path, kind, parent) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
        widgetInserts[rows] = statement
        return statement
    }

    private mutating func storeEvent(_ values: [SQLValue], session: Int64, callback: Int64) throws {
        // seq, t_ns, widget, kind, protocol, name, labels, answer, args, result, vetoed, implemented,
        // duration_ns, parent_seq, (format 2) answered, later, answers; stored in `eventInsert`'s
        // order, an override's `vetoed` as its `overridden`.
        let statement = try store.eventInsert(rows: 1)
        statement.bind(session, at: 1)
        for index in 0...2 { statement.bind(values[index], at: Int32(index + 2)) }
        statement.bind(callback, at: 5)
        for index in 8...13 { statement.bind(values[index], at: Int32(index - 2)) }
        let isOverride = Self.isOverride(Array(values[3...7]))
        statement.bind(isOverride ? .null : values[10], at: 8)
        statement.bind(isOverride ? values[10] : .null, at: 12)
        statement.bind(values[safe: 15], at: 13)
        statement.bind(values[safe: 16], at: 14)
        try statement.run()
    }

    /// Whether a callback name (kind, protocol, name, labels, answer…) overrides a proposal: an
    /// export's `vetoed` then says whether it overrode (see `SessionTransfer`), which the
    /// `events` table keeps in `overridden`.
    private static func isOverride(_ name: [SQLValue]) -> Bool {
        name.count >= 5 && name[4] == .text(AnswerKind.override.rawValue)
    }
}

extension [SQLValue] {
    /// The value at `index`, or null past the end: a field format 1 does not have.
    fileprivate subscript(safe index: Int) -> SQLValue { index < count ? self[index] : .null }
}
