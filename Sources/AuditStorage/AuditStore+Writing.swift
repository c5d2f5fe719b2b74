import AuditModel
import CSQLite

/// The writer thread's side of the store: interned names, widget and event rows, counters.
extension AuditStore {
    /// Settings for the connection that records: no automatic checkpoints (the writer runs them
    /// off the app's thread).
    package func prepareForRecording() throws {
        try connection.execute("PRAGMA wal_autocheckpoint = 0")
    }

    /// The id of a callback or input name, inserting it the first time it is seen; a callback's
    /// answer kind is set to the descriptor's (the kind last recorded wins).
    ///
    /// Ids are remembered on this connection (a replay job interns the same names for every
    /// session); a writer whose transaction rolled back calls `forgetCallbackNames()`, since
    /// the names it interned there are gone.
    package func internCallback(_ descriptor: CallbackDescriptor) throws -> Int64 {
        try forgetCallbackNamesIfChanged()
        if let known = internedDescriptors[ObjectIdentifier(descriptor)] { return known.id }
        let key = [
            descriptor.kind.rawValue, descriptor.protocolName, descriptor.name, descriptor.answer.rawValue,
            descriptor.answered.rawValue,
        ].joined(separator: "\u{0}")
        let id: Int64
        if let known = internedCallbacks[key] {
            id = known
        } else {
            keptCallbackNames = nil  // a new name, or a name's answer kind changed
            id = try insertCallback(descriptor)
            internedCallbacks[key] = id
        }
        if internedDescriptors.count >= Self.internedDescriptorLimit { internedDescriptors.removeAll() }
        internedDescriptors[ObjectIdentifier(descriptor)] = (descriptor, id)
        return id
    }

    private func insertCallback(_ descriptor: CallbackDescriptor) throws -> Int64 {
        let values: [SQLValue] = [
            .text(descriptor.kind.rawValue), .text(descriptor.protocolName),
            .text(descriptor.name),
        ]
        let labels = AuditValue.array(descriptor.argumentLabels.map(AuditValue.string)).json
        let answer: SQLValue = descriptor.kind == .input ? .null : .text(descriptor.answer.rawValue)
        let answered: SQLValue = descriptor.answered.isLater ? .text(descriptor.answered.rawValue) : .null
        try connection.cached(
            """
            INSERT INTO callbacks (kind, protocol, name, labels, answer, answered) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (kind, protocol, name) DO UPDATE SET answer = excluded.answer, answered = excluded.answered
            WHERE answer IS NOT excluded.answer OR answered IS NOT excluded.answered
            """
        ).execute(values + [.text(labels), answer, answered])
        guard
            let id = try connection.scalarInt(
                "SELECT id FROM callbacks WHERE kind = ? AND protocol = ? AND name = ?", values)
        else { throw SQLiteError(code: SQLITE_ERROR, message: "could not intern \(descriptor)") }
        return id
    }

    package func insertWidget(session: Int64, id: Int32, path: String, kind: String, parent: Int32?) throws {
        try connection.cached(
            "INSERT OR REPLACE INTO widgets (session, id, path, kind, parent) VALUES (?, ?, ?, ?, ?)"
        ).execute([
            .integer(session), .integer(Int64(id)), .text(path), .text(kind),
            parent.map { .integer(Int64($0)) } ?? .null,
        ])
    }

    /// An event row for `insertEvents`: its `answer` is stored as `StoredAnswer` describes, and
    /// a `parent` of 0 is none.
    package struct EventRow {
        var seq: Int64
        var time: Int64
        var widget: Int32
        var callback: Int64
        var answer: StoredAnswer
        var duration: Int64
        var parent: Int64
        var later: LaterStep?
        /// The ask's seq for an event after it; 0 for none.
        var answers: Int64

        package init(
            seq: Int64, time: Int64, widget: Int32, callback: Int64, answer: StoredAnswer, duration: Int64,
            parent: Int64, later: LaterStep? = nil, answers: Int64 = 0
        ) {
            self.seq = seq
            self.time = time
            self.widget = widget
            self.callback = callback
            self.answer = answer
            self.duration = duration
            self.parent = parent
            self.later = later
            self.answers = answers
        }
    }

    /// How many rows one INSERT takes (events, and an import's widgets).
    static let rowsPerInsert = 32

    /// How many values an event row of `eventInsert` takes.
    static let eventColumns = 14

    /// Inserts event rows of `session`, `rowsPerInsert` a statement, inside the caller's
    /// transaction. `arguments[i]` is row i's JSON array of argument values in label order.
    package func insertEvents(session: Int64, _ rows: [EventRow], arguments: [String]) throws {
        var start = 0
        while start < rows.count {
            let count = min(Self.rowsPerInsert, rows.count - start)
            let statement = try eventInsert(rows: count)
            defer { statement.reset(clearingBindings: false) }  // each row binds all its values
            for offset in 0..<count {
                let row = rows[start + offset]
                let at = Int32(offset * Self.eventColumns)
                statement.bind(session, at: at + 1)
                statement.bind(row.seq, at: at + 2)
                statement.bind(row.time, at: at + 3)
                statement.bind(Int64(row.widget), at: at + 4)
                statement.bind(row.callback, at: at + 5)
                statement.bind(arguments[start + offset], at: at + 6)
                switch row.answer.result {
                case .none: statement.bindNull(at: at + 7)
                case .flag(let flag): statement.bind(Int64(flag ? 1 : 0), at: at + 7)
                case .json(let text): statement.bind(text, at: at + 7)
                }
                let outcome = row.answer.outcome.columns
                statement.bind(outcome.vetoed, at: at + 8)
                statement.bind(outcome.implemented, at: at + 9)
                statement.bind(row.duration, at: at + 10)
                statement.bind(row.parent == 0 ? nil : row.parent, at: at + 11)
                statement.bind(outcome.overridden, at: at + 12)
                statement.bind(row.later?.name, at: at + 13)
                statement.bind(row.answers == 0 ? nil : row.answers, at: at + 14)
            }
            if StoreFaults.isArmed { StoreFaults.checkStall(lastSeq: rows[start + count - 1].seq) }
            while try statement.step() {}
            start += count
        }
    }

