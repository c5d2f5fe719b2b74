import AuditModel
import CSQLite

/// One stored event as replay needs it: names resolved, arguments and result parsed exactly as
/// stored (not through the `timeline` view, which prints numbers to 15 digits). Its name and its
/// widget are shared by all events of the same callback and widget.
package struct StoredEvent: Sendable {
    /// A callback or input name, as `callbacks` stores it.
    final class Name: Sendable {
        let kind: EventKind
        let protocolName: String?
        let name: String
        let labels: [String]

        init(kind: EventKind, protocolName: String?, name: String, labels: [String]) {
            self.kind = kind
            self.protocolName = protocolName
            self.name = name
            self.labels = labels
        }
    }

    /// A widget of the session, as `widgets` stores it.
    final class Widget: Sendable {
        let path: String
        let kind: String

        init(path: String, kind: String) {
            self.path = path
            self.kind = kind
        }
    }

    package let seq: Int64
    /// The row id of its name in `callbacks`.
    package let callbackID: Int64
    /// Its widget's id in the session's `widgets` (0 for none).
    package let widgetID: Int64
    let name: Name
    let widgetRow: Widget?
    /// An input's arguments, in label order, and those of a callback asked outside any input
    /// (replay asks it again with them). Other callbacks' are not read: replay asks the live
    /// widget's, and compares answers only.
    package let arguments: [AuditValue]
    package let parent: Int64?
    /// The answer as stored, for comparing a candidate's answer byte for byte.
    package let answer: StoredAnswer
    /// nil unless the callback answers later; then which event of its ask this is.
    package let later: LaterStep?
    /// For an event after an ask: the ask's `seq`.
    package let answers: Int64?

    package var kind: EventKind { name.kind }
    package var protocolName: String? { name.protocolName }
    package var callback: String { name.name }
    var labels: [String] { name.labels }
    package var widget: String? { widgetRow?.path }
    package var widgetKind: String? { widgetRow?.kind }

    /// The result as a value (nil for a void callback), parsed when asked: replay needs it only
    /// where a candidate's answer differs from the recorded one.
    package var result: AuditValue? {
        switch answer.result {
        case .none: nil
        case .flag(let answer): .bool(answer)
        case .json(let text): (try? AuditValue(json: text)) ?? .null
        }
    }
}

extension AuditStore {
    /// Every event of session `id`, in `seq` order, read from the compact tables.
    package func storedEvents(of id: Int64) throws(StoreError) -> [StoredEvent] {
        var parsed = ParsedJSONCache()
        var fingerprints: [EventFingerprint]?
        return try storedEvents(of: id, parsed: &parsed, fingerprints: &fingerprints)
    }

    /// `storedEvents(of:)`, its texts shared with those `parsed` keeps (a replay job's, kept from
    /// one session to the next), and when `fingerprints` is not nil, each event's fingerprint
    /// appended to it from the same rows (as `fingerprints(of:)` reads them for a session that
    /// shares no events).
    package func storedEvents(of id: Int64, parsed: inout ParsedJSONCache, fingerprints: inout [EventFingerprint]?)
        throws(StoreError) -> [StoredEvent]
    {
        var events: [StoredEvent] = []
        try storedEvents(of: id, inChunksOf: .max, parsed: &parsed, fingerprints: &fingerprints) { chunk in
            events = chunk
            return true
        }
        return events
    }

    /// Session `id`'s events in `seq` order, handed to `deliver` `size` at a time (the last chunk
    /// may be shorter) as they are read; reading stops early when `deliver` returns false.
    package func storedEvents(
        of id: Int64, inChunksOf size: Int, parsed: inout ParsedJSONCache,
        fingerprints: inout [EventFingerprint]?, _ deliver: ([StoredEvent]) -> Bool
    ) throws(StoreError) {
        let session = try session(id)
        try storeOperation {
            let names = try callbackNames()
            let unknown = StoredEvent.Name(kind: .callback, protocolName: nil, name: "", labels: [])
            var widgets = IDTable<StoredEvent.Widget>()
            var widgetHashes = IDTable<UInt64>()
            let widgetRows = try connection.cached("SELECT id, path, kind FROM widgets WHERE session = ?")
            let widgetColumns = StoredEvent.Widget.Columns(widgetRows)
            try widgetRows.forEachRow([.integer(id)]) {
                widgets[$0.int64(widgetColumns.id)] = StoredEvent.Widget(row: $0, widgetColumns)
                widgetHashes[$0.int64(widgetColumns.id)] = FNV1a().adding($0, column: widgetColumns.path).value
            }
            var remaining = session.events
            var chunk: [StoredEvent] = []
            chunk.reserveCapacity(min(size, remaining))
            let statement = try connection.cached(
                """
                SELECT seq, callback, widget, args, result, parent_seq, \(eventAnswers), implemented
                FROM events WHERE session = ? ORDER BY seq
                """)
            defer { statement.reset() }
            let columns = StoredEvent.Columns(statement)
            statement.bind([.integer(id)])
            while try statement.step() {
                chunk.append(
                    StoredEvent(
                        row: statement, columns, names: names.names, unknown: unknown, widgets: widgets, &parsed))
                fingerprints?.append(
                    EventFingerprint(row: statement, columns, callbacks: names.hashes, widgets: widgetHashes))
                guard chunk.count == size else { continue }
                guard deliver(chunk) else { return }
                remaining -= size
                chunk = []
                chunk.reserveCapacity(min(size, max(remaining, 0)))
            }
            if !chunk.isEmpty { _ = deliver(chunk) }
        }
    }
}

