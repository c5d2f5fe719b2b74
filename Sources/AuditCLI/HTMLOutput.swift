import AuditCore
import Foundation

/// `--html FILE` of `report`, `diff` and `replay`: the page is made by `HTMLTimeline` and written
/// here, atomically — into a temporary file beside FILE, then renamed over it — so FILE is either
/// the old file or the whole new page, never a part.
enum HTMLOutput {
    static let option = OptionSpec.option(
        "--html", "FILE", "also write the timeline as one self-contained HTML page to FILE")

    /// Refuses a destination that cannot be written before the command does anything (a replay
    /// would otherwise have stored its run already): the directory must exist and be writable, and
    /// FILE must not be a directory.
    static func check(_ path: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "--html needs a file name") }
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError(message: "cannot write the HTML page to \(path): directory \(folder) does not exist")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw UsageError(message: "cannot write the HTML page to \(path): directory \(folder) is not writable")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError(message: "cannot write the HTML page to \(path): it is a directory")
        }
    }

    /// Writes `page()` to the invocation's `--html` file, when one was given; nothing otherwise.
    static func write(_ invocation: Invocation, _ page: () throws -> String) throws {
        guard let path = invocation.option("--html") else { return }
        try writeAtomically(Data(try page().utf8), to: path)
    }

    /// The page for one session, for `report --session N --html FILE`.
    static func writeReport(session id: Int64, _ invocation: Invocation) throws {
        try write(invocation) {
            let store = try AuditStore(path: invocation.databasePath, access: .read)
            return HTMLTimeline.report(session: try store.session(id), events: try store.timeline(of: id))
        }
    }

    /// The page of two sessions side by side, for `diff --html` and `replay --html`.
    static func writeComparison(
        _ diff: SessionDiff, _ sides: DifferenceOutput.Sides, heading: String, _ invocation: Invocation
    ) throws {
        try write(invocation) {
            let store = try AuditStore(path: invocation.databasePath, access: .read)
            return HTMLTimeline.comparison(
                diff, eventsA: try store.timeline(of: diff.a.id), eventsB: try store.timeline(of: diff.b.id),
                labels: (sides.a, sides.b), heading: heading)
        }
    }

    /// Writes into a new temporary file in the destination's directory, flushes it, and renames
    /// it over the destination; on any failure the temporary file is removed. The page shows what
    /// the database holds, so like the database it is readable by its owner only (0600).
    static func writeAtomically(_ data: Data, to path: String) throws(HTMLWriteError) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HTMLWriteError(path: path, code: errno) }
        var failure: Int32?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == nil { failure = errno }
        if failure == nil && rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw HTMLWriteError(path: path, code: failure)
        }
    }
}

/// The HTML page could not be written: one line naming the file and the system's reason.
struct HTMLWriteError: Error, CustomStringConvertible {
    let path: String
    let code: Int32

    var description: String { "cannot write the HTML page to \(path): \(String(cString: strerror(code)))" }
}
