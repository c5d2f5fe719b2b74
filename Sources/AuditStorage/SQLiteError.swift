import AuditModel
import CSQLite

/// A failure reported by SQLite, or by the store's own checks around it.
///
/// Carries SQLite's extended result code and message, and the SQL that failed (statement text
/// only: bound arguments are never included, so values cannot leak into logs). The description,
/// the line a person reads, is the message alone: the store's own statements mean nothing to
/// them (a full disk is "database or disk is full", wherever it struck). Only a statement the
/// person wrote (`auditctl query`) is quoted in it, see `quotingStatement()`.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code (`SQLITE_BUSY_SNAPSHOT`, …), or `SQLITE_ERROR` for the
    /// store's own checks.
    public let code: Int32
    public let message: String
    public let sql: String?
    /// Whether `description` quotes `sql`: only for SQL its reader wrote.
    private var quotesStatement = false

    package init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    package init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(
            code: code, message: message ?? String(cString: sqlite3_errstr(code)), sql: sql)
    }

    /// The primary result code (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`, …).
    public var primaryCode: Int32 { code & 0xff }

    /// The SQL shown in `description`, at most this many characters (a hostile statement may be
    /// 100 KB long, and the description is one line on standard error).
    static let shownSQLLength = 160

    /// The same error, its description quoting the statement: for SQL that the person reading
    /// the line wrote, so they can tell which part of it failed.
    func quotingStatement() -> SQLiteError {
        var quoting = self
        quoting.quotesStatement = true
        return quoting
    }

    public var description: String {
        guard quotesStatement, let sql else { return message }
        let line = sql.split(whereSeparator: \.isNewline).joined(separator: " ")
        let shown = line.count > Self.shownSQLLength ? line.prefix(Self.shownSQLLength) + "…" : line[...]
        return message + " (in: \(shown))"
    }
}
