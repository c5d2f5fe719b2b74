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
final class RecordingLock: @unchecked Sendable {
    // @unchecked: the descriptor is written once, at init, and closed once, at deinit.
    private let descriptor: Int32

    /// Where the locks of the database at `databasePath` are.
    static func path(of databasePath: String) -> String { databasePath + "-recording" }

    /// Takes the lock of `session`: nil when the file cannot be made or the lock taken (the
    /// session is then judged by its process id alone, as before locks).
    init?(session: Int64, databasePath: String) {
        let descriptor = open(Self.path(of: databasePath), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, DatabaseFile.mode)
        guard descriptor >= 0 else { return nil }
        var lock = Self.byte(of: session, type: F_WRLCK)
        guard fcntl(descriptor, Self.setLock, &lock) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Whether a process holds the lock of `session`. With no lock file, none does.
    static func isHeld(session: Int64, databasePath: String) -> Bool {
        let descriptor = open(path(of: databasePath), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = byte(of: session, type: F_RDLCK)
        guard fcntl(descriptor, getLock, &lock) == 0 else { return false }
        return lock.l_type != F_UNLCK
    }

    /// `F_OFD_SETLK` and `F_OFD_GETLK` (Linux 3.15), which Glibc's module does not export.
    private static let setLock: Int32 = 37
    private static let getLock: Int32 = 36

    private static func byte(of session: Int64, type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(session)
        lock.l_len = 1
        lock.l_pid = 0  // required 0 for open-file-description locks
        return lock
    }
}
