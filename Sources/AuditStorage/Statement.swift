import AuditModel
import CSQLite

/// The destructor SQLite should use for bound text and blobs: copy them at once.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement owned by one `Connection`, finalized when released.
///
/// Not thread-safe: confined, like its connection, to the thread that uses that connection.
package final class Statement {
    private let handle: OpaquePointer
    /// Kept open by this statement, which may outlive its `Connection` (see `OpenDatabase`).
    private let database: OpenDatabase
    let sql: String

    init(connection: Connection, sql: String) throws {
        // The tail pointer points into the C string, so everything happens inside withCString.
        let handle: OpaquePointer = try sql.withCString { text in
            var handle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(connection.handle, text, -1, 0, &handle, &tail)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
            guard let handle else { throw SQLiteError(code: SQLITE_ERROR, message: Self.noStatement, sql: sql) }
            // Whatever follows must be whitespace or comments: SQLite prepares those to nothing.
            if let tail, tail.pointee != 0 {
                var next: OpaquePointer?
                let nextCode = sqlite3_prepare_v3(connection.handle, tail, -1, 0, &next, nil)
                sqlite3_finalize(next)
                guard nextCode == SQLITE_OK, next == nil else {
                    sqlite3_finalize(handle)
                    throw SQLiteError(code: SQLITE_ERROR, message: Self.oneStatement, sql: sql)
                }
            }
            return handle
        }
        self.handle = handle
        self.database = connection.database
        self.sql = sql
    }

    static let noStatement = "no SQL statement given"
    static let oneStatement = "expected exactly one SQL statement"

    deinit { sqlite3_finalize(handle) }

    /// True when SQLite guarantees that stepping this statement writes nothing.
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
    var columnCount: Int { Int(sqlite3_column_count(handle)) }
    func columnName(_ index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }

    // MARK: Binding (1-based, as in SQLite)

    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    /// Binds the whole string, NUL characters included (a length of -1 would stop at the first).
    func bind(_ value: String, at index: Int32) {
        var value = value
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                guard let start = text.baseAddress else {
                    _ = sqlite3_bind_text(handle, index, "", 0, transient)
                    return
                }
                _ = sqlite3_bind_text(handle, index, start, Int32(text.count), transient)
            }
        }
    }
    func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }
    func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { bindNull(at: index) }
    }
    func bind(_ value: Int64?, at index: Int32) {
        if let value { bind(value, at: index) } else { bindNull(at: index) }
    }

    /// Binds UTF-8 text given as bytes: copied, or with `copied: false` read from where they
    /// are, which they must stay until the statement is reset.
    func bind(utf8 bytes: UnsafeRawBufferPointer, at index: Int32, copied: Bool = true) {
        guard let start = bytes.baseAddress else {
            _ = sqlite3_bind_text(handle, index, "", 0, transient)
            return
        }
        _ = sqlite3_bind_text(
            handle, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), copied ? transient : nil)
    }

    func bind(_ value: SQLValue, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let value): bind(value, at: index)
        case .real(let value): bind(value, at: index)
        case .text(let value): bind(value, at: index)
        case .blob(let bytes):
            bytes.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), transient)
            }
        }
    }

    /// Binds the arguments in order, starting at index 1.
    package func bind(_ values: [SQLValue]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Stepping

    /// Advances one row. Returns false when the statement is done.
    @discardableResult
    package func step() throws -> Bool {
        if StoreFaults.isArmed { try StoreFaults.check(self, on: database.path) }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw SQLiteError(
                code: sqlite3_extended_errcode(database.handle), connection: database.handle, sql: sql)
        }
    }

    /// Resets the statement, ready for the next use, and clears its bindings unless told not to:
    /// a statement whose every parameter is bound again before each use, with values SQLite has
    /// copied, need not pay for clearing them (the event insert, run once a row in the turn a
    /// replay job takes at the shared writer, binds every column each time).
    package func reset(clearingBindings: Bool = true) {
        sqlite3_reset(handle)
        if clearingBindings { sqlite3_clear_bindings(handle) }
    }

    /// Runs a statement that returns no rows.
    package func execute(_ values: [SQLValue] = []) throws {
        bind(values)
        try run()
    }

    /// Runs a statement that returns no rows with the values bound to it, then resets it.
    func run() throws {
        defer { reset() }
        while try step() {}
    }

    // MARK: Reading the current row (0-based columns, or by name)

    /// Each result column's index by its name (the first, where two share one), made on first use.
    private lazy var columnIndexes: [String: Int] = Dictionary(
        (0..<columnCount).map { (columnName($0), $0) }, uniquingKeysWith: { first, _ in first })

    /// The index of the result column named `name`: a programming error when there is none.
    package func column(_ name: String) -> Int {
        guard let index = columnIndexes[name] else { preconditionFailure("no column '\(name)' in: \(sql)") }
        return index
    }

    func int64(_ name: String) -> Int64 { int64(column(name)) }
    func int(_ name: String) -> Int { int(column(name)) }
    func isNull(_ name: String) -> Bool { isNull(column(name)) }
    func string(_ name: String) -> String? { string(column(name)) }

    package func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    package func int(_ column: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(column))) }
    func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }
    package func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }
    func type(_ column: Int) -> Int32 { sqlite3_column_type(handle, Int32(column)) }

    /// The column's text bytes, valid only inside `body` (no Swift string is made).
    package func withBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let index = Int32(column)
        let text = sqlite3_column_text(handle, index)
        return body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))))
    }
    package func string(_ column: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(column)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The current row's column as a dynamically typed value.
    func value(_ column: Int) -> SQLValue {
        let index = Int32(column)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(string(column) ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes = sqlite3_column_blob(handle, index), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// Collects every remaining row with `read`, then resets the statement.
    package func rows<T>(_ values: [SQLValue] = [], _ read: (Statement) throws -> T) throws -> [T] {
        var rows: [T] = []
        try forEachRow(values) { rows.append(try read($0)) }
        return rows
    }

    /// Calls `body` on each row as it is stepped to, then resets the statement.
    package func forEachRow(_ values: [SQLValue] = [], _ body: (Statement) throws -> Void) throws {
        defer { reset() }
        bind(values)
        while try step() { try body(self) }
    }
}

/// A dynamically typed SQLite value, as bound to or read from a statement.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