    /// The prepared INSERT of `rows` event rows, kept for the store's life: each row binds
    /// `eventColumns` values, in the order of the column list.
    func eventInsert(rows: Int) throws -> Statement {
        if let statement = eventInsertStatements[rows] { return statement }
        let statement = try connection.prepare(
            """
            INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns,
                                parent_seq, overridden, later, answers)
            VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
            """)
        eventInsertStatements[rows] = statement
        return statement
    }

    package struct SessionCounters {
        package var events = 0
        package var inputs = 0
        package var callbacks = 0
        package var vetoes = 0
        package var failures = 0

        package init() {}

        /// Counts one captured event.
        package mutating func count(_ event: CapturedEvent) {
            events += 1
            if event.descriptor.kind == .input { inputs += 1 } else { callbacks += 1 }
            if event.answer.vetoed == true { vetoes += 1 }
        }
    }

    /// Stores a session's counters, and with `status` its final status and end time too, in one
    /// update (the row holds the scenario's text: each update rewrites it), inside the caller's
    /// transaction; once a final status is committed, `releaseRecordingLock(of:)`.
    package func updateCounters(session: Int64, _ counters: SessionCounters, status: SessionStatus? = nil) throws {
        let values: [SQLValue] = [
            .integer(Int64(counters.events)), .integer(Int64(counters.inputs)), .integer(Int64(counters.callbacks)),
            .integer(Int64(counters.vetoes)), .integer(Int64(counters.failures)),
        ]
        let set = "event_count = ?, input_count = ?, callback_count = ?, veto_count = ?, failure_count = ?"
        if let status {
            try connection.cached(
                "UPDATE sessions SET status = ?, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), \(set) WHERE id = ?"
            ).execute([.text(status.rawValue)] + values + [.integer(session)])
        } else {
            try connection.cached("UPDATE sessions SET \(set) WHERE id = ?").execute(values + [.integer(session)])
        }
    }

    /// Stores the scenario a recorder described from the tree it attached to.
    package func updateScenarioSource(of session: Int64, to source: String) throws {
        try connection.cached("UPDATE sessions SET scenario_source = ? WHERE id = ?").execute([
            .text(source), .integer(session),
        ])
    }

    /// Marks a session finished, with its final counters, in a transaction of its own, and
    /// releases its recording lock.
    package func finishSession(_ session: Int64, status: SessionStatus, counters: SessionCounters) throws {
        try connection.transaction { try updateCounters(session: session, counters, status: status) }
        releaseRecordingLock(of: session)
    }

    /// The session is finished: no longer recording.
    package func releaseRecordingLock(of session: Int64) { recordingLocks[session] = nil }

    /// Deletes a session that holds nothing: no event, no widget, no scenario (a recorder that
    /// never attached to a tree). A session with anything in it is left alone.
    package func deleteEmptySession(_ session: Int64) throws {
        try connection.transaction {
            let id = SQLValue.integer(session)
            guard try connection.scalarInt("SELECT count(*) FROM events WHERE session = ?", [id]) == 0,
                try connection.scalarInt("SELECT count(*) FROM widgets WHERE session = ?", [id]) == 0
            else { return }
            if hasSessionIdentity {
                try connection.cached("DELETE FROM session_labels WHERE session = ?").execute([id])
            }
            try connection.cached("DELETE FROM sessions WHERE id = ?").execute([id])
        }
        releaseRecordingLock(of: session)
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T { try connection.transaction(body) }

    package enum CheckpointMode {
        case passive
        case truncate
    }

    /// Copies WAL content into the database file; `truncate` also empties the WAL.
    ///
    /// A passive checkpoint never waits. A truncating one needs the write lock and no reader on the
    /// WAL: it runs in this connection's turn among the writers, and does not wait for readers
    /// (which would hold the write lock from the other writers meanwhile); a WAL a reader still
    /// uses is left for a later checkpoint.
    package func checkpoint(_ mode: CheckpointMode) throws {
        let handle = connection.handle
        let code =
            switch mode {
            case .passive: sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            case .truncate:
                connection.inTurn {
                    sqlite3_busy_timeout(handle, 0)
                    defer { sqlite3_busy_timeout(handle, Connection.busyTimeoutMilliseconds) }
                    return sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
                }
            }
        guard code == SQLITE_OK || code == SQLITE_BUSY else {
            throw SQLiteError(code: code, connection: handle, sql: "checkpoint")
        }
    }

    /// How long this store's connection has waited to write, in seconds: for its turn among the
    /// writers of the database, and for SQLite's write lock.
    package var secondsWaitedToWrite: Double { Double(connection.waitedNanoseconds) / 1e9 }
}
