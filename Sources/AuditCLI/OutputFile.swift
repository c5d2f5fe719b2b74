import Foundation

/// Every file the command line writes besides the database (`--html`, `minimize --output`,
/// `export --output`): checked before the command does anything, and written atomically — into a
/// new temporary file beside it, created 0600 whatever the umask, flushed, then renamed over it —
/// so the file is either the old one or the whole new one, readable by its owner only (it shows
/// what the database holds).
///
/// Never through a link, and never over something that is not a plain file: a symbolic link at the
/// path, a directory, a device or a FIFO is refused, so `--output` cannot be turned into a write to
/// another file (the rename replaces the name only, never the file a link points to).
enum OutputFile {
    /// Refuses a destination that cannot be written, before the command does anything (a replay
    /// would otherwise have stored its run already). `what` names the file in the error line.
    static func check(_ path: String, what: String, option: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "\(option) needs a file name") }
        func refuse(_ reason: String) -> UsageError {
            UsageError(message: "cannot write \(what) to \(path): \(reason)")
        }
        let folder = directory(of: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw refuse("directory \(folder) does not exist")
        }
        guard access(folder, W_OK | X_OK) == 0 else { throw refuse("directory \(folder) is not writable") }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // nothing there yet
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK: throw refuse("it is a symbolic link (give the file's own path)")
        case S_IFDIR: throw refuse("it is a directory")
        default: throw refuse("it is not a regular file")
        }
    }

    /// Writes what `produce` gives, chunk by chunk, to `path` (checked by `check`), atomically, mode
    /// 0600: memory does not grow with the file.
    static func write(to path: String, what: String, _ produce: ((String) -> Void) throws -> Void) throws {
        let name = (path as NSString).lastPathComponent
        let temporary = directory(of: path) + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OutputFileError(path: path, what: what, code: errno) }
        var failure: Int32?
        if fchmod(descriptor, 0o600) != 0 { failure = errno }
        var pending = Data()
        func flush() {
            pending.withUnsafeBytes { buffer in
                var offset = 0
                while failure == nil, offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    offset += written
                }
            }
            pending.removeAll(keepingCapacity: true)
        }
        do {
            try produce { text in
                pending.append(contentsOf: text.utf8)
                if pending.count >= 1 << 16 { flush() }
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        flush()
        if failure == nil && fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == nil { failure = errno }
        if failure == nil && rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw OutputFileError(path: path, what: what, code: failure)
        }
    }

    /// Writes `data` to `path` (checked by `check`), atomically, mode 0600.
    static func write(_ data: Data, to path: String, what: String) throws {
        try write(to: path, what: what) { write in write(String(decoding: data, as: UTF8.self)) }
    }

    private static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }
}

/// A file could not be written: one line naming it and the system's reason.
struct OutputFileError: Error, CustomStringConvertible {
    let path: String
    let what: String
    let code: Int32

    var description: String { "cannot write \(what) to \(path): \(String(cString: strerror(code)))" }
}
