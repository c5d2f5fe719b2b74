import AuditModel
import CSQLite
import Foundation

/// The audit database: sessions, their widgets and events, behind the schema of `Migrations/`.
///
/// Confined to the thread that opened it. Opening for writing creates the file (see
/// `DatabaseFile`: whole, and readable by its owner only), checks it against this build's
/// migrations, applies the missing ones and marks sessions whose recording process died as
/// `interrupted`; opening for reading changes nothing. A directory, an empty file or a file
/// without the needed permission is refused before SQLite opens it.
public final class AuditStore {
    public enum Access: Sendable {
        /// Reads only, the store's own SQL, through a handle that may write: closing it can remove
        /// the `-wal` and `-shm` files SQLite creates, which a read-only handle cannot. Never
        /// creates the file. When the file or its directory cannot be written, reads through a
        /// read-only handle.
        case read
        /// Reads only, SQL the store does not trust (`auditctl query`): always through a read-only
        /// handle, so not even SQLite's own files are written.
        case readUntrustedSQL
        /// Creates the file if needed, migrates it, records.
        case write
    }

    package let connection: Connection
    public let path: String
    /// What the store was opened for: one opened to write also reads.
    package let access: Access
    /// The recorder's event INSERT (see `AuditStore+Writing`).
    var eventInsertStatements: [Int: Statement] = [:]
    /// The locks of the sessions this store records, by session, held until each is finished or
    /// the store closes (see `RecordingLock`).
    var recordingLocks: [Int64: RecordingLock] = [:]
    /// Callback names interned through this connection, by kind, protocol, name and answer kind.
    var internedCallbacks: [String: Int64] = [:]
    /// The same, by descriptor (each always names the same), which the entry keeps alive so that
    /// its identifier is not given to another: looked up first, without making the key. Emptied
    /// when it holds `internedDescriptorLimit` (a widget may make its descriptors as it goes).
    var internedDescriptors: [ObjectIdentifier: (descriptor: CallbackDescriptor, id: Int64)] = [:]
    static let internedDescriptorLimit = 1_024
    /// The `callbacks` table as last read through this connection (see `callbackNames()`).
    var keptCallbackNames: CallbackNames?
    /// The `data_version` at which `internedCallbacks` and `keptCallbackNames` were last checked,
    /// and the transaction that was in (see `forgetCallbackNamesIfChanged()`).
    var callbacksVersion: Int64?
    var callbacksCheckedIn = -1
    /// Whether `checkBeforeRecording` passed on this connection: a store that records many
    /// sessions (a replay job) checks the file once, before its first one.
    private var checkedBeforeRecording = false
    /// Whether the schema has shared events (migration 0003): a database opened to read is not
    /// migrated, so one written by an older build has none, and no session that shares them.
    private(set) lazy var hasSharedEvents: Bool =
        ((try? connection.scalarInt(
            "SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'events_from'")) ?? 0) > 0

    /// Whether sessions have a UUID and labels (migration 0006): a database written by an older
    /// build and opened to read has neither.
    package private(set) lazy var hasSessionIdentity: Bool = (try? connection.tableExists("session_labels")) ?? false

    /// Whether callback names keep their answer's kind (migration 0005): a database written by an
    /// older build and opened to read has no `callbacks.answer`.
    private(set) lazy var hasAnswerKinds: Bool =
        ((try? connection.scalarInt(
            "SELECT count(*) FROM pragma_table_info('callbacks') WHERE name = 'answer'")) ?? 0) > 0

    /// Whether events keep an override's outcome apart from a veto's (migration 0008): in a
    /// database written by an older build and opened to read, `vetoed` holds both.
    package private(set) lazy var hasAnswerOutcomes: Bool =
        ((try? connection.scalarInt(
            "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'overridden'")) ?? 0) > 0

    /// Whether events record answers that come later (migration 0009): a database written by an
    /// older build and opened to read has no `later` and `answers` columns, and no such answer.
    package private(set) lazy var hasLaterAnswers: Bool =
        ((try? connection.scalarInt(
            "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'later'")) ?? 0) > 0

    public init(path: String, access: Access) throws(StoreError) {
        self.path = path
        self.access = access
        var opening = try DatabaseFile.check(path, for: access)
        if opening == .create {
            try DatabaseFile.create(at: path)
            opening = .open
        }
        do {
            let modes: [DatabaseFile.Opening: Connection.Mode] = [.openReadOnly: .readOnly, .openImmutable: .immutable]
            connection = try Connection(path: path, mode: modes[opening] ?? .readWrite(create: false))
        } catch let error as SQLiteError {
            throw .cannotOpen(path: path, error)
        } catch {
            throw .cannotOpen(path: path, SQLiteError(code: 1, message: "\(error)"))
        }
        try storeOperation {
            switch access {
            case .read, .readUntrustedSQL:
                _ = try Migrator.pending(on: connection)
                guard try connection.tableExists("sessions") else { throw StoreError.noDatabase(path: path) }
            case .write:
                connection.writers = WriterQueue(databasePath: path)  // writers take turns: see WriterQueue
                try Migrator.migrate(connection)
                try markAbandonedSessions()
            }
        }
    }

