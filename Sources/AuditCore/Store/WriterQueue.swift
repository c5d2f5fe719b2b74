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
/// Every connection also holds a shared lock on byte 8 while it has the file open; the last one to
/// close removes the file, as SQLite removes `-wal` and `-shm`. Connections close one at a time,
/// under an exclusive lock on byte 9, so of several closing at once the last still sees itself alone.
///
/// The kernel drops every lock of a process that dies, so a crashed writer never blocks the line;
/// one that dies while waiting lets its successor in early, which SQLite's own lock then orders.
/// The line only orders writers: SQLite's lock still guards the database, and writers that do not
/// queue (the `sqlite3` shell, an older auditctl) still get in through the busy timeout. Where the
/// file cannot be made (a read-only directory) or is not a regular file, connections go without it.
final class WriterQueue {
    /// `F_OFD_SETLK` and `F_OFD_SETLKW` from Linux's `<fcntl.h>` (`asm-generic/fcntl.h`), which
    /// Glibc declares only under `_GNU_SOURCE`.
    private static let setLock: Int32 = 37
    private static let setLockWaiting: Int32 = 38
    /// Where the guard, the open-file lock and the tickets' bytes are.
    private static let guardRange: (start: Int64, length: Int64) = (0, 8)
    private static let openByte: Int64 = 8
    private static let closingByte: Int64 = 9
    private static let firstTicketByte: Int64 = 16

    let path: String
    private let descriptor: Int32
    /// The ticket whose turn this connection has, or is waiting for.
    private var ticket: Int64?

    /// Opens (making it when missing) the queue of the database at `databasePath`; nil where it
    /// cannot be used.
    init?(databasePath: String) {
        path = databasePath + "-writers"
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, DatabaseFile.mode)
            guard descriptor >= 0 else { return nil }
            var opened = stat()
            var atPath = stat()
            guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
                Self.lock(descriptor, F_RDLCK, at: Self.openByte, length: 1, waiting: true)
            else {
                close(descriptor)
                return nil
            }
            // The last connection of another process may have removed the file between `open` and
            // the lock: then this one is not the queue the others use, and it is made again.
            if lstat(path, &atPath) == 0, atPath.st_dev == opened.st_dev, atPath.st_ino == opened.st_ino {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    deinit {
        if ticket != nil { endTurn() }
        // Connections close one at a time (the closing byte): two closing at once would each see
        // the other's shared lock and leave the file behind. Each drops its locks (by closing)
        // before the next looks, so the last one finds none but its own.
        _ = Self.lock(descriptor, F_WRLCK, at: Self.closingByte, length: 1, waiting: true)
        // Alone with the file (no other shared lock on the open byte): remove it while holding it
        // exclusively, so no one can join the removed file unnoticed.
        if Self.lock(descriptor, F_WRLCK, at: Self.openByte, length: 1, waiting: false) { unlink(path) }
        close(descriptor)
    }

    /// Takes a ticket: this connection is now in line, behind every connection that took one
    /// before. Returns the ticket.
    @discardableResult
    func takeTicket() -> Int64 {
        if let ticket { return ticket }
        let guardRange = Self.guardRange
        _ = Self.lock(descriptor, F_WRLCK, at: guardRange.start, length: guardRange.length, waiting: true)
        var next: Int64 = 0
        if pread(descriptor, &next, 8, 0) != 8 { next = 0 }
        var after = next + 1
        _ = pwrite(descriptor, &after, 8, 0)
        _ = Self.lock(descriptor, F_WRLCK, at: Self.firstTicketByte + next, length: 1, waiting: true)
        _ = Self.lock(descriptor, F_UNLCK, at: guardRange.start, length: guardRange.length, waiting: false)
        ticket = next
        return next
    }

    /// Waits until every connection that took a ticket before this one has ended its turn (taking
    /// a ticket first when it has none).
    func waitForTurn() {
        let ticket = takeTicket()
        guard ticket > 0 else { return }
        let before = Self.firstTicketByte + ticket - 1
        _ = Self.lock(descriptor, F_WRLCK, at: before, length: 1, waiting: true)
        _ = Self.lock(descriptor, F_UNLCK, at: before, length: 1, waiting: false)
    }

    /// Ends this connection's turn, letting the next in line in.
    func endTurn() {
        guard let ticket else { return }
        _ = Self.lock(descriptor, F_UNLCK, at: Self.firstTicketByte + ticket, length: 1, waiting: false)
        self.ticket = nil
    }

    private static func lock(_ descriptor: Int32, _ type: Int32, at start: Int64, length: Int64, waiting: Bool)
        -> Bool
    {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        lock.l_pid = 0  // required for open-file-description locks
        while true {
            if fcntl(descriptor, waiting ? setLockWaiting : setLock, &lock) == 0 { return true }
            guard errno == EINTR else { return false }
        }
    }
}
