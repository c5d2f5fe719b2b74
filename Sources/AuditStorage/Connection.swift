import AuditModel
import CSQLite

/// An open SQLite handle, closed when the connection and every statement prepared on it are gone.
///
/// Statements hold it, not their `Connection`: ARC may release an object after its last use,
/// before its scope ends, so a statement can outlive the connection that prepared it, and SQLite
/// refuses to step a statement whose connection was closed (`sqlite3_close_v2` leaves a zombie).
final class OpenDatabase {
    let handle: OpaquePointer
    let path: String

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit { sqlite3_close_v2(handle) }
}

/// One SQLite connection, owned by one thread at a time and closed when released.
///
/// Every connection runs with `synchronous=NORMAL` and a busy timeout; writable connections
/// switch the file to WAL and check that it took. Opening probes the file at once, so a file that
/// is not a database fails here rather than at the first query.
package final class Connection {
    package enum Mode: Equatable {
        /// Read and write; create the file when `create` is true.
        case readWrite(create: Bool)
        /// Read only; never creates, never writes, never changes the journal mode.
        case readOnly
        /// Read only, the file taken as unchanging (SQLite's `immutable`): no lock and no `-shm`,
        /// for a database on read-only media.
        case immutable
    }

    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// The SQLite handle, shared with the statements prepared on it (see `OpenDatabase`).
    let database: OpenDatabase
    package var handle: OpaquePointer { database.handle }
    var path: String { database.path }
    private var cache: [String: Statement] = [:]
    /// The line this connection's write transactions wait in (see `WriterQueue`), when it writes
    /// a database other processes may write too.
    var writers: WriterQueue?
    /// How long this connection has waited to begin write transactions, in nanoseconds: for its
    /// turn in `writers`, then for SQLite's write lock.
    private(set) var waitedNanoseconds: Int64 = 0
    /// How many transactions `transaction` has begun on this connection.
    private(set) var transactionsBegun = 0
    /// Whether a transaction is open on this connection.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    package init(path: String, mode: Mode) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite(let create): flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .immutable: flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(mode == .immutable ? Self.immutableURI(path) : path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            sqlite3_close_v2(handle)  // SQLite allocates a handle even when opening fails
            throw error
        }
        self.database = OpenDatabase(handle: handle, path: path)
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        // Probe now: "file is not a database" and unreadable files fail here, not later.
        _ = try scalarInt("SELECT count(*) FROM sqlite_schema")
        try execute("PRAGMA synchronous = NORMAL")
    }

    /// `path` as a `file:` URI with `immutable=1`; `%`, `?` and `#` escaped, the rest as it is.
    private static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:\(escaped)?immutable=1"
    }

    /// Switches the file to WAL and checks that SQLite agreed (it refuses on some file systems).
    func enableWAL() throws {
        let mode = try scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(
                code: SQLITE_ERROR, message: "could not switch \(path) to WAL (journal mode is \(mode ?? "unknown"))")
        }
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text ?? "SQL error", sql: sql)
        }
    }

    /// A new prepared statement that the caller owns.
    package func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// A prepared statement kept for the connection's life and reused by SQL text: for the SQL a
    /// store runs for every session (a replay job runs it thousands of times). Not re-entrant: its
    /// rows are read, and it is reset, before the same SQL runs again.
    func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, in this connection's turn among the writers;
    /// rolls back and rethrows when it throws, or when the database file was deleted or replaced
    /// meanwhile (see `checkStillInPlace()`). Inside a batch (`beginBatch()`), `body` runs in a
    /// savepoint of the batch's transaction instead, rolled back alone when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        if inBatch { return try savepoint(body) }
        return try inTurn { try transactionBody(body) }
    }

    /// `transaction`, written to the database file through a rollback journal instead of the WAL
    /// when this is the only connection to the database: each page is then written once, not to
    /// the WAL and again into the file at the checkpoint, which halves the pages an import
    /// writes. Once it writes into the file, until it commits, readers wait for it, so
    /// it is for databases that nobody else uses yet; when another connection has the database
    /// open, SQLite does not leave the WAL, and neither does this. The WAL is switched back on
    /// after, or by the next connection that opens the database to write if this process ends
    /// first.
    func transactionBypassingWAL<T>(_ body: () throws -> T) throws -> T {
        // `main.`: a database attached to this connection (the source of a merge) keeps its mode.
        guard !inBatch, (try? scalarText("PRAGMA main.journal_mode = DELETE"))?.lowercased() == "delete" else {
            return try transaction(body)
        }
        defer { _ = try? scalarText("PRAGMA main.journal_mode = WAL") }
        return try transaction(body)
    }

    /// Whether a batch is open (`beginBatch()`).
    private(set) var inBatch = false

    /// Whether this connection keeps its temporary storage in memory (`beginBatch()`).
    private var journalsInMemory = false

    /// Begins a batch: one transaction, in this connection's turn among the writers, that the
    /// `transaction` calls until `commitBatch()` become savepoints of. The writer the jobs of a
    /// replay share commits many sessions at once this way.
    ///
    /// SQLite keeps what a savepoint changes of pages its transaction already changed in a journal
    /// of its own, a temporary file once past 64 KiB: the first batch sets the connection's
    /// temporary storage to memory, so that savepoints write no file.
    package func beginBatch() throws {
        precondition(!inBatch, "a batch is already open")
        if !journalsInMemory {
            try execute("PRAGMA temp_store = MEMORY")
            journalsInMemory = true
        }
        waitForTurn()
        do {
            try begin()
        } catch {
            writers?.endTurn()
            throw error
        }
        inBatch = true
    }

    /// Commits the batch, or rolls it back and rethrows when that fails (the database file deleted
    /// or replaced meanwhile, the disk full), and ends this connection's turn either way.
    package func commitBatch() throws {
        precondition(inBatch, "no batch is open")
        inBatch = false
        defer { writers?.endTurn() }
        do {
            try checkStillInPlace()
            try cached("COMMIT").execute()
        } catch {
            if inTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        try cached("SAVEPOINT batched").execute()
        do {
            let result = try body()
            try cached("RELEASE batched").execute()
            return result
        } catch {
            sqlite3_exec(handle, "ROLLBACK TO batched; RELEASE batched", nil, nil, nil)
            throw error
        }
    }

    /// Runs `body` in this connection's turn among the writers of the database (at once when it
    /// has no `writers` queue), and counts the time it waited for it.
    func inTurn<T>(_ body: () throws -> T) rethrows -> T {
        waitForTurn()
        defer { writers?.endTurn() }
        return try body()
    }

    /// Waits for this connection's turn among the writers (at once when it has no `writers`
    /// queue), and counts the time it waited; the caller ends it.
    private func waitForTurn() {
        guard let writers else { return }
        let start = monotonicNanoseconds()
        writers.waitForTurn()
        waitedNanoseconds += monotonicNanoseconds() - start
    }

    /// `BEGIN IMMEDIATE`, counting the time SQLite's busy handler waited for the write lock.
    private func begin() throws {
        let start = monotonicNanoseconds()
        defer { waitedNanoseconds += monotonicNanoseconds() - start }
        try cached("BEGIN IMMEDIATE").execute()
        transactionsBegun += 1
    }

    private func transactionBody<T>(_ body: () throws -> T) throws -> T {
        try begin()
        do {
            let result = try body()
            try checkStillInPlace()
            try cached("COMMIT").execute()
            return result
        } catch {
            if inTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// `SQLITE_READONLY_DBMOVED`: the file at the path is no longer the one this connection has open.
    static let databaseMoved: Int32 = SQLITE_READONLY | (4 << 8)

    /// Fails when the file at `path` is no longer the one this connection has open: it was deleted,
    /// or replaced by another. In WAL mode SQLite goes on writing into the unlinked file without an
    /// error, and everything written is lost when the connection closes; checked before each commit
    /// (a `stat`), the loss is reported instead.
    func checkStillInPlace() throws {
        var moved: Int32 = 0
        let code = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        guard code != SQLITE_OK || moved != 0 else { return }
        throw SQLiteError(
            code: Self.databaseMoved, message: "the database file \(path) was deleted or replaced while it was open")
    }

    package func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        try cached(sql).rows(values) { $0.isNull(0) ? nil : $0.int64(0) }.first ?? nil
    }

    func scalarText(_ sql: String, _ values: [SQLValue] = []) throws -> String? {
        try cached(sql).rows(values) { $0.string(0) }.first ?? nil
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// The rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int64 { sqlite3_changes64(handle) }

    package func tableExists(_ name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(name)]) == 1
    }
}
