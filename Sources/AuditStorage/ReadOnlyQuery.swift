import AuditModel
import CSQLite

/// The rows of a read-only query.
public struct QueryResult: Sendable, Equatable {
    public var columns: [String]
    public var rows: [[SQLValue]]
}

/// Runs a user's SQL against the audit database so that it cannot write, attach, change a pragma,
/// load code or create a file, and cannot run forever.
///
/// Layers, each enough on its own for some attack and together for all known ones: a read-only
/// open (no `-wal` recovery, no create); `SQLITE_DBCONFIG_DEFENSIVE`; trusted schema off;
/// `PRAGMA query_only`; no attached databases (`SQLITE_LIMIT_ATTACHED` 0, which also stops
/// `VACUUM INTO`); an allow-list authorizer (SELECT, reads, recursive CTEs, functions other than
/// `load_extension` and `fts3_tokenizer`, and only the pragmas that only read); exactly one
/// statement, which `sqlite3_stmt_readonly` must call read-only; and a deadline through the
/// progress handler.
///
/// Hostile SQL is bounded in size as well as in time: the statement's length, the depth of its
/// expressions, the length of a LIKE or GLOB pattern and of any one value (`randomblob(1e9)`) are
/// capped by `sqlite3_limit`, and a result that would hold more than `maximumResultBytes` (rows are
/// kept in memory) is refused. Temporary tables and sorts stay in memory (`temp_store`), so a query
/// writes no temporary file; with `heapLimit`, SQLite's memory (the row being built, sorts,
/// `DISTINCT`) is capped too, and a query that needs more is refused.
///
/// The deadline is checked between SQLite's steps, so one function call over large values
/// (`instr` over megabytes is quadratic) can run past it; `auditctl query` ends the process at
/// `deadline + deadlineGrace` to hold it for every statement.
public enum ReadOnlyQuery {
    /// The longest statement accepted, in bytes of UTF-8.
    public static let maximumStatementBytes = 100_000
    /// The deepest expression tree accepted (SQLite's default is 1,000).
    public static let maximumExpressionDepth = 100
    /// The longest LIKE or GLOB pattern accepted, in bytes (SQLite's default is 50,000).
    public static let maximumPatternBytes = 1_000
    /// The longest string or blob a query may make or read (a scenario's text is at most 8 MiB).
    public static let maximumValueBytes = 32 << 20
    /// The largest result kept in memory: the bytes of its values, plus 24 per value and 64 per row
    /// for their bookkeeping.
    public static let maximumResultBytes = 128 << 20
    /// The heap `auditctl query` gives SQLite: with the result's limit, the process stays under
    /// 512 MB whatever the statement (ReliabilityAndSecurity.md has the measurements).
    public static let defaultHeapLimit = 256 << 20
    /// The longest deadline `auditctl query` takes.
    public static let maximumDeadline: Duration = .seconds(300)
    /// How long past its deadline a statement may run inside one function call before `auditctl
    /// query` ends the process.
    public static let deadlineGrace: Duration = .seconds(1)

    /// Functions refused though they only read: `fts3_tokenizer` returns a code address (and sets
    /// one with two arguments), `load_extension` loads code.
    static let refusedFunctions: Set<String> = ["load_extension", "fts3_tokenizer"]

