import AuditCore
import AuditExamples
import CSQLite
import Foundation

/// A corpus of `sessions` recordings of `scenario` (the shipped checkout example unless given):
/// recorded once with checkout.v1, then copied with SQL (each copy a session of its own, with its
/// own UUID). Returns the callbacks and events each session holds.
func buildCorpus(sessions: Int, database: String, of scenario: Scenario? = nil) throws -> (callbacks: Int, events: Int)
{
    let summary = try ScenarioRunner.record(
        try scenario ?? Examples.checkout(), delegate: "checkout.v1", registry: .examples, databasePath: database)
    let db = try openRaw(database)
    defer { sqlite3_close_v2(db) }
    /// `table`'s columns, with `session` (or `id`, in `sessions`) given as `?1` in the SELECT list.
    func copy(_ table: String, key: String, from source: Int64) -> String {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('\(table)')", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var columns: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            columns.append(String(cString: sqlite3_column_text(statement, 0)))
        }
        let selected = columns.map { $0 == key ? "?1" : $0 == "uuid" ? "?2" : $0 }
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) "
            + "FROM \(table) WHERE \(key) = \(source)"
    }
    let statements = [
        copy("sessions", key: "id", from: summary.session), copy("widgets", key: "session", from: summary.session),
        copy("events", key: "session", from: summary.session),
    ]
    .map { sql -> OpaquePointer in
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        return statement!
    }
    defer { statements.forEach { sqlite3_finalize($0) } }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    for copy in 1..<Int64(sessions) {
        for statement in statements {
            sqlite3_bind_int64(statement, 1, summary.session + copy)
            sqlite3_bind_text(statement, 2, UUID().uuidString.lowercased(), -1, transient)
            precondition(sqlite3_step(statement) == SQLITE_DONE, String(cString: sqlite3_errmsg(db)))
            sqlite3_reset(statement)
        }
    }
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    return (summary.callbacks, summary.events)
}

/// Seconds SQLite takes to copy every row of `source` into `target` (a new database with the
/// schema), with the raw C API: one `INSERT … SELECT` per table, one transaction; until `COMMIT`,
/// and until the database is closed (its write-ahead log checkpointed into the file and removed,
/// as at the end of every `auditctl` command). The floor of any copy of sessions between
/// databases.
func measureDatabaseCopy(from source: String, into target: String) throws -> (committed: Double, closed: Double) {
    _ = try AuditStore(path: target, access: .write)
    let db = try openRaw(target)
    let start = now()
    let code = sqlite3_exec(
        db,
        """
        ATTACH '\(source)' AS source;
        BEGIN IMMEDIATE;
        INSERT INTO sessions SELECT * FROM source.sessions;
        INSERT INTO session_labels SELECT * FROM source.session_labels;
        INSERT INTO callbacks SELECT * FROM source.callbacks;
        INSERT INTO widgets SELECT * FROM source.widgets;
        INSERT INTO events SELECT * FROM source.events;
        COMMIT;
        """, nil, nil, nil)
    precondition(code == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
    let committed = now()
    precondition(sqlite3_close_v2(db) == SQLITE_OK, "close")
    return (Double(committed - start) / 1e9, Double(now() - start) / 1e9)
}

func openRaw(_ database: String) throws -> OpaquePointer {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(database, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
        fatalError("cannot open \(database)")
    }
    sqlite3_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -131072", nil, nil, nil)
    return db
}

/// Runs `auditctl` (built beside this benchmark) as a child of its own and returns its wall time,
/// its own peak resident memory, its exit status and, when `output` is set, what it printed
/// (otherwise its output goes nowhere).
///
/// The peak is the one GNU `time` reads for its child. A child this process spawned itself would
/// not do: it starts as a copy sharing this process's memory (`posix_spawn` clones it), and the
/// kernel keeps the larger peak across `exec`, so `wait4` would report this benchmark's own peak.
/// `time` is small, and its child's peak is the command's.
func spawnAuditctl(_ arguments: [String], output: Bool = false) -> (
    seconds: Double, peakMB: Double, status: Int32, output: String
) {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appending(path: "auditctl").path
    let peakFile = FileManager.default.temporaryDirectory.appending(path: "auditbench-peak-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: peakFile) }
    let argv = ([timeBinary, "-f", "%M", "-o", peakFile, binary] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pipe: [Int32] = [-1, -1]
    if output { precondition(Glibc.pipe(&pipe) == 0, "pipe") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if output {
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
    } else {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
    let start = now()
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, timeBinary, &actions, nil, argv, environ)
    precondition(spawned == 0, "cannot run \(timeBinary): \(String(cString: strerror(spawned)))")
    var printed: [UInt8] = []
    if output {
        close(pipe[1])
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            printed.append(contentsOf: buffer[..<count])
        }
        close(pipe[0])
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = Double(now() - start) / 1e9
    let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    // The last line `time` wrote: the child's peak in kilobytes.
    let kilobytes = (try? String(contentsOfFile: peakFile, encoding: .utf8))?.split(separator: "\n").last
        .flatMap { Double($0) }
    precondition(kilobytes != nil, "\(timeBinary) reported no peak for \(arguments.first ?? "")")
    return (elapsed, kilobytes! / 1024, exited, String(decoding: printed, as: UTF8.self))
}

/// GNU `time`, which runs every `auditctl` child and reads its peak resident memory.
let timeBinary = "/usr/bin/time"
