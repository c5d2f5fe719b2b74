import AuditModel
import CSQLite
import Foundation

/// The audit database as a file: what is checked before SQLite opens it, and how a new one is made.
///
/// A new database is made whole in a temporary file beside it — created with mode 0600, migrated,
/// switched to WAL, checkpointed and closed — and then linked into place (a disk too small for the
/// schema fails the checkpoint, and nothing is put in place). So no process ever sees an empty or
/// half-made audit database at the path, and the database, its `-wal` and its `-shm` (which SQLite
/// creates with the database file's mode) can be read by their owner only. Since auditctl never
/// leaves an empty file behind, an existing empty file is refused rather than taken for a new
/// database: it is more likely a copy that went wrong than an intention.
package enum DatabaseFile {
    /// The mode of every file auditctl creates: read and write for the owner only.
    package static let mode: mode_t = 0o600

    /// How the store should open the file, decided before SQLite touches it.
    package enum Opening: Equatable {
        /// There is no file: make a new database (write access only).
        case create
        /// Open it as asked.
        case open
        /// Open it through a read-only handle: reading is all that was asked, and the file or its
        /// directory cannot be written, which a read-write handle on a WAL database needs.
        case openReadOnly
        /// Open it read-only as an unchanging file: reading is all that was asked, and SQLite could
        /// not create the `-shm` beside it (read-only media, an archive).
        case openImmutable
    }

    /// Checks `path` for `access` without opening it: a missing file, a directory or other
    /// non-regular file, an empty file, and missing permissions each fail with one clear line.
    package static func check(_ path: String, for access: AuditStore.Access) throws(StoreError) -> Opening {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            switch (code, access) {
            case (ENOENT, .write): return .create
            case (ENOENT, _), (ENOTDIR, .read), (ENOTDIR, .readUntrustedSQL): throw .noDatabase(path: path)
            default: throw .cannotOpen(path: path, failure(code))
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .cannotOpen(path: path, SQLiteError(code: SQLITE_CANTOPEN, message: "it is a directory"))
        default: throw .cannotOpen(path: path, SQLiteError(code: SQLITE_CANTOPEN, message: "it is not a regular file"))
        }
        guard info.st_size > 0 else {
            throw .notAnAuditDatabase(
                path: path,
                reason: "it is an empty file (auditctl never leaves one, so it may be a damaged copy); "
                    + "remove it to start a new database")
        }
        // SQLite takes a file shorter than its 100-byte header for an empty database and would make
        // a new one over it: only a missing file becomes a new database.
        guard info.st_size >= 100 else {
            throw .cannotOpen(
                path: path,
                SQLiteError(
                    code: SQLITE_NOTADB,
                    message: "file is not a database (\(info.st_size) byte\(info.st_size == 1 ? "" : "s"), "
                        + "shorter than a SQLite header)"))
        }
        guard Foundation.access(path, R_OK) == 0 else { throw .cannotOpen(path: path, failure(EACCES)) }
        // Any handle on a WAL database, even a read-only one, needs the `-shm` file beside it, and
        // creates it (and `-wal`) when it is missing. Where it cannot (read-only media, a directory
        // the user may not write), a database is read as an unchanging file, without locks: no
        // process can be writing it there. Unless its `-wal` holds changes, which only a `-shm`
        // indexes.
        if Foundation.access(path + "-shm", F_OK) != 0 && Foundation.access(directory(of: path), W_OK) != 0 {
            var wal = stat()
            let walHasChanges = stat(path + "-wal", &wal) == 0 && wal.st_size > 0
            guard access != .write, !walHasChanges else {
                let reason =
                    access == .write
                    ? "its directory is not writable, and SQLite must create \(path)-shm beside it"
                    : "its directory is not writable, and \(path)-wal holds changes only a -shm beside it can "
                        + "index; copy the database and its -wal to a writable place to read them"
                throw .cannotOpen(path: path, SQLiteError(code: SQLITE_CANTOPEN, message: reason))
            }
            return .openImmutable
        }
        let writable = Foundation.access(path, W_OK) == 0
        switch access {
        case .write:
            guard writable else {
                throw .cannotOpen(
                    path: path,
                    SQLiteError(code: SQLITE_READONLY, message: "permission denied (it is read-only to you)"))
            }
            return .open
        case .read: return writable ? .open : .openReadOnly
        case .readUntrustedSQL: return .openReadOnly
        }
    }

    /// Makes a new, fully migrated database at `path`, unless another process makes one first
    /// (then that one is used). See the type's documentation.
    static func create(at path: String) throws(StoreError) {
        removeAbandonedTemporaries(of: path)
        let temporary = "\(path)\(temporarySuffix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, failure(errno)) }
        fchmod(descriptor, mode)  // exactly 0600, whatever the umask
        close(descriptor)
        defer { removeDatabaseFiles(temporary) }
        do {
            let connection = try Connection(path: temporary, mode: .readWrite(create: false))
            try Migrator.migrate(connection)
            // The schema is in the WAL until a checkpoint copies it into the file, which may not
            // fit on the disk: copied here, where a failure is seen (closing the connection would
            // checkpoint too, and keep quiet), so that a file without its schema is never put
            // in place of the database. Nobody else knows the temporary file: nothing is busy.
            let code = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
            guard code == SQLITE_OK else {
                throw SQLiteError(code: code, connection: connection.handle, sql: "checkpoint")
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteError {
            throw .cannotOpen(path: path, error)
        } catch {
            throw .cannotOpen(path: path, SQLiteError(code: SQLITE_ERROR, message: "\(error)"))
        }
        guard link(temporary, path) != 0 else { return }
        switch errno {
        case EEXIST:
            return  // another process made the database first: it is as good as ours
        case EPERM, EOPNOTSUPP, ENOSYS, EMLINK:
            // A file system without hard links: rename, which cannot refuse to replace a file that
            // appeared meanwhile, so only when none is there.
            guard Foundation.access(path, F_OK) != 0 else { return }
            guard rename(temporary, path) == 0 else { throw .cannotOpen(path: path, failure(errno)) }
        case let code:
            throw .cannotOpen(path: path, failure(code))
        }
    }

    /// What a temporary database's name adds to the target's: `audit.sqlite.new-PID-RANDOM`.
    package static let temporarySuffix = ".new-"

    /// Removes the temporary databases of `path` that processes which died while making them left.
    private static func removeAbandonedTemporaries(of path: String) {
        let folder = directory(of: path)
        let prefix = (path as NSString).lastPathComponent + temporarySuffix
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && !name.hasSuffix("-wal") && !name.hasSuffix("-shm") {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }),
                kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            removeDatabaseFiles((folder as NSString).appendingPathComponent(name))
        }
    }

    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// The directory that holds `path` (`.` for a bare file name).
    package static func directory(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// A failed system call as a one-line reason.
    package static func failure(_ code: Int32) -> SQLiteError {
        let message =
            switch code {
            case EACCES, EPERM: "permission denied"
            case ENOENT, ENOTDIR: "its directory does not exist"
            case EROFS: "read-only file system"
            case ENOSPC, EDQUOT: "no space left on the device"
            case let other: String(cString: strerror(other))
            }
        return SQLiteError(code: SQLITE_CANTOPEN, message: message)
    }
}
