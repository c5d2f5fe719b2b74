import CSQLite
import Synchronization

/// A test hook: makes the writes to one database fail the way a full disk or a file system turned
/// read-only would, where a real one cannot be arranged (no root to mount a small file system).
///
/// A fault applies to the statements that write rows (`sqlite3_stmt_readonly` false, pragmas and
/// transaction control aside) on every connection to the database at that exact path, after a
/// number of writes have gone through, and fails each such step with the SQLite code given, as
/// SQLite would report it; reads go on working.
/// When no fault is armed, a statement pays one relaxed atomic load per step.
package enum StoreFaults {
    private struct Fault {
        var code: Int32
        /// Writes still let through before the fault starts.
        var remaining: Int
        /// How many writes failed.
        var failed = 0
    }

    private static let armed = Atomic<Int>(0)
    private static let faults = Mutex<[String: Fault]>([:])

    static var isArmed: Bool { armed.load(ordering: .relaxed) != 0 }

    /// From now on, writes to the database at `path` fail with `code` (`SQLITE_FULL`,
    /// `SQLITE_READONLY`, `SQLITE_IOERR_WRITE`, …) once `after` more writes have succeeded.
    package static func inject(_ code: Int32, at path: String, after: Int = 0) {
        faults.withLock { faults in
            if faults[path] == nil { armed.add(1, ordering: .relaxed) }
            faults[path] = Fault(code: code, remaining: after)
        }
    }

    /// Ends the fault at `path` (the disk has room again) and returns how many writes it failed.
    @discardableResult
    package static func clear(_ path: String) -> Int {
        faults.withLock { faults in
            guard let fault = faults.removeValue(forKey: path) else { return 0 }
            armed.subtract(1, ordering: .relaxed)
            return fault.failed
        }
    }

    /// How many writes the fault at `path` has failed so far.
    package static func failures(at path: String) -> Int {
        faults.withLock { $0[path]?.failed ?? 0 }
    }

    static func check(_ statement: Statement, on path: String) throws {
        guard !statement.isReadOnly else { return }
        let verb = statement.sql.prefix { $0.isLetter }.uppercased()
        guard !["PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"].contains(verb) else { return }
        let code: Int32? = faults.withLock { faults in
            guard var fault = faults[path] else { return nil }
            defer { faults[path] = fault }
            if fault.remaining > 0 {
                fault.remaining -= 1
                return nil
            }
            fault.failed += 1
            return fault.code
        }
        if let code {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), sql: statement.sql)
        }
    }
}
