import CSQLite

/// One stored event as replay needs it: names resolved, arguments and result parsed exactly as
/// stored (not through the `timeline` view, which prints numbers to 15 digits). Its name and its
/// widget are shared by all events of the same callback and widget.
struct StoredEvent: Sendable {
    /// A callback or input name, as `callbacks` stores it.
    final class Name: Sendable {
        let kind: EventKind
        let protocolName: String?
        let name: String
        let labels: [String]
        /// Whether the callback's answer overrides a proposal (`callbacks.answer`).
        let isOverride: Bool

        init(kind: EventKind, protocolName: String?, name: String, labels: [String], isOverride: Bool = false) {
            self.kind = kind
            self.protocolName = protocolName
            self.name = name
            self.labels = labels
            self.isOverride = isOverride
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

    let seq: Int64
    /// The row id of its name in `callbacks`.
    let callbackID: Int64
    /// Its widget's id in the session's `widgets` (0 for none).
    let widgetID: Int64
    let name: Name
    let widgetRow: Widget?
    /// In label order.
    let arguments: [AuditValue]
    /// nil for a void callback (SQL NULL).
    let result: AuditValue?
    let parent: Int64?
    /// The answer as stored, for comparing a candidate's answer byte for byte.
    let answer: StoredAnswer

    var kind: EventKind { name.kind }
    var protocolName: String? { name.protocolName }
    var callback: String { name.name }
    var labels: [String] { name.labels }
    var widget: String? { widgetRow?.path }
    var widgetKind: String? { widgetRow?.kind }

    /// The arguments as the object the `timeline` view shows.
    var argumentObject: AuditValue {
        .object(Dictionary(zip(labels, arguments).map { ($0, $1) }) { first, _ in first })
    }
}

extension AuditStore {
    /// Every event of session `id`, in `seq` order, read from the compact tables.
    func storedEvents(of id: Int64) throws(StoreError) -> [StoredEvent] {
        let session = try session(id)
        return try storeOperation {
            var names = IDTable<StoredEvent.Name>()
            let unknown = StoredEvent.Name(kind: .callback, protocolName: nil, name: "", labels: [])
            let answer = hasAnswerKinds ? "answer" : "NULL"
            for (id, name) in try connection.cached(
                "SELECT id, kind, protocol, name, labels, \(answer) FROM callbacks"
            ).rows(
                [],
                {
                    row -> (Int64, StoredEvent.Name) in
                    let labels = (try? AuditValue(json: row.string(4) ?? "[]")).flatMap { value -> [String]? in
                        guard case .array(let items) = value else { return nil }
                        return items.compactMap { if case .string(let label) = $0 { label } else { nil } }
                    }
                    // An input's row names its widget kind there (from version 4): not a protocol.
                    let protocolName = row.string(1) == EventKind.input.rawValue ? "" : row.string(2) ?? ""
                    return (
                        row.int64(0),
                        StoredEvent.Name(
                            kind: EventKind(rawValue: row.string(1) ?? "") ?? .callback,
                            protocolName: protocolName.isEmpty ? nil : protocolName, name: row.string(3) ?? "",
                            labels: labels ?? [], isOverride: row.string(5) == AnswerKind.override.rawValue)
                    )
                })
            {
                names[id] = name
            }
            var widgets = IDTable<StoredEvent.Widget>()
            for (id, widget) in try connection.cached("SELECT id, path, kind FROM widgets WHERE session = ?").rows(
                [.integer(id)],
                { ($0.int64(0), StoredEvent.Widget(path: $0.string(1) ?? "", kind: $0.string(2) ?? "")) })
            {
                widgets[id] = widget
            }
            var parsed = ParsedJSONCache()
            var events: [StoredEvent] = []
            events.reserveCapacity(session.events)
            let statement = try connection.cached(
                """
                SELECT seq, callback, widget, args, result, parent_seq, vetoed, implemented
                FROM events WHERE session = ? ORDER BY seq
                """)
            defer { statement.reset() }
            statement.bind([.integer(id)])
            while try statement.step() {
                events.append(Self.storedEvent(statement, names: names, unknown: unknown, widgets: widgets, &parsed))
            }
            return events
        }
    }

    private static func storedEvent(
        _ row: Statement, names: IDTable<StoredEvent.Name>, unknown: StoredEvent.Name,
        widgets: IDTable<StoredEvent.Widget>, _ parsed: inout ParsedJSONCache
    ) -> StoredEvent {
        let arguments = row.withBytes(3) { bytes in
            if case .array(let values)? = parsed.value(of: bytes).value { return values }
            return []
        }
        let result: AuditValue?
        let stored: StoredResult
        switch row.type(4) {
        case SQLITE_NULL:
            result = nil
            stored = .none
        case SQLITE_INTEGER:
            result = .bool(row.int64(4) != 0)
            stored = .flag(row.int64(4) != 0)
        default:
            let (value, text) = row.withBytes(4) { parsed.value(of: $0) }
            result = value ?? .null
            stored = .json(text)
        }
        return StoredEvent(
            seq: row.int64(0), callbackID: row.int64(1), widgetID: row.int64(2), name: names[row.int64(1)] ?? unknown,
            widgetRow: widgets[row.int64(2)], arguments: arguments, result: result,
            parent: row.isNull(5) ? nil : row.int64(5),
            answer: StoredAnswer(
                result: stored, vetoed: row.isNull(6) ? nil : row.int64(6) != 0,
                implemented: row.isNull(7) ? nil : row.int64(7) != 0,
                isOverride: !row.isNull(6) && (names[row.int64(1)] ?? unknown).isOverride))
    }
}

/// Parsed JSON texts by their bytes, for columns that repeat a few distinct values (a segmented
/// control's callbacks are asked about three segments, a million times). Keeps the first
/// `capacity` distinct texts; others are parsed each time.
struct ParsedJSONCache {
    private struct Entry {
        let bytes: [UInt8]
        let value: AuditValue?
        let text: String
    }

    private var entries: [UInt64: [Entry]] = [:]
    private var count = 0
    private let capacity = 4_096

    /// The text of `bytes` and its value (nil when it is not JSON).
    mutating func value(of bytes: UnsafeRawBufferPointer) -> (value: AuditValue?, text: String) {
        var hash = FNV1a()
        hash.add(bytes)
        if let entry = entries[hash.value]?.first(where: { $0.bytes.elementsEqual(bytes) }) {
            return (entry.value, entry.text)
        }
        let entry = Entry(
            bytes: Array(bytes), value: try? AuditValue.parse(json: bytes, readingTags: true),
            text: String(decoding: bytes, as: UTF8.self)
        )
        if count < capacity {
            entries[hash.value, default: []].append(entry)
            count += 1
        }
        return (entry.value, entry.text)
    }
}