    /// Opens the database at `path` only when it exists: `StoreError.noDatabase` when there is
    /// none, also for `.write` (which would otherwise make a new one). For an operation that reads
    /// a stored session and writes beside it, through one store (an isolated replay).
    public convenience init(existingAt path: String, access: Access) throws(StoreError) {
        var info = stat()
        if stat(path, &info) != 0 && errno == ENOENT { throw .noDatabase(path: path) }
        try self.init(path: path, access: access)
    }

    /// Whether the recording of a session marked `recording` still runs: its process holds the
    /// session's lock (in any PID namespace), or, for a session recorded before locks, a process
    /// with its id and start time runs here.
    func isRecording(session: Int64, pid: Int64, startTicks: Int64) -> Bool {
        RecordingLock.isHeld(session: session, databasePath: path)
            || ProcessIdentity.isRunning(pid: pid, startTicks: startTicks)
    }

    /// Marks `recording` sessions whose process is gone as `interrupted`.
    private func markAbandonedSessions() throws {
        let recording = try connection.prepare(
            "SELECT id, owner_pid, owner_token FROM sessions WHERE status = ?"
        ).rows([.text(SessionStatus.recording.rawValue)]) {
            (id: $0.int64("id"), pid: $0.int64("owner_pid"), token: $0.int64("owner_token"))
        }
        let abandoned = recording.filter { !isRecording(session: $0.id, pid: $0.pid, startTicks: $0.token) }
        guard !abandoned.isEmpty else { return }
        try connection.transaction {
            for session in abandoned {
                try connection.cached(
                    """
                    UPDATE sessions SET status = ?,
                        ended_at = coalesce(ended_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    WHERE id = ? AND status = ?
                    """
                ).execute([
                    .text(SessionStatus.interrupted.rawValue), .integer(session.id),
                    .text(SessionStatus.recording.rawValue),
                ])
            }
        }
    }
}

extension AuditStore {
    /// A new session's UUID: random (version 4), lowercase. Its bytes come from the system's
    /// generator, as two 64-bit words, rather than from Foundation's `UUID()`, which does more
    /// work for the same bytes, in a replay job's turn at the writer that the other jobs wait for.
    static func newSessionUUID() -> String {
        var generator = SystemRandomNumberGenerator()
        var words = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &words) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
            bytes[8] = bytes[8] & 0x3F | 0x80  // the variant of RFC 9562
            return UUID(uuid: bytes.load(as: uuid_t.self)).uuidString.lowercased()
        }
    }
}

extension AuditStore {
    /// Turns SQLite's memory statistics off for this process, before SQLite's first use in it;
    /// returns false, changing nothing, after.
    ///
    /// While they are on, each of SQLite's allocations takes one mutex, shared by every connection
    /// of the process (Debian's SQLite is built without lookaside memory, so a statement
    /// allocates as it steps): threads that use SQLite at once, as the jobs of `replay --all`,
    /// queue for it. `auditctl` turns them off for every command but `query`, whose heap limit
    /// (`sqlite3_hard_heap_limit64`) SQLite enforces only while they are on.
    @discardableResult
    public static func turnOffSQLiteMemoryStatistics() -> Bool {
        csqlite_config_memstatus(0) == SQLITE_OK
    }
}

/// What a new session is: the scenario it runs and the delegate it runs with.
public struct NewSession: Sendable {
    public package(set) var name: String?
    public package(set) var scenario: String
    /// The scenario file's text, kept so the session can be replayed without the file. Empty for
    /// a session recorded in code: the recorder stores the tree it attaches to as the scenario.
    public package(set) var scenarioSource: String
    public package(set) var delegate: String
    public package(set) var replayOf: Int64?
    public package(set) var replayMode: ReplayMode?
    /// Labels stored with the session (device, build, branch…), shown by `sessions` and filtered
    /// on by `search`, `report` and `replay --all`.
    public package(set) var labels: [String: String]

    /// A session with its scenario's text given: what `ScenarioRunner.record` and the replayer
    /// make. (In code, record with `init(recordedInCode:delegate:labels:)`.)
    package init(
        name: String? = nil, scenario: String, source scenarioSource: String, delegate: String,
        replayOf: Int64? = nil, replayMode: ReplayMode? = nil, labels: [String: String] = [:]
    ) {
        self.labels = labels
        self.name = name
        self.scenario = scenario
        self.scenarioSource = scenarioSource
        self.delegate = delegate
        self.replayOf = replayOf
        self.replayMode = replayMode
    }

    /// A session recorded in code: named `name`, its scenario the tree the recorder attaches to
    /// (each widget as it was when attached, every recorded input a step), run with `delegate`.
    public init(recordedInCode name: String, delegate: String, labels: [String: String] = [:]) {
        self.init(name: name, scenario: name, source: "", delegate: delegate, labels: labels)
    }

