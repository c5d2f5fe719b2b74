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
    /// An input's arguments, in label order. A callback's are not read: replay asks the live
    /// widget's, and compares answers only.
    let arguments: [AuditValue]
    let parent: Int64?
    /// The answer as stored, for comparing a candidate's answer byte for byte.
    let answer: StoredAnswer

    var kind: EventKind { name.kind }
    var protocolName: String? { name.protocolName }
    var callback: String { name.name }
    var labels: [String] { name.labels }
    var widget: String? { widgetRow?.path }
    var widgetKind: String? { widgetRow?.kind }

    /// The result as a value (nil for a void callback), parsed when asked: replay needs it only
    /// where a candidate's answer differs from the recorded one.
    var result: AuditValue? {
        switch answer.result {
        case .none: nil
        case .flag(let answer): .bool(answer)
        case .json(let text): (try? AuditValue(json: text)) ?? .null
        }
    }
}

extension AuditStore {
    /// Every event of session `id`, in `seq` order, read from the compact tables.
    func storedEvents(of id: Int64) throws(StoreError) -> [StoredEvent] {
        var events: [StoredEvent] = []
        try storedEvents(of: id, inChunksOf: .max) { chunk in
            events = chunk
            return true
        }
        return events
    }

    /// Session `id`'s events in `seq` order, handed to `deliver` `size` at a time (the last chunk
    /// may be shorter) as they are read; reading stops early when `deliver` returns false.
    func storedEvents(of id: Int64, inChunksOf size: Int, _ deliver: ([StoredEvent]) -> Bool) throws(StoreError) {
        let session = try session(id)
        try storeOperation {
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
            var remaining = session.events
            var chunk: [StoredEvent] = []
            chunk.reserveCapacity(min(size, remaining))
            let statement = try connection.cached(
                """
                SELECT seq, callback, widget, args, result, parent_seq, vetoed, implemented
                FROM events WHERE session = ? ORDER BY seq
                """)
            defer { statement.reset() }
            statement.bind([.integer(id)])
            while try statement.step() {
                chunk.append(Self.storedEvent(statement, names: names, unknown: unknown, widgets: widgets, &parsed))
                guard chunk.count == size else { continue }
                guard deliver(chunk) else { return }
                remaining -= size
                chunk = []
                chunk.reserveCapacity(min(size, max(remaining, 0)))
            }
            if !chunk.isEmpty { _ = deliver(chunk) }
        }
    }

    private static func storedEvent(
        _ row: Statement, names: IDTable<StoredEvent.Name>, unknown: StoredEvent.Name,
        widgets: IDTable<StoredEvent.Widget>, _ parsed: inout ParsedJSONCache
    ) -> StoredEvent {
        let name = names[row.int64(1)] ?? unknown
        var arguments: [AuditValue] = []
        if name.kind == .input, case .array(let values)? = row.withBytes(3, { parsed.value(of: $0).value }) {
            arguments = values
        }
        let stored: StoredResult
        switch row.type(4) {
        case SQLITE_NULL: stored = .none
        case SQLITE_INTEGER: stored = .flag(row.int64(4) != 0)
        default: stored = .json(row.withBytes(4) { parsed.text(of: $0) })
        }
        return StoredEvent(
            seq: row.int64(0), callbackID: row.int64(1), widgetID: row.int64(2), name: name,
            widgetRow: widgets[row.int64(2)], arguments: arguments, parent: row.isNull(5) ? nil : row.int64(5),
            answer: StoredAnswer(
                result: stored, vetoed: row.isNull(6) ? nil : row.int64(6) != 0,
                implemented: row.isNull(7) ? nil : row.int64(7) != 0, isOverride: !row.isNull(6) && name.isOverride))
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

    /// The text of `bytes`: a short one is made in place, a longer one shared with its repeats.
    mutating func text(of bytes: UnsafeRawBufferPointer) -> String {
        bytes.count <= 15 ? String(decoding: bytes, as: UTF8.self) : value(of: bytes).text
    }
}
