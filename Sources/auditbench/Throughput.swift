import AuditCore
import CSQLite
import Foundation

/// Audited callbacks per second, end to end: from the first call until everything is committed.
func measureAudited(calls: Int, database: String) throws -> Double {
    let probe = Probe(identifier: "probe")
    let delegate = EvenOnly()
    probe.delegate = delegate
    let recorder = try Recorder(
        databasePath: database, session: NewSession(scenario: "bench", source: "{}", delegate: "bench"),
        catalog: .builtIn)
    try recorder.attach(to: probe)
    let start = now()
    var sink = 0
    for value in 0..<calls where probe.ask(value) { sink &+= 1 }
    let summary = recorder.finish()
    let elapsed = now() - start
    precondition(summary.events == calls && summary.failedWrites == 0 && sink == (calls + 1) / 2)
    return Double(calls) / (Double(elapsed) / 1e9)
}

/// A raw C-API peer: the same rows into the same table, one prepared statement, one transaction.
func measureRawBaseline(rows: Int, database: String) throws -> Double {
    _ = try AuditStore(path: database, access: .write)  // the same schema, made the usual way
    var handle: OpaquePointer?
    guard sqlite3_open_v2(database, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
        fatalError("cannot open \(database)")
    }
    defer { sqlite3_close_v2(db) }
    sqlite3_exec(db, "PRAGMA synchronous = NORMAL", nil, nil, nil)
    sqlite3_exec(
        db, "INSERT INTO sessions (scenario, scenario_source, delegate, started_at) VALUES ('raw', '{}', 'raw', 'now')",
        nil, nil, nil)
    sqlite3_exec(
        db, "INSERT INTO callbacks (kind, protocol, name) VALUES ('callback', 'ProbeDelegate', 'probe')", nil, nil, nil)
    let session = sqlite3_last_insert_rowid(db)
    let start = now()
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    var statement: OpaquePointer?
    sqlite3_prepare_v2(
        db,
        "INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns, "
            + "parent_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    for row in 0..<rows {
        let accepted = row & 1 == 0
        let args = "[\(row)]"
        sqlite3_bind_int64(statement, 1, session)
        sqlite3_bind_int64(statement, 2, Int64(row + 1))
        sqlite3_bind_int64(statement, 3, now() - start)
        sqlite3_bind_int64(statement, 4, 1)
        sqlite3_bind_int64(statement, 5, 1)
        sqlite3_bind_text(statement, 6, args, -1, transient)
        sqlite3_bind_int64(statement, 7, accepted ? 1 : 0)
        sqlite3_bind_int64(statement, 8, accepted ? 0 : 1)
        sqlite3_bind_int64(statement, 9, 1)
        sqlite3_bind_int64(statement, 10, 40)
        sqlite3_bind_null(statement, 11)
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }
    sqlite3_finalize(statement)
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    return Double(rows) / (Double(now() - start) / 1e9)
}

/// The naive peer: one `JSONEncoder` per event and one autocommit `INSERT` per event; its events
/// per second, and the bytes its table takes per event (from `dbstat`, after a truncating
/// checkpoint), the size figure's baseline.
func measureNaive(events: Int, database: String) throws -> (rate: Double, bytes: Double) {
    struct NaiveEvent: Encodable {
        let seq: Int
        let widget: String
        let callback: String
        let arguments: [String: Int]
        let result: Bool
    }
    var handle: OpaquePointer?
    guard sqlite3_open_v2(database, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
        let db = handle
    else { fatalError("cannot open \(database)") }
    defer { sqlite3_close_v2(db) }
    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nil, nil, nil)
    sqlite3_exec(db, "CREATE TABLE log (event TEXT NOT NULL)", nil, nil, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let start = now()
    for seq in 0..<events {
        let event = NaiveEvent(
            seq: seq + 1, widget: "probe", callback: "probe(_:shouldAccept:)", arguments: ["value": seq],
            result: seq & 1 == 0)
        let text = String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO log (event) VALUES (?)", -1, &statement, nil)
        sqlite3_bind_text(statement, 1, text, -1, transient)
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_finalize(statement)
    }
    let rate = Double(events) / (Double(now() - start) / 1e9)
    sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'log'", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    let bytes = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_double(statement, 0) : 0
    return (rate, bytes / Double(events))
}

/// Bytes per event on disk after a truncating checkpoint: the events table alone (from
/// `dbstat`), and the whole file.
func measureSize(database: String) -> (table: Double, file: Double) {
    var handle: OpaquePointer?
    sqlite3_open_v2(database, &handle, SQLITE_OPEN_READWRITE, nil)
    defer { sqlite3_close_v2(handle) }
    sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    func scalar(_ sql: String) -> Double {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_double(statement, 0) : 0
    }
    let events = scalar("SELECT count(*) FROM events")
    let table = scalar("SELECT sum(pgsize) FROM dbstat WHERE name = 'events'")
    let file = scalar("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
    return (table / events, file / events)
}
