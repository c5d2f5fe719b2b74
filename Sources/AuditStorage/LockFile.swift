import AuditModel
import Foundation

/// A small file beside the database that exists only while some connection has it open, for the
/// open-file-description locks (`F_OFD_SETLK`, Linux) taken on its bytes: the writers' line
/// (`WriterQueue`, `<database>-writers`) and the recordings' liveness (`RecordingLock`,
/// `<database>-recording`).
///
/// Every holder keeps a shared lock on the file's *open byte* for as long as it has the file open;
/// the last one to close removes the file, as SQLite removes `-wal` and `-shm`. Holders close one
/// at a time, under an exclusive lock on the *closing byte*, so of several closing at once the last
/// still sees itself alone. One that opens the file while the last holder removes it finds that the
/// path no longer names the file it opened, and opens the path again.
///
/// The kernel drops the locks of a process that dies, however it dies, but not the file: a file
/// left by a crash holds no lock, so it reads as free, and the next holder to close removes it.
///
/// The locks belong to the open file, not the process: two holders in one process are as two
/// processes, and closing any other descriptor of the file drops neither's locks. Its state is
/// set once, at init, so it may be handed to another thread (a recording's writer).
final class LockFile: Sendable {
    /// `F_OFD_SETLK` and `F_OFD_SETLKW` from Linux's `<fcntl.h>` (`asm-generic/fcntl.h`), which
    /// Glibc declares only under `_GNU_SOURCE`.
    private static let setLock: Int32 = 37
    private static let setLockWaiting: Int32 = 38

    let path: String
    let descriptor: Int32
    private let openByte: Int64
    private let closingByte: Int64

    /// Opens the file at `path` beside the database at `databasePath` (making it, owner-only, when
    /// missing) and joins its holders; nil where it cannot be made or is not a regular file (a
    /// link at the path is not followed). `openByte` and `closingByte` are the bytes the holders
    /// lock, which nothing else may use.
    ///
    /// A file that root makes beside another user's database is given to that user, as SQLite
    /// gives its `-wal` and `-shm`: otherwise root, writing once, would leave a file the
    /// database's owner cannot open, and lock the owner's own recordings out.
    init?(path: String, databasePath: String, openByte: Int64, closingByte: Int64) {
        self.path = path
        self.openByte = openByte
        self.closingByte = closingByte
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, DatabaseFile.mode)
            guard descriptor >= 0 else { return nil }
            var opened = stat()
            var atPath = stat()
            guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
                Self.lock(descriptor, F_RDLCK, at: openByte, length: 1, waiting: true)
            else {
                close(descriptor)
                return nil
            }
            var database = stat()
            if geteuid() == 0, stat(databasePath, &database) == 0,
                database.st_uid != opened.st_uid || database.st_gid != opened.st_gid
            {
                _ = fchown(descriptor, database.st_uid, database.st_gid)
            }
            // The last holder in another process may have removed the file between `open` and the
            // lock: then this one is not the file the others use, and it is made again.
            if lstat(path, &atPath) == 0, atPath.st_dev == opened.st_dev, atPath.st_ino == opened.st_ino {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    deinit {
        // Holders close one at a time (the closing byte): two closing at once would each see the
        // other's shared lock and leave the file behind. Each drops its locks (by closing) before
        // the next looks, so the last one finds none but its own.
        _ = lock(F_WRLCK, at: closingByte, length: 1, waiting: true)
        // Alone with the file (no other shared lock on the open byte): remove it while holding it
        // exclusively, so no one can join the removed file unnoticed.
        if lock(F_WRLCK, at: openByte, length: 1, waiting: false) { unlink(path) }
        close(descriptor)
    }

    /// Locks (`F_RDLCK`, `F_WRLCK`) or unlocks (`F_UNLCK`) `length` bytes from `start`, waiting for
    /// other holders' locks when `waiting`; whether it did.
    func lock(_ type: Int32, at start: Int64, length: Int64, waiting: Bool) -> Bool {
        Self.lock(descriptor, type, at: start, length: length, waiting: waiting)
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
