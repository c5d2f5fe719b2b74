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
        /// Reads only, through a handle that may write: closing it can remove the `-wal` and
        /// `-shm` files SQLite creates, which a read-only handle cannot. Never creates the file.
        /// When the file or its directory cannot be written, reads through a read-only handle.
        case read
        /// Reads through a read-only handle, for SQL the store does not trust (`auditctl query`).
        case readOnly
        /// Creates the file if needed, migrates it, records.
        case write
    }

    let connection: Connection
    public let path: String
    /// The recorder's event INSERT (see `AuditStore+Writing`).
    var eventInsertStatement: Statement?
    /// Whether the schema has shared events (migration 0003): a database opened to read is not
    /// migrated, so one written by an older build has none, and no session that shares them.
    private(set) lazy var hasSharedEvents: Bool =
        ((try? connection.scalarInt(
            "SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'events_from'")) ?? 0) > 0

    /// Whether callback names keep their answer's kind (migration 0005): a database written by an
    /// older build and opened to read has no `callbacks.answer`.
    private(set) lazy var hasAnswerKinds: Bool =
        ((try? connection.scalarInt(
            "SELECT count(*) FROM pragma_table_info('callbacks') WHERE name = 'answer'")) ?? 0) > 0

    public init(path: String, access: Access) throws(StoreError) {
        self.path = path
        var opening = try DatabaseFile.check(path, for: access)
        if opening == .create {
            try DatabaseFile.create(at: path)
            opening = .open
        }
        do {
            connection = try Connection(
                path: path, mode: opening == .openReadOnly ? .readOnly : .readWrite(create: false))
        } catch let error as SQLiteError {
            throw .cannotOpen(path: path, error)
        } catch {
            throw .cannotOpen(path: path, SQLiteError(code: 1, message: "\(error)"))
        }
        try storeOperation {
            switch access {
            case .read, .readOnly:
                _ = try Migrator.pending(on: connection)
                guard try connection.tableExists("sessions") else { throw StoreError.noDatabase(path: path) }
            case .write:
                connection.writers = WriterQueue(databasePath: path)  // writers take turns: see WriterQueue
                try Migrator.migrate(connection)
                try markAbandonedSessions()
            }
        }
    }

    /// Marks `recording` sessions whose process is gone as `interrupted`.
    private func markAbandonedSessions() throws {
        let recording = try connection.prepare(
            "SELECT id, owner_pid, owner_token FROM sessions WHERE status = 'recording'"
        ).rows { (id: $0.int64(0), pid: $0.int64(1), token: $0.int64(2)) }
        let abandoned = recording.filter { !ProcessIdentity.isRunning(pid: $0.pid, startTicks: $0.token) }
        guard !abandoned.isEmpty else { return }
        try connection.transaction {
            for session in abandoned {
                try connection.cached(
                    """
                    UPDATE sessions SET status = 'interrupted',
                        ended_at = coalesce(ended_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    WHERE id = ? AND status = 'recording'
                    """
                ).execute([.integer(session.id)])
            }
        }
    }
}

/// What a new session is: the scenario it runs and the delegate it runs with.
public struct NewSession: Sendable {
    public var name: String?
    public var scenario: String
    /// The scenario file's text, kept so the session can be replayed without the file. Empty for
    /// a session recorded in code: the recorder stores the tree it attaches to as the scenario.
    public var scenarioSource: String
    public var delegate: String
    public var replayOf: Int64?
    public var replayMode: String?

    public init(
        name: String? = nil, scenario: String, scenarioSource: String, delegate: String, replayOf: Int64? = nil,
        replayMode: String? = nil
    ) {
        self.name = name
        self.scenario = scenario
        self.scenarioSource = scenarioSource
        self.delegate = delegate
        self.replayOf = replayOf
        self.replayMode = replayMode
    }

    /// A session recorded in code: named `name`, its scenario the tree the recorder attaches to
    /// (each widget as it was when attached, every recorded input a step), run with `delegate`.
    public init(recordedInCode name: String, delegate: String) {
        self.init(name: name, scenario: name, scenarioSource: "", delegate: delegate)
    }
}

extension AuditStore {
    /// Inserts a session in status `recording`, owned by this process.
    func createSession(_ session: NewSession) throws -> Int64 {
        try connection.transaction {
            try connection.cached(
                """
                INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at, replay_of, replay_mode,
                                      owner_pid, owner_token)
                VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?)
                """
            ).execute([
                session.name.map(SQLValue.text) ?? .null, .text(session.scenario), .text(session.scenarioSource),
                .text(session.delegate), session.replayOf.map(SQLValue.integer) ?? .null,
                session.replayMode.map(SQLValue.text) ?? .null, .integer(ProcessIdentity.current.pid),
                .integer(ProcessIdentity.current.startTicks),
            ])
            return connection.lastInsertRowID
        }
    }
}