    /// Pragmas that read and never write, whatever their argument.
    static let readOnlyPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "collation_list", "function_list", "module_list", "pragma_list", "compile_options", "database_list",
    ]

    public static let defaultDeadline: Duration = .seconds(10)

    /// Runs `sql`, stopping it at `deadline`. `heapLimit` caps SQLite's memory while it runs with
    /// `sqlite3_hard_heap_limit64`, which holds for the whole process: give it only where nothing
    /// else uses SQLite meanwhile (the command line does).
    ///
    /// - Complexity: what SQLite's plan for `sql` costs, stopped at `deadline`; the rows returned
    ///   are held in memory, at most `maximumResultBytes` of them.
    public static func run(
        _ sql: String, databasePath: String, deadline: Duration = defaultDeadline, heapLimit: Int? = nil
    ) throws(StoreError) -> QueryResult {
        try run(sql, databasePath: databasePath, deadline: deadline, heapLimit: heapLimit, clock: monotonicNanoseconds)
    }

    /// The same, reading the time in nanoseconds from `clock`: once at the start, then each time
    /// SQLite checks the deadline. A test hook, so a test moves the time by hand.
    package static func run(
        _ sql: String, databasePath: String, deadline: Duration = defaultDeadline, heapLimit: Int? = nil,
        clock: @escaping () -> Int64
    ) throws(StoreError) -> QueryResult {
        let store = try AuditStore(path: databasePath, access: .readUntrustedSQL)
        let connection = store.connection
        let guardState = GuardState(deadline: clock() + deadline.nanoseconds, clock: clock)
        let previousHeapLimit = heapLimit.map { sqlite3_hard_heap_limit64(Int64($0)) }
        defer { if let previousHeapLimit { sqlite3_hard_heap_limit64(previousHeapLimit) } }
        return try storeOperation {
            try connection.execute("PRAGMA query_only = 1")
            try connection.execute("PRAGMA temp_store = MEMORY")
            _ = csqlite_db_config_int(connection.handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
            _ = csqlite_db_config_int(connection.handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
            _ = csqlite_db_config_int(connection.handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0)
            sqlite3_limit(connection.handle, SQLITE_LIMIT_ATTACHED, 0)
            sqlite3_limit(connection.handle, SQLITE_LIMIT_SQL_LENGTH, Int32(maximumStatementBytes))
            sqlite3_limit(connection.handle, SQLITE_LIMIT_EXPR_DEPTH, Int32(maximumExpressionDepth))
            sqlite3_limit(connection.handle, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, Int32(maximumPatternBytes))
            sqlite3_limit(connection.handle, SQLITE_LIMIT_LENGTH, Int32(maximumValueBytes))
            let context = Unmanaged.passUnretained(guardState).toOpaque()
            sqlite3_set_authorizer(connection.handle, authorize, context)
            sqlite3_progress_handler(connection.handle, 1_000, checkDeadline, context)
            defer {
                sqlite3_progress_handler(connection.handle, 0, nil, nil)
                sqlite3_set_authorizer(connection.handle, nil, nil)
            }
            guard sql.utf8.count <= maximumStatementBytes else {
                throw StoreError.queryRefused(
                    "the statement is \(sql.utf8.count) bytes long; the limit is \(maximumStatementBytes)")
            }
            let statement: Statement
            do {
                statement = try connection.prepare(sql)
            } catch let error as SQLiteError {
                if error.message == Statement.oneStatement || error.message == Statement.noStatement {
                    throw StoreError.queryRefused("give exactly one SQL statement")
                }
                if let refusal = guardState.refusal { throw StoreError.queryRefused(refusal) }
                throw error.quotingStatement()  // the person's own SQL, quoted in the error line
            }
            guard statement.isReadOnly else { throw StoreError.queryRefused("only read-only statements are allowed") }
            let columns = (0..<statement.columnCount).map(statement.columnName)
            var size = 0
            do {
                let rows = try statement.rows { row in
                    let values = (0..<columns.count).map(row.value)
                    size += 64 + values.reduce(0) { $0 + 24 + $1.byteCount }
                    guard size <= maximumResultBytes else {
                        throw StoreError.queryRefused(
                            "the result is larger than \(maximumResultBytes >> 20) MiB; narrow it or add a LIMIT")
                    }
                    return values
                }
                return QueryResult(columns: columns, rows: rows)
            } catch let error as SQLiteError where error.primaryCode == SQLITE_INTERRUPT {
                throw StoreError.queryRefused("stopped at the \(deadline) deadline")
            } catch let error as SQLiteError where error.primaryCode == SQLITE_NOMEM && heapLimit != nil {
                throw StoreError.queryRefused(
                    "it needs more than the \((heapLimit ?? 0) >> 20) MiB of memory a query may use; narrow it")
            } catch let error as SQLiteError {
                throw error.quotingStatement()
            }
        }
    }
}

/// What the C callbacks share with Swift: the deadline and the clock it is read against, and why
/// the authorizer said no.
private final class GuardState {
    let deadline: Int64
    let clock: () -> Int64
    var refusal: String?

    init(deadline: Int64, clock: @escaping () -> Int64) {
        self.deadline = deadline
        self.clock = clock
    }
}

private let authorize:
    @convention(c) (
        UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?
    ) -> Int32 = { context, action, first, second, _, _ in
        let name = first.map { String(cString: $0) }?.lowercased() ?? ""
        let reason: String
        switch action {
        case SQLITE_SELECT, SQLITE_RECURSIVE:
            return SQLITE_OK
        case SQLITE_READ:
            // A table-valued pragma function is read as the table `pragma_NAME`.
            guard name.hasPrefix("pragma_"), !ReadOnlyQuery.readOnlyPragmas.contains(String(name.dropFirst(7))) else {
                return SQLITE_OK
            }
            reason = "the pragma function \(name) is not allowed (only pragmas that read)"
        case SQLITE_UPDATE where name == "sqlite_master":
            // SQLite asks this while it sets up a table-valued pragma function (pragma_table_info)
            // and never writes then. A real UPDATE of the schema is still stopped by the read-only
            // open, defensive mode and the read-only statement check.
            return SQLITE_OK
        case SQLITE_FUNCTION:
            // For functions the name is the third argument.
            let function = second.map { String(cString: $0) }?.lowercased() ?? ""
            if !ReadOnlyQuery.refusedFunctions.contains(function) { return SQLITE_OK }
            reason = "the function \(function) is not allowed"
        case SQLITE_PRAGMA:
            if ReadOnlyQuery.readOnlyPragmas.contains(name) { return SQLITE_OK }
            reason = "PRAGMA \(name) is not allowed (only pragmas that read)"
        case SQLITE_ATTACH, SQLITE_DETACH:
            reason = "ATTACH and DETACH are not allowed"
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            reason = "transactions are not allowed"
        default:
            reason = "only SELECT statements that read are allowed"
        }
        if let context {
            let state = Unmanaged<GuardState>.fromOpaque(context).takeUnretainedValue()
            if state.refusal == nil { state.refusal = reason }
        }
        return SQLITE_DENY
    }

private let checkDeadline: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
    guard let context else { return 0 }
    let state = Unmanaged<GuardState>.fromOpaque(context).takeUnretainedValue()
    return state.clock() > state.deadline ? 1 : 0
}

extension SQLValue {
    /// The bytes of a text or blob; 8 for a number.
    fileprivate var byteCount: Int {
        switch self {
        case .null: 0
        case .integer, .real: 8
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
