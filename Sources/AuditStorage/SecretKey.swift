import AuditModel
import CSQLite
import Foundation

/// The key that secure widgets' text is hashed with: 32 random bytes in a file beside the
/// database, `<database>-key`, readable by its owner only.
///
/// Not in the database on purpose: a keyed hash protects the text against whoever holds the
/// database alone (a copy attached to a bug report, a backup), who can neither read it nor test a
/// guess. Whoever also holds the key file can test guesses; keep it where the database is, not
/// beside its copies. Made on first need, atomically (a private temporary file linked into place),
/// so two processes recording at once agree on one key. Lost, a new one is made: values hashed
/// before and after no longer compare equal.
package enum SecretKey {
    package static let byteCount = 32

    /// `<database>-key`.
    package static func path(forDatabase databasePath: String) -> String { databasePath + "-key" }

    /// The key of the database at `databasePath`, made when there is none.
    package static func load(forDatabase databasePath: String) throws(StoreError) -> [UInt8] {
        let path = path(forDatabase: databasePath)
        if let key = try read(path) { return key }
        var random = SystemRandomNumberGenerator()
        let key = (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &random) }
        let temporary = "\(path)\(DatabaseFile.temporarySuffix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, DatabaseFile.mode)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, DatabaseFile.failure(errno)) }
        defer { unlink(temporary) }
        fchmod(descriptor, DatabaseFile.mode)
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == byteCount, synced else { throw .cannotOpen(path: path, DatabaseFile.failure(errno)) }
        if link(temporary, path) == 0 { return key }
        guard errno == EEXIST, let existing = try read(path) else {
            throw .cannotOpen(path: path, DatabaseFile.failure(errno))
        }
        return existing  // another process made the key first
    }

    /// The key in `path`, or nil when there is no such file.
    private static func read(_ path: String) throws(StoreError) -> [UInt8]? {
        guard Foundation.access(path, F_OK) == 0 else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .cannotOpen(path: path, DatabaseFile.failure(EACCES))
        }
        guard data.count == byteCount else {
            throw .cannotOpen(
                path: path,
                SQLiteError(
                    code: SQLITE_CORRUPT,
                    message: "a secret key is \(byteCount) bytes, this file has \(data.count); "
                        + "remove it to make a new key (values hashed with the old one will no longer compare equal)"))
        }
        return Array(data)
    }
}
