import AuditModel

/// Why the audit store refused a database or an operation.
///
/// Every case is a user-facing condition with a one-line description; SQLite's own failures are
/// wrapped in `.sqlite` with their extended code.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case noDatabase(path: String)
    /// SQLite could not open or read the file (not a database, a directory, no permission…).
    case cannotOpen(path: String, SQLiteError)
    case notAnAuditDatabase(path: String, reason: String)
    case unknownMigration(path: String, version: Int, name: String)
    case checksumMismatch(path: String, version: Int, name: String)
    case unknownSession(Int64)
    /// `auditctl query` refused the SQL before or while running it; nothing was written.
    case queryRefused(String)
    case sqlite(SQLiteError)

    public var description: String {
        switch self {
        case .noDatabase(let path):
            return "no database at \(path)"
        case .cannotOpen(let path, let error):
            return "cannot open \(path): \(error.message)"
        case .notAnAuditDatabase(let path, let reason):
            return "\(path) is not an auditctl database: \(reason)"
        case .unknownMigration(let path, let version, let name):
            return "\(path) was written by a newer auditctl (migration \(version) '\(name)' is unknown to this build); "
                + "nothing was changed"
        case .checksumMismatch(let path, let version, let name):
            return "\(path) holds migration \(version) '\(name)' with a different checksum than this build's; "
                + "nothing was changed"
        case .unknownSession(let id):
            return "no session \(id) in the database"
        case .queryRefused(let reason):
            return "query refused: \(reason)"
        case .sqlite(let error):
            return error.description
        }
    }
}

/// Runs `body`, turning SQLite failures into `StoreError.sqlite`.
package func storeOperation<T>(_ body: () throws -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw error
    } catch let error as SQLiteError {
        throw .sqlite(error)
    } catch {
        throw .sqlite(SQLiteError(code: 1, message: "\(error)"))
    }
}
