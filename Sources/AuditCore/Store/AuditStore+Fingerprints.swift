import CSQLite

/// What the differ compares of one event, reduced to hashes: who was called with what (identity),
/// who was called at all (shape: identity without the arguments), and what came back.
///
/// Read straight from the compact `events` table, hashing the stored bytes without making
/// strings, so two sessions of a million events each fit in a few tens of megabytes.
struct EventFingerprint: Sendable {
    let seq: Int64
    let parent: Int64
    let identity: UInt64
    let shape: UInt64
    let result: UInt64
    /// -1 for NULL, else 0 or 1.
    let vetoed: Int8
    let implemented: Int8
}

extension AuditStore {
    /// Every event of session `id`, in `seq` order, as fingerprints. A session that shares events
    /// with the session it replayed (`events_from`) reads those rows, with its own rows in place
    /// of the ones whose answer it changed.
    func fingerprints(of id: Int64) throws(StoreError) -> [EventFingerprint] {
        _ = try session(id)
        return try storeOperation {
            var shared: (from: Int64, through: Int64)?
            if hasSharedEvents {
                shared =
                    try connection.cached("SELECT events_from, events_through FROM sessions WHERE id = ?").rows([
                        .integer(id)
                    ]) { row in row.isNull(0) ? nil : (from: row.int64(0), through: row.int64(1)) }.first ?? nil
            }
            var callbacks: [Int64: UInt64] = [:]
            // An input is identified by its name and widget (its row's protocol, the widget kind,
            // is '' in rows written before version 4).
            let callbackRows = try connection.cached(
                "SELECT id, kind, CASE kind WHEN 'input' THEN '' ELSE protocol END, name FROM callbacks"
            ).rows([]) {
                row in
                (row.int64(0), FNV1a().including(row, columns: 1...3).value)
            }
            for (callback, hash) in callbackRows { callbacks[callback] = hash }
            var widgets: [Int64: UInt64] = [:]
            let widgetRows = try connection.cached("SELECT id, path FROM widgets WHERE session = ?").rows([
                .integer(id)
            ]) {
                row in (row.int64(0), FNV1a().including(row, columns: 1...1).value)
            }
            for (widget, hash) in widgetRows { widgets[widget] = hash }
            let read = try connection.cached(
                """
                SELECT seq, callback, widget, args, result, vetoed, implemented, parent_seq
                FROM events WHERE session = ? AND seq <= ? ORDER BY seq
                """)
            func fingerprint(_ row: Statement) -> EventFingerprint {
                var shape = FNV1a()
                shape.add(callbacks[row.int64(1)] ?? 0)
                shape.add(widgets[row.int64(2)] ?? 0)
                var identity = shape
                identity.adding(row, columns: 3...3)
                var result = FNV1a()
                switch row.type(4) {
                case SQLITE_NULL: result.add(0)
                case SQLITE_INTEGER: result.add(row.int64(4) == 0 ? "false" : "true")
                default:
                    // A text view's state recorded by earlier builds held the whole text: compared in
                    // today's shape, so old sessions replay and diff as before.
                    if let upgraded = row.withBytes(4, TextView.upgradingLegacyState) {
                        result.add(string: upgraded)
                    } else {
                        result.adding(row, columns: 4...4)
                    }
                }
                return EventFingerprint(
                    seq: row.int64(0), parent: row.isNull(7) ? 0 : row.int64(7), identity: identity.value,
                    shape: shape.value, result: result.value, vetoed: row.isNull(5) ? -1 : Int8(row.int64(5)),
                    implemented: row.isNull(6) ? -1 : Int8(row.int64(6)))
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

/// 64-bit FNV-1a: a fast, well-spread hash of bytes, for fingerprints (not for security).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        value ^= 0xff  // a separator, so ("ab", "c") and ("a", "bc") differ
        value = value &* 0x0000_0100_0000_01b3
    }

    mutating func add(_ number: UInt64) {
        withUnsafeBytes(of: number) { add($0) }
    }

    mutating func add(string text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    mutating func add(_ text: StaticString) {
        add(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func adding(_ row: Statement, columns: ClosedRange<Int>) {
        for column in columns { row.withBytes(column) { add($0) } }
    }

    func including(_ row: Statement, columns: ClosedRange<Int>) -> FNV1a {
        var copy = self
        copy.adding(row, columns: columns)
        return copy
    }
}