extension StoredEvent {
    /// Where a statement of `events` rows has each column an event is read from, found by name
    /// once per statement: reading a row then costs no look-up (replay reads every event this way).
    struct Columns {
        let seq, callback, widget, arguments, result, parentSeq, vetoed, overridden, implemented, later, answers: Int

        package init(_ statement: Statement) {
            later = statement.column("later")
            answers = statement.column("answers")
            seq = statement.column("seq")
            callback = statement.column("callback")
            widget = statement.column("widget")
            arguments = statement.column("args")
            result = statement.column("result")
            parentSeq = statement.column("parent_seq")
            vetoed = statement.column("vetoed")
            overridden = statement.column("overridden")
            implemented = statement.column("implemented")
        }
    }

    /// The event on `row`, its name and widget found among the session's (`unknown` for a name
    /// not there), its texts shared through `parsed`.
    init(
        row: Statement, _ columns: Columns, names: IDTable<Name>, unknown: Name, widgets: IDTable<Widget>,
        _ parsed: inout ParsedJSONCache
    ) {
        let callbackID = row.int64(columns.callback)
        let widgetID = row.int64(columns.widget)
        let name = names[callbackID] ?? unknown
        var arguments: [AuditValue] = []
        if name.kind == .input || row.isNull(columns.parentSeq),
            case .array(let values)? = row.withBytes(columns.arguments, { parsed.value(of: $0).value })
        {
            arguments = values
        }
        let stored: StoredResult
        switch row.type(columns.result) {
        case SQLITE_NULL: stored = .none
        case SQLITE_INTEGER: stored = .flag(row.int64(columns.result) != 0)
        default: stored = .json(row.withBytes(columns.result) { parsed.text(of: $0) })
        }
        self.init(
            seq: row.int64(columns.seq), callbackID: callbackID, widgetID: widgetID, name: name,
            widgetRow: widgets[widgetID], arguments: arguments,
            parent: row.isNull(columns.parentSeq) ? nil : row.int64(columns.parentSeq),
            answer: StoredAnswer(
                result: stored,
                outcome: AnswerOutcome(
                    row, implemented: columns.implemented, vetoed: columns.vetoed, overridden: columns.overridden)),
            later: row.laterStep(columns.later), answers: row.isNull(columns.answers) ? nil : row.int64(columns.answers)
        )
    }
}

extension StoredEvent.Name {
    /// Where a statement of `callbacks` rows has each column a name is read from, found by name.
    struct Columns {
        let id, kind, protocolName, name, labels: Int

        package init(_ statement: Statement) {
            id = statement.column("id")
            kind = statement.column("kind")
            protocolName = statement.column("protocol")
            name = statement.column("name")
            labels = statement.column("labels")
        }
    }

    /// The name on `row`. An input's row names its widget kind as its protocol (from version 4):
    /// not a protocol, so read as none.
    convenience init(row: Statement, _ columns: Columns) {
        let labels = (try? AuditValue(json: row.string(columns.labels) ?? "[]")).flatMap { value -> [String]? in
            guard case .array(let items) = value else { return nil }
            return items.compactMap { if case .string(let label) = $0 { label } else { nil } }
        }
        let kind = row.string(columns.kind)
        let protocolName = kind == EventKind.input.rawValue ? "" : row.string(columns.protocolName) ?? ""
        self.init(
            kind: EventKind(rawValue: kind ?? "") ?? .callback, protocolName: protocolName.isEmpty ? nil : protocolName,
            name: row.string(columns.name) ?? "", labels: labels ?? [])
    }
}

extension StoredEvent.Widget {
    /// Where a statement of `widgets` rows has each column a widget is read from, found by name.
    struct Columns {
        let id, path, kind: Int

        package init(_ statement: Statement) {
            id = statement.column("id")
            path = statement.column("path")
            kind = statement.column("kind")
        }
    }

    /// The widget on `row`.
    convenience init(row: Statement, _ columns: Columns) {
        self.init(path: row.string(columns.path) ?? "", kind: row.string(columns.kind) ?? "")
    }
}

/// Parsed JSON texts by their bytes, for columns that repeat a few distinct values (a segmented
/// control's callbacks are asked about three segments, a million times). Keeps the first
/// `capacity` distinct texts of `byteCapacity` bytes in all (each kept as bytes, as a string and
/// parsed: a few times that in memory), since a replay job keeps its cache for every session and a
/// text view's arguments can be long; others are parsed each time.
package struct ParsedJSONCache {
    private struct Entry {
        let bytes: [UInt8]
        let value: AuditValue?
        let text: String
    }

    private var entries: [UInt64: [Entry]] = [:]
    private var count = 0
    private var bytes = 0
    private let capacity = 4_096
    private let byteCapacity = 4 << 20

    package init() {}

    /// The text of `bytes` and its value (nil when it is not JSON).
    package mutating func value(of bytes: UnsafeRawBufferPointer) -> (value: AuditValue?, text: String) {
        var hash = FNV1a()
        hash.add(bytes)
        if let entry = entries[hash.value]?.first(where: { $0.bytes.elementsEqual(bytes) }) {
            return (entry.value, entry.text)
        }
        let entry = Entry(
            bytes: Array(bytes), value: try? AuditValue.parse(json: bytes, readingTags: true),
            text: String(decoding: bytes, as: UTF8.self)
        )
        if count < capacity, self.bytes + bytes.count <= byteCapacity {
            entries[hash.value, default: []].append(entry)
            count += 1
            self.bytes += bytes.count
        }
        return (entry.value, entry.text)
    }

    /// The text of `bytes`: a short one is made in place, a longer one shared with its repeats.
    mutating func text(of bytes: UnsafeRawBufferPointer) -> String {
        bytes.count <= 15 ? String(decoding: bytes, as: UTF8.self) : value(of: bytes).text
    }
}
