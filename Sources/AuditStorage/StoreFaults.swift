import AuditModel
import CSQLite
import Dispatch
import Synchronization

/// A test hook: makes the writes to one database fail the way a full disk or a file system turned
/// read-only would, where a real one cannot be arranged (no root to mount a small file system).
///
/// A fault applies to the statements that write rows (`sqlite3_stmt_readonly` false, pragmas and
/// transaction control aside) on every connection to the database at that exact path, after a
/// number of writes have gone through, and fails each such step with the SQLite code given, as
/// SQLite would report it; reads go on working. A fault may apply only to the statements whose SQL
/// contains a given text (transaction control included: `BEGIN IMMEDIATE` failing with
/// `SQLITE_BUSY` is a database busy past its timeout), and may end by itself after failing a
/// number of times. Tests order themselves after a fault with `wait(forFailures:at:)`, never by
/// sleeping.
/// When no fault is armed, a statement pays one relaxed atomic load per step.
package enum StoreFaults {
    private struct Fault {
        var code: Int32
        /// Writes still let through before the fault starts.
        var remaining: Int
        /// How many failures end the fault (nil: it lasts until cleared).
        var times: Int?
        /// The text a statement's SQL contains for the fault to apply (nil: every write).
        var matching: String?
        /// How many writes failed.
        var failed = 0
    }

    private static let armed = Atomic<Int>(0)
    private static let faults = Mutex<[String: Fault]>([:])
    /// The last event sequence number stored before the writes stall (0: they never do).
    private static let stallAfterSeq = Atomic<Int64>(0)
    /// Failures counted at each path, kept after the fault ends, and the tests waiting for a count.
    private static let counts = Mutex<[String: (failed: Int, waiting: [(count: Int, done: DispatchSemaphore)])]>([:])

    static var isArmed: Bool { armed.load(ordering: .relaxed) != 0 }

    /// From now on, writes to the database at `path` fail with `code` (`SQLITE_FULL`,
    /// `SQLITE_READONLY`, `SQLITE_IOERR_WRITE`, …) once `after` more writes have succeeded.
    /// With `times`, the fault ends by itself after failing that many statements (a database busy
    /// for the next N attempts, then free); with `matching`, it applies only to statements whose
    /// SQL contains that text, transaction control included (`"SET status"`: marking the session
    /// finished fails).
    package static func inject(
        _ code: Int32, at path: String, after: Int = 0, times: Int? = nil, matching: String? = nil
    ) {
        faults.withLock { faults in
            if faults[path] == nil { armed.add(1, ordering: .relaxed) }
            faults[path] = Fault(code: code, remaining: after, times: times, matching: matching)
        }
        counts.withLock { $0[path] = (0, $0[path]?.waiting ?? []) }
    }

    /// Blocks until statements on the database at `path` have failed `count` times since the last
    /// `inject` there.
    package static func wait(forFailures count: Int, at path: String) {
        let done = DispatchSemaphore(value: 0)
        let reached = counts.withLock { counts in
            if (counts[path]?.failed ?? 0) >= count { return true }
            counts[path, default: (0, [])].waiting.append((count, done))
            return false
        }
        if !reached { done.wait() }
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
        counts.withLock { $0[path]?.failed ?? 0 }
    }

    /// From now on, in this process, the write of an event numbered above `seq` (of any session,
    /// in any database) waits, in the middle of its batch with the batches before it committed,
    /// until `resumeStalledEvents()`. The tests that act on a running recording (kill it, delete its
    /// database, read it) stall it through `auditctl`'s environment (`AUDITCTL_TEST_STALL_AFTER_EVENT`,
    /// resumed by `SIGUSR1`), so that it cannot finish before they act, however the machine
    /// schedules the two processes.
    package static func stallEvents(after seq: Int64) {
        stallAfterSeq.store(seq, ordering: .relaxed)
        armed.add(1, ordering: .relaxed)
    }

    /// Runs `notice` once, on the writer that stalls first, as it stops (`stallEvents(after:)`).
    package static func whenStalled(_ notice: @escaping @Sendable () -> Void) {
        stallNotice.withLock { $0 = notice }
    }

    /// Lets the stalled writes go on, and every later one.
    package static func resumeStalledEvents() {
        stallAfterSeq.store(0, ordering: .relaxed)
        resumed.signal()
    }

    private static let resumed = DispatchSemaphore(value: 0)
    private static let stallNotice = Mutex<(@Sendable () -> Void)?>(nil)

    /// Waits for `resumeStalledEvents()` when `lastSeq`, the last event of a write about to be
    /// made, is past the stall point.
    static func checkStall(lastSeq: Int64) {
        let after = stallAfterSeq.load(ordering: .relaxed)
        guard after > 0 && lastSeq > after else { return }
        stallNotice.withLock { notice in
            defer { notice = nil }
            return notice
        }?()
        resumed.wait()
        resumed.signal()  // for any other writer waiting
    }

    static func check(_ statement: Statement, on path: String) throws {
        let code: Int32? = faults.withLock { faults in
            guard var fault = faults[path], applies(fault, to: statement) else { return nil }
            if fault.remaining > 0 {
                fault.remaining -= 1
                faults[path] = fault
                return nil
            }
            fault.failed += 1
            if let times = fault.times, fault.failed >= times {
                faults[path] = nil
                armed.subtract(1, ordering: .relaxed)
            } else {
                faults[path] = fault
            }
            return fault.code
        }
        guard let code else { return }
        let reached = counts.withLock { counts -> [DispatchSemaphore] in
            guard var entry = counts[path] else { return [] }
            entry.failed += 1
            let reached = entry.waiting.filter { $0.count <= entry.failed }.map(\.done)
            entry.waiting.removeAll { $0.count <= entry.failed }
            counts[path] = entry
            return reached
        }
        for done in reached { done.signal() }
        throw SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), sql: statement.sql)
    }

    private static func applies(_ fault: Fault, to statement: Statement) -> Bool {
        if let matching = fault.matching { return statement.sql.contains(matching) }
        guard !statement.isReadOnly else { return false }
        let verb = statement.sql.prefix { $0.isLetter }.uppercased()
        return !["PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"].contains(verb)
    }
}
