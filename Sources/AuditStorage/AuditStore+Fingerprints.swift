import AuditModel
import CSQLite

/// What the differ compares of one event, reduced to hashes: who was called with what (identity),
/// who was called at all (shape: identity without the arguments), and what came back.
///
/// Read straight from the compact `events` table, hashing the stored bytes without making
/// strings, so two sessions of a million events each fit in a few tens of megabytes.
package struct EventFingerprint: Sendable, Equatable {
    package let seq: Int64
    package let parent: Int64
    package let identity: UInt64
    package let shape: UInt64
    package let result: UInt64
    package let answer: AnswerOutcome
    /// For a callback answered later: which event of its ask this is (nil otherwise).
    package let later: LaterStep?
    /// For a later step other than the ask itself: the ask's `seq` (0 otherwise).
    package let answers: Int64

    package init(
        seq: Int64, parent: Int64, identity: UInt64, shape: UInt64, result: UInt64, answer: AnswerOutcome,
        later: LaterStep? = nil, answers: Int64 = 0
    ) {
        self.seq = seq
        self.parent = parent
        self.identity = identity
        self.shape = shape
        self.result = result
        self.answer = answer
        self.later = later
        self.answers = answers
    }

    /// Whether this event is a step of an ask other than the ask itself (an answer, a give-up, a
    /// mistake): compared with its ask's steps, not by its place in the timeline.
    package var isLaterStep: Bool { later != nil && later != .asked }
}

extension AuditStore {
    /// Every event of session `id`, in `seq` order, as fingerprints. A session that shares events
    /// with the session it replayed (`events_from`) reads those rows, with its own rows in place
    /// of the ones whose answer it changed.
    package func fingerprints(of id: Int64) throws(StoreError) -> [EventFingerprint] {
        _ = try session(id)
        return try storeOperation {
            var shared: (from: Int64, through: Int64)?
            if hasSharedEvents {
                shared =
                    try connection.cached("SELECT events_from, events_through FROM sessions WHERE id = ?").rows([
                        .integer(id)
                    ]) { row in
                        row.isNull("events_from")
                            ? nil : (from: row.int64("events_from"), through: row.int64("events_through"))
                    }.first ?? nil
            }
            let callbackHashes = try callbackNames().hashes
            var widgetHashes = IDTable<UInt64>()
            let widgetRows = try connection.cached("SELECT id, path FROM widgets WHERE session = ?")
            let (widgetID, path) = (widgetRows.column("id"), widgetRows.column("path"))
            try widgetRows.forEachRow([.integer(id)]) { row in
                widgetHashes[row.int64(widgetID)] = FNV1a().adding(row, column: path).value
            }
            let read = try connection.cached(
                """
                SELECT seq, callback, widget, args, result, \(eventAnswers), implemented, parent_seq
                FROM events WHERE session = ? AND seq <= ? ORDER BY seq
                """)
            let columns = StoredEvent.Columns(read)
            // Constants from here: read for each row without a retain.
            let (callbacks, widgets) = (callbackHashes, widgetHashes)
            let fingerprint = { (row: Statement) in
                EventFingerprint(row: row, columns, callbacks: callbacks, widgets: widgets)
            }
            guard let shared else { return try read.rows([.integer(id), .integer(.max)], fingerprint) }
            // The shared rows, with the session's own rows in their place.
            var fingerprints = try read.rows([.integer(shared.from), .integer(shared.through)], fingerprint)
            for own in try read.rows([.integer(id), .integer(.max)], fingerprint) {
                // Seqs run from 1 without gaps, so an event is found by position when it is there; a
                // tampered table is searched.
                let guess = Int(own.seq) - 1
                if fingerprints.indices.contains(guess), fingerprints[guess].seq == own.seq {
                    fingerprints[guess] = own
                } else if let index = fingerprints.firstIndex(where: { $0.seq == own.seq }) {
                    fingerprints[index] = own
                }
            }
            return fingerprints
        }
    }
}

