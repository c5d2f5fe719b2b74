import AuditKit
import AuditModel
import AuditStorage
import CSQLite
import Foundation

/// The database of a behaviour check's baselines, committed with the tests: never written where it
/// is, only read whole or replaced whole.
///
/// A check works on a copy in a private temporary folder, removed when it is done, whatever
/// happens: the replay's candidate session, SQLite's `-wal` and `-shm`, the store's `-writers` and
/// `-recording` files are all made there. The baseline is read once, through a read-only handle
/// on an unchanging file (SQLite's `immutable`: no lock, no `-shm`), by `VACUUM INTO` the copy. So
/// a comparing check leaves the baseline's bytes, its modification time and its folder as they
/// were.
///
/// Recording works on a copy too, taken under an exclusive lock on the baseline's folder (`flock`,
/// across processes; the folder is made when missing), so that checks recording into one database
/// at once each keep their session. The copy is then written out compacted, in rollback-journal
/// mode (reading it needs no `-shm`), with mode 0600, to a temporary file beside the baseline,
/// synced, and renamed over it. A recording that throws leaves the baseline as it was and no file
/// beside it; a process that dies mid-way leaves at most `<database>.new-PID-RANDOM`, never a
/// partial baseline.
///
/// The baseline's secret key (`<database>-key`, see `SecretKey`) goes with it: copied in, so that
/// secure text is hashed with it in the copy, and put beside the baseline when a recording made it.
struct BaselineFile {
    let path: String

    /// Runs `body` with a private copy of the baseline (nil when there is no baseline file), in a
    /// temporary folder removed when `body` returns or throws.
    ///
    /// - Complexity: O(*n*) in the size of the baseline database.
    func withCopy<T>(_ body: (String?) throws -> T) throws -> T {
        try Self.withTemporaryFolder { folder in
            let copy = folder + "/" + (path as NSString).lastPathComponent
            return try body(try self.copy(to: copy) ? copy : nil)
        }
    }

    /// Runs `record` on a private copy of the baseline (a path where no file is when there is no
    /// baseline yet) and replaces the baseline with it when `record` returns; when it throws, the
    /// baseline is left as it was, and no file beside it. Checks recording into the same folder
    /// take turns, in any process.
    ///
    /// - Complexity: O(*n*) in the size of the baseline database, besides `record`.
    func update<T>(_ record: (String) throws -> T) throws -> T {
        let folder = DatabaseFile.directory(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError.cannotOpen(path: path, SQLiteError(code: SQLITE_CANTOPEN, message: "\(error)"))
        }
        let lock = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0 else { throw StoreError.cannotOpen(path: path, DatabaseFile.failure(errno)) }
        defer { close(lock) }  // and with it the lock
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreError.cannotOpen(path: path, DatabaseFile.failure(errno)) }
        }
        return try Self.withTemporaryFolder { temporary in
            let copy = temporary + "/" + (path as NSString).lastPathComponent
            _ = try self.copy(to: copy)
            let result = try record(copy)
            let compacted = copy + ".compacted"
            try storeOperation {
                try Connection(path: copy, mode: .readWrite(create: false)).prepare("VACUUM INTO ?")
                    .execute([.text(compacted)])
            }
            let key = SecretKey.path(forDatabase: path)
            if Foundation.access(key, F_OK) != 0, Foundation.access(SecretKey.path(forDatabase: copy), F_OK) == 0 {
                try Self.place(SecretKey.path(forDatabase: copy), at: key, replacing: false)
            }
            try Self.place(compacted, at: path, replacing: true)
            fsync(lock)  // the rename, durable
            return result
        }
    }

    /// Copies the baseline, and its key when it has one, to `destination`; false when there is no
    /// baseline file. The baseline is checked as any database is before it is opened (a directory,
    /// an empty or short file, no permission: one clear line), then read as an unchanging file.
    private func copy(to destination: String) throws(StoreError) -> Bool {
        do {
            _ = try DatabaseFile.check(path, for: .readUntrustedSQL)
        } catch .noDatabase {
            return false
        }
        // An unchanging file is read without its WAL: changes still in one would not be seen.
        var wal = stat()
        if stat(path + "-wal", &wal) == 0 && wal.st_size > 0 {
            throw .cannotOpen(
                path: path,
                SQLiteError(
                    code: SQLITE_CANTOPEN,
                    message: "\(path)-wal holds changes not yet in it (a recording that did not finish, or another "
                        + "tool writing it); open the database once with auditctl to fold them in, or delete the -wal"))
        }
        try storeOperation {
            let baseline = try Connection(path: path, mode: .immutable)
            guard try baseline.tableExists("sessions") else {
                throw StoreError.notAnAuditDatabase(path: path, reason: "it has no sessions table")
            }
            try baseline.prepare("VACUUM INTO ?").execute([.text(destination)])
        }
        let key = SecretKey.path(forDatabase: path)
        if Foundation.access(key, F_OK) == 0 {
            try Self.place(key, at: SecretKey.path(forDatabase: destination), replacing: false)
        }
        return true
    }

    /// Runs `body` with a new folder of its own (mode 0700) in the temporary directory, removed with
    /// everything in it when `body` returns or throws.
    private static func withTemporaryFolder<T>(_ body: (String) throws -> T) throws -> T {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("auditctl-baseline-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StoreError.cannotOpen(path: NSTemporaryDirectory(), DatabaseFile.failure(errno))
        }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try body(folder)
    }

    /// Puts a copy of the file at `source` at `destination`, whole: written to a temporary file
    /// beside it (mode 0600), synced, then renamed over it, or, not `replacing`, linked where no
    /// file is yet (one that is there stays).
    private static func place(_ source: String, at destination: String, replacing: Bool) throws(StoreError) {
        guard let bytes = FileManager.default.contents(atPath: source) else {
            throw .cannotOpen(path: source, DatabaseFile.failure(errno))
        }
        let temporary = "\(destination)\(DatabaseFile.temporarySuffix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, DatabaseFile.mode)
        guard descriptor >= 0 else { throw .cannotOpen(path: destination, DatabaseFile.failure(errno)) }
        defer { unlink(temporary) }  // after the rename, or the link, it names nothing or a second link
        fchmod(descriptor, DatabaseFile.mode)  // exactly 0600, whatever the umask
        let whole = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 || (written < 0 && errno == EINTR) else { return false }
                offset += max(written, 0)
            }
            return true
        }
        let synced = whole && fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard synced else { throw .cannotOpen(path: destination, DatabaseFile.failure(code)) }
        if replacing {
            guard rename(temporary, destination) == 0 else {
                throw .cannotOpen(path: destination, DatabaseFile.failure(errno))
            }
        } else if link(temporary, destination) != 0 && errno != EEXIST {
            throw .cannotOpen(path: destination, DatabaseFile.failure(errno))
        }
    }
}
