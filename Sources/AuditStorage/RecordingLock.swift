import AuditModel
import Foundation

/// Tells whether a session's recording is still running, wherever its process runs: the recording
/// process holds a lock on the session's byte of a lock file beside the database (`-recording`)
/// for as long as the session records, and the kernel drops it when the process ends, however it
/// ends. Unlike a process id, this holds across PID namespaces (a recorder in a container, a
/// reader on the host) and cannot be fooled by a reused PID.
///
/// The locks are open-file-description locks (`F_OFD_SETLK`): held by the open file, not by the
/// process, so closing any other descriptor of the file cannot drop them, and a reader in the same
/// process sees them as held. They are on a file of their own because SQLite's locks on the
/// database are classic process locks, which closing any descriptor of the database would drop.
///
/// The file exists only while a recording holds it (see `LockFile`): the last recording to end
/// removes it. One left by a crash holds no lock, so every session in it reads as not recording,
/// and the next recording uses it and removes it when it ends. The byte of session `n` is byte `n`;
/// the file's open and closing bytes are the last two a file can have, which no session id reaches
/// (SQLite numbers sessions from 1, one above the highest).
final class RecordingLock: Sendable {
    private static let openByte = Int64.max - 1
    private static let closingByte = Int64.max

    private let file: LockFile

    /// Where the locks of the database at `databasePath` are.
    static func path(of databasePath: String) -> String { databasePath + "-recording" }

    /// Takes the lock of `session`: nil when the file cannot be made or the lock taken (the
    /// session is then judged by its process id alone, as before locks).
    init?(session: Int64, databasePath: String) {
        guard session >= 0, session < Self.openByte,
            let file = LockFile(
                path: Self.path(of: databasePath), databasePath: databasePath, openByte: Self.openByte,
                closingByte: Self.closingByte),
            file.lock(F_WRLCK, at: session, length: 1, waiting: false)
        else { return nil }
        self.file = file
    }

    /// Whether a process holds the lock of `session`. With no lock file, none does.
    static func isHeld(session: Int64, databasePath: String) -> Bool {
        guard session >= 0, session < openByte else { return false }
        let descriptor = open(path(of: databasePath), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(session)
        lock.l_len = 1
        lock.l_pid = 0  // required 0 for open-file-description locks
        guard fcntl(descriptor, getLock, &lock) == 0 else { return false }
        return lock.l_type != F_UNLCK
    }

    /// `F_OFD_GETLK` (Linux 3.15), which Glibc's module does not export.
    private static let getLock: Int32 = 36
}