extension EventFingerprint {
    /// A fingerprint from its parts: the hashes of its name (`nameHash`) and of its widget's path
    /// (0 for none), its arguments' stored bytes, and its result's hash (`resultHash`).
    package init(
        seq: Int64, parent: Int64, name: UInt64, widget: UInt64, arguments: UnsafeRawBufferPointer, result: UInt64,
        answer: AnswerOutcome, later: LaterStep? = nil, answers: Int64 = 0
    ) {
        var shape = FNV1a()
        shape.add(name)
        shape.add(widget)
        var identity = shape
        identity.add(arguments)
        self.init(
            seq: seq, parent: parent, identity: identity.value, shape: shape.value, result: result, answer: answer,
            later: later, answers: answers)
    }

    /// The fingerprint of the event on `row`, a row of `events` (whose columns are found by name
    /// once per statement, as a `StoredEvent`'s are), its name and widget hashed in `callbacks`
    /// and `widgets`.
    init(row: Statement, _ columns: StoredEvent.Columns, callbacks: IDTable<UInt64>, widgets: IDTable<UInt64>) {
        let result: UInt64 =
            switch row.type(columns.result) {
            case SQLITE_NULL: Self.resultHash(.none)
            case SQLITE_INTEGER: Self.resultHash(.flag(row.int64(columns.result) != 0))
            default: row.withBytes(columns.result) { Self.resultHash(text: $0) }
            }
        let later = row.laterStep(columns.later)
        self = row.withBytes(columns.arguments) { arguments in
            EventFingerprint(
                seq: row.int64(columns.seq), parent: row.isNull(columns.parentSeq) ? 0 : row.int64(columns.parentSeq),
                name: Self.nameHash(callbacks[row.int64(columns.callback)] ?? 0, later: later),
                widget: widgets[row.int64(columns.widget)] ?? 0,
                arguments: arguments, result: result,
                answer: AnswerOutcome(
                    row, implemented: columns.implemented, vetoed: columns.vetoed, overridden: columns.overridden),
                later: later, answers: later == nil || row.isNull(columns.answers) ? 0 : row.int64(columns.answers))
        }
    }

    /// The hash a fingerprint takes of a callback or input name: its kind, its protocol (none for
    /// an input, whose row names its widget kind there from version 4) and its name.
    package static func nameHash(kind: String, protocolName: String, name: String) -> UInt64 {
        var hash = FNV1a()
        hash.add(string: kind)
        hash.add(string: kind == EventKind.input.rawValue ? "" : protocolName)
        hash.add(string: name)
        return hash.value
    }

    /// The name hash of an event of a callback answered later: its step mixed in, so an ask, its
    /// answer and a mistake never align with one another; `name` itself for any other event.
    package static func nameHash(_ name: UInt64, later: LaterStep?) -> UInt64 {
        guard let later else { return name }
        var hash = FNV1a()
        hash.add(name)
        hash.add(UInt64(later.rawValue))
        return hash.value
    }

    /// The hash a fingerprint takes of a stored result.
    package static func resultHash(_ result: StoredResult) -> UInt64 {
        var hash = FNV1a()
        switch result {
        case .none: hash.add(0)
        case .flag(let flag): hash.add(flag ? "true" : "false")
        case .json(var text): return text.withUTF8 { resultHash(text: UnsafeRawBufferPointer($0)) }
        }
        return hash.value
    }

    /// The hash of a result stored as JSON text. A text view's state recorded by earlier builds
    /// held the whole text: compared in today's shape, so old sessions replay and diff as before.
    static func resultHash(text: UnsafeRawBufferPointer) -> UInt64 {
        var hash = FNV1a()
        if let upgraded = LegacyTextViewState.upgrading(text) { hash.add(string: upgraded) } else { hash.add(text) }
        return hash.value
    }
}

/// 64-bit FNV-1a: a fast, well-spread hash of bytes, for fingerprints (not for security).
package struct FNV1a {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        value ^= 0xff  // a separator, so ("ab", "c") and ("a", "bc") differ
        value = value &* 0x0000_0100_0000_01b3
    }

    package mutating func add(_ number: UInt64) {
        withUnsafeBytes(of: number) { add($0) }
    }

    package mutating func add(string text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    mutating func add(_ text: StaticString) {
        add(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Adds the bytes of the current row's `column`.
    mutating func add(_ row: Statement, column: Int) {
        row.withBytes(column) { add($0) }
    }

    /// This hash with the bytes of the current row's `column` added.
    func adding(_ row: Statement, column: Int) -> FNV1a {
        var copy = self
        copy.add(row, column: column)
        return copy
    }
}
