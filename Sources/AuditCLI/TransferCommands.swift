import AuditCore
import Foundation

extension Command {
    static let export: Command = Command(
        name: "export", summary: "write sessions as JSON Lines, to keep in git or move between databases",
        arguments: "[--session N] [--output FILE]",
        options: [
            Options.session.withHelp("only this session (default: every session)"), Options.exportOutput,
        ],
        positionals: 0...0, formats: [.text],
        discussion: """
            Writes sessions as JSON Lines: a header line per session, one line per widget and event. The
            file imports again byte for byte, so baselines can live in git.
            """,
        examples: { _ in
            [
                "export --output baselines.jsonl",
                "export --session 3 --output session-3.jsonl",
            ]
        }
    ) { invocation in
        let id = try invocation[Options.session]
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        if let id { _ = try store.session(id) }
        if let path = try invocation[Options.exportOutput] {
            try OutputFile.write(to: path, what: "the export") { write in
                try store.export(sessions: id.map { [$0] }) { write($0 + "\n") }
            }
        } else {
            var writer = ChunkedWriter(invocation.output)
            try store.export(sessions: id.map { [$0] }) { writer.append($0 + "\n") }
            writer.flush()
        }
        return ExitStatus.success
    }

    static let `import`: Command = Command(
        name: "import", summary: "add the sessions of an export (JSON Lines) to the database", arguments: "FILE",
        options: [], positionals: 1...1, formats: [.text, .json],
        discussion: """
            Adds the sessions of an export to the database in one transaction, renumbered; a session
            already there (by UUID) is skipped, and a damaged file imports nothing.
            """,
        examples: { _ in
            [
                "import baselines.jsonl",
                "import baselines.jsonl --db fresh.sqlite --format json",
            ]
        }
    ) { invocation in
        let path = invocation.parsed.positionals[0]
        let lines = try LineReader(path: path)
        let database = invocation.databasePath
        let existed = FileManager.default.fileExists(atPath: database)
        let outcome = Result { () throws -> SessionTransfer.Imported in
            let store = try AuditStore(path: database, access: .write)
            return try store.importSessions(lineBytes: lines.forEachLine)
        }  // the store is closed here
        let imported: SessionTransfer.Imported
        do {
            imported = try outcome.get()
        } catch {
            // A database made for this import holds nothing: it goes too.
            if !existed { for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) } }
            guard let error = error as? SessionTransfer.ImportError else { throw error }
            throw UsageError(message: "\(path): \(error); nothing was imported")
        }
        if let failure = lines.failure { throw UsageError(message: "cannot read \(path): \(failure)") }
        if invocation.format == .json {
            invocation.output.line(
                orderedJSON([
                    ("imported", .array(imported.sessions.map { .int(Int($0)) })),
                    ("skipped", .array(imported.skipped.map(AuditValue.string))),
                ]))
        } else {
            let ids = imported.sessions.map(String.init).joined(separator: ", ")
            invocation.output.line(
                "imported \(counted(imported.sessions.count, "session"))"
                    + (ids.isEmpty ? "" : " as \(ids)")
                    + (imported.skipped.isEmpty ? "" : "; skipped \(imported.skipped.count) already in the database"))
        }
        return ExitStatus.success
    }
}

extension Command {
    static let merge: Command = Command(
        name: "merge", summary: "copy the sessions of other databases into one (shards, devices, branches)",
        arguments: "SOURCE... --into TARGET",
        options: [Options.into],
        positionals: 1...1_000, formats: [.text, .json],
        discussion: """
            Copies every session of other databases into one, each source in one transaction: renumbered,
            replay links kept, a session already there (by UUID) skipped. The collecting step of sharded CI.
            """,
        examples: { _ in
            [
                "merge shard-1.sqlite shard-2.sqlite --into merged.sqlite",
                "merge device-*.sqlite --into all.sqlite --format json",
            ]
        }
    ) { invocation in
        let target = try invocation.required(Options.into)
        let sources = invocation.parsed.positionals
        for source in sources where isSameFile(source, target) {
            throw UsageError(message: "\(source) is the target itself; merge other databases into it")
        }
        // Every source is opened (and checked) before the target is touched.
        let stores = try sources.map { try AuditStore(path: $0, access: .read) }
        let into = try AuditStore(path: target, access: .write)
        var results: [AuditValue] = []
        for (source, store) in zip(sources, stores) {
            // One transaction per source: a source that fails adds nothing.
            let imported: SessionTransfer.Imported
            do {
                imported = try into.mergeSessions(from: store)
            } catch let error as SessionTransfer.ImportError {
                throw UsageError(message: "\(source): \(error); nothing of it was merged")
            }
            results.append(
                .object([
                    "source": .string(source), "merged": .array(imported.sessions.map { .int(Int($0)) }),
                    "skipped": .int(imported.skipped.count),
                ]))
            if invocation.format == .text {
                invocation.output.line(
                    "\(source.visiblyEscaped()): merged \(counted(imported.sessions.count, "session"))"
                        + (imported.sessions.isEmpty
                            ? "" : " as \(imported.sessions.map(String.init).joined(separator: ", "))")
                        + (imported.skipped.isEmpty ? "" : "; skipped \(imported.skipped.count) already there"))
            }
        }
        if invocation.format == .json { invocation.output.line(AuditValue.array(results).json) }
        return ExitStatus.success
    }
}

extension Options {
    /// `export --output FILE`.
    static let exportOutput = output(writing: "the export", "write here (default: standard output)")
    /// `merge --into TARGET`: the database merged into; an empty path is none.
    static let into = Option<String>("--into", "TARGET", "the database to copy into (made when missing)") {
        text, name throws(UsageError) in
        guard !text.isEmpty else { throw UsageError(message: "\(name) TARGET is required") }
        return text
    }
}

extension Command {
    /// Whether two paths name the same file, links resolved.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        let resolved = { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path }
        return resolved(first) == resolved(second)
    }
}

/// The lines of a file, read in chunks of 1 MB: memory does not grow with the file (a line
/// longer than a chunk grows it). A line is what comes before a line feed; a last line without
/// one counts too.
final class LineReader {
    private let descriptor: Int32
    /// Why reading stopped early, if it did.
    private(set) var failure: String?

    init(path: String) throws(UsageError) {
        var info = stat()
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.notAFile(path) }
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Self.notAFile(path)
        }
        self.descriptor = descriptor
    }

    private static func notAFile(_ path: String) -> UsageError {
        UsageError(message: "cannot read \(path): no such file, or not a regular file")
    }

    deinit { close(descriptor) }

    /// Calls `body` with each line's bytes, valid during the call, in file order.
    func forEachLine(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        var finished = false
        while !finished {
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                return
            }
            finished = count == 0
            filled += count
            let used = try buffer.withUnsafeBytes { bytes in
                var start = 0
                while start < filled {
                    guard let feed = memchr(bytes.baseAddress! + start, Int32(UInt8(ascii: "\n")), filled - start)
                    else {
                        break
                    }
                    let end = bytes.baseAddress!.distance(to: UnsafeRawPointer(feed))
                    try body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                    start = end + 1
                }
                if finished, start < filled {
                    try body(UnsafeRawBufferPointer(rebasing: bytes[start..<filled]))
                    start = filled
                }
                return start
            }
            buffer.withUnsafeMutableBytes { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + used, filled - used)
            }
            filled -= used
        }
    }
}
