import AuditModel
import Foundation

/// The line in which connections take turns to write one database: first come, first served,
/// across threads and processes.
///
/// SQLite's own busy handler is a retry loop: a writer that finds the write lock taken sleeps and
/// tries again, and the one that just committed usually takes the lock again before a sleeper
/// wakes, so with many writers one can wait past its busy timeout and fail. Connections that write
/// therefore queue first, with open-file-description locks (`F_OFD_SETLKW`, Linux) on a small file
/// beside the database, `<database>-writers`:
///
/// - bytes 0..<8 hold the next ticket, guarded by a lock on them. A writer locks them, takes its
///   ticket `t`, stores `t + 1` and locks the byte of its own ticket before letting the guard go;
/// - it then waits (a blocking lock: the kernel wakes it, no polling) for the byte of ticket
///   `t - 1`, which its owner holds until its turn ends, and lets go of that byte at once;
/// - its turn runs from there to the end of its transaction, when it unlocks its own byte and so
///   lets ticket `t + 1` in.
///
/// Bytes 8 and 9 are the file's open and closing bytes (see `LockFile`): the last connection to
/// close removes the file, as SQLite removes `-wal` and `-shm`.
///
/// The kernel drops every lock of a process that dies, so a crashed writer never blocks the line;
/// one that dies while waiting lets its successor in early, which SQLite's own lock then orders.
/// The line only orders writers: SQLite's lock still guards the database, and writers that do not
/// queue (the `sqlite3` shell, an older auditctl) still get in through the busy timeout. Where the
/// file cannot be made (a read-only directory) or is not a regular file, connections go without it.
final class WriterQueue {
    /// Where the guard, the open-file lock, the closing lock and the tickets' bytes are.
    private static let guardRange: (start: Int64, length: Int64) = (0, 8)
    private static let openByte: Int64 = 8
    private static let closingByte: Int64 = 9
    private static let firstTicketByte: Int64 = 16

    private let file: LockFile
    var path: String { file.path }
    private var descriptor: Int32 { file.descriptor }
    /// The ticket whose turn this connection has, or is waiting for.
    private var ticket: Int64?

    /// Opens (making it when missing) the queue of the database at `databasePath`; nil where it
    /// cannot be used.
    init?(databasePath: String) {
        guard
            let file = LockFile(
                path: databasePath + "-writers", databasePath: databasePath, openByte: Self.openByte,
                closingByte: Self.closingByte)
        else { return nil }
        self.file = file
    }

    /// Ends this connection's turn if it has one; the file then closes (see `LockFile`), removing
    /// it if this was its last connection.
    deinit {
        if ticket != nil { endTurn() }
    }

    /// Takes a ticket: this connection is now in line, behind every connection that took one
    /// before. Returns the ticket.
    @discardableResult
    func takeTicket() -> Int64 {
        if let ticket { return ticket }
        let guardRange = Self.guardRange
        _ = file.lock(F_WRLCK, at: guardRange.start, length: guardRange.length, waiting: true)
        var next: Int64 = 0
        if pread(descriptor, &next, 8, 0) != 8 { next = 0 }
        var after = next + 1
        _ = pwrite(descriptor, &after, 8, 0)
        _ = file.lock(F_WRLCK, at: Self.firstTicketByte + next, length: 1, waiting: true)
        _ = file.lock(F_UNLCK, at: guardRange.start, length: guardRange.length, waiting: false)
        ticket = next
        return next
    }

    /// Waits until every connection that took a ticket before this one has ended its turn (taking
    /// a ticket first when it has none).
    func waitForTurn() {
        let ticket = takeTicket()
        guard ticket > 0 else { return }
        let before = Self.firstTicketByte + ticket - 1
        _ = file.lock(F_WRLCK, at: before, length: 1, waiting: true)
        _ = file.lock(F_UNLCK, at: before, length: 1, waiting: false)
    }

    /// Ends this connection's turn, letting the next in line in.
    func endTurn() {
        guard let ticket else { return }
        _ = file.lock(F_UNLCK, at: Self.firstTicketByte + ticket, length: 1, waiting: false)
        self.ticket = nil
    }
}