    /// Removed from the public API: a session with a scenario's text is made by
    /// `ScenarioRunner.record`; in code, the recorder stores the tree it attaches to.
    @available(
        *, unavailable,
        message:
            "record in code with NewSession(recordedInCode: name, delegate: delegateName); a scenario file with ScenarioRunner.record"
    )
    public init(
        name: String? = nil, scenario: String, scenarioSource: String, delegate: String, replayOf: Int64? = nil,
        replayMode: ReplayMode? = nil, labels: [String: String] = [:]
    ) { fatalError() }
}

extension AuditStore {
    /// A database up to this size is checked whole before a session is created in it.
    static let wholeCheckLimit = 8 << 20

    /// Checks the pages a new recording will touch before anything is written, so a damaged file
    /// is refused with nothing stored rather than left with a session that fails at its first
    /// write. A small database (up to `wholeCheckLimit`) gets SQLite's `quick_check` whole; a
    /// larger one gets it on the small tables (sessions, callbacks), and its appended tables are
    /// read along their right edges — the last rows of `widgets`, `events` and `events_vetoes`,
    /// where new rows go — with every cell's size checked. A damaged page elsewhere in a large file
    /// is what `PRAGMA quick_check` in `sqlite3` finds.
    package func checkBeforeRecording() throws {
        guard !checkedBeforeRecording else { return }
        var info = stat()
        let size = stat(path, &info) == 0 ? Int(info.st_size) : 0
        var problems: [String] = []
        try connection.execute("PRAGMA cell_size_check = ON")
        defer { try? connection.execute("PRAGMA cell_size_check = OFF") }
        if size <= Self.wholeCheckLimit {
            problems = try connection.prepare("PRAGMA quick_check(10)").rows { $0.string(0) ?? "" }
        } else {
            for table in ["sessions", "callbacks", "schema_migrations"] {
                problems += try connection.prepare("PRAGMA quick_check(\(table))").rows { $0.string(0) ?? "" }
            }
            for edge in [
                "SELECT * FROM widgets ORDER BY session DESC, id DESC LIMIT 2000",
                "SELECT * FROM events ORDER BY session DESC, seq DESC LIMIT 2000",
                "SELECT session, widget FROM events INDEXED BY events_vetoes WHERE vetoed "
                    + "ORDER BY session DESC, widget DESC LIMIT 2000",
            ] {
                _ = try connection.prepare("SELECT count(*) FROM (\(edge))").rows { $0.int64(0) }
            }
        }
        // quick_check answers "ok", or lines of problems, the first naming the database.
        let first = problems.filter { $0 != "ok" }.joined(separator: " ").replacingOccurrences(
            of: "*** in database main ***", with: ""
        ).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard first.isEmpty else {
            let shown = first.count > 100 ? first.prefix(100) + "…" : first
            throw SQLiteError(
                code: SQLITE_CORRUPT, message: "database disk image is malformed (\(shown))",
                sql: "PRAGMA quick_check before recording")
        }
        checkedBeforeRecording = true
    }

    /// Stores `labels` with session `id`, in the caller's transaction.
    func storeLabels(_ labels: [String: String], of id: Int64) throws {
        for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
            try connection.cached("INSERT INTO session_labels (session, key, value) VALUES (?, ?, ?)").execute([
                .integer(id), .text(key), .text(value),
            ])
        }
    }

    /// Inserts a session in status `recording`, owned by this process, once the pages it will
    /// touch are checked (`checkBeforeRecording`).
    package func createSession(_ session: NewSession) throws -> Int64 {
        try checkBeforeRecording()
        return try connection.transaction { try insertSession(session) }
    }

    /// `createSession`'s insert, inside the caller's transaction, once `checkBeforeRecording()`
    /// has run. With `finished`, its counters, the session is inserted complete instead (its
    /// events written in the same transaction), and takes no recording lock.
    package func insertSession(_ session: NewSession, finished: SessionCounters? = nil) throws -> Int64 {
        var values: [SQLValue] = [
            session.name.map(SQLValue.text) ?? .null, .text(session.scenario), .text(session.scenarioSource),
            .text(session.delegate), session.replayOf.map(SQLValue.integer) ?? .null,
            session.replayMode.map { .text($0.rawValue) } ?? .null, .integer(ProcessIdentity.current.pid),
            .integer(ProcessIdentity.current.startTicks), .text(Self.newSessionUUID()),
        ]
        var columns = ""
        var placeholders = ""
        if let finished {
            columns = ", status, ended_at, event_count, input_count, callback_count, veto_count, failure_count"
            placeholders = ", ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?, ?"
            values.append(.text(SessionStatus.complete.rawValue))
            values += [finished.events, finished.inputs, finished.callbacks, finished.vetoes, finished.failures]
                .map { .integer(Int64($0)) }
        }
        try connection.cached(
            """
            INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at, replay_of, replay_mode,
                                  owner_pid, owner_token, uuid\(columns))
            VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?, ?\(placeholders))
            """
        ).execute(values)
        let id = connection.lastInsertRowID
        try storeLabels(session.labels, of: id)
        if finished == nil { recordingLocks[id] = RecordingLock(session: id, databasePath: path) }
        return id
    }
}
