import AuditCore
import AuditExamples
import CSQLite
import Foundation

/// A checkout scenario with `steps` random taps and selections on its segmented controls.
func largeCheckout(steps: Int) throws -> Scenario {
    var random = SystemRandomNumberGenerator()
    let lines = (0..<steps).map { _ -> String in
        let widget = Bool.random(using: &random) ? "checkout/shipping" : "checkout/payment"
        let segment = Int.random(in: 0..<3, using: &random)
        if Int.random(in: 0..<4, using: &random) == 0 {
            return #"{"action":"selectSegment","widget":"\#(widget)","segment":\#(segment),"notify":true}"#
        }
        return #"{"action":"tapSegment","widget":"\#(widget)","segment":\#(segment)}"#
    }
    let example = String(decoding: Examples.scenarios["checkout"]!, as: UTF8.self)
    let start = example.range(of: "\"steps\": [")!
    let text = example[..<start.upperBound] + lines.joined(separator: ",\n") + "]\n}\n"
    return try Scenario(data: Data(text.utf8), catalog: .builtIn)
}

/// Callbacks per second replayed, in each mode, against the delegate that recorded the session: end
/// to end (load, run, store, compare), and the isolated run phase alone; and the floor of any
/// replay that stores its candidate's events row by row: SQLite copying the recorded session's
/// rows with one `INSERT … SELECT` in one transaction, as callbacks of the session per second.
func measureReplay(steps: Int, database: String) throws -> (
    isolated: Double, interaction: Double, isolatedRun: Double, copyFloor: Double, callbacks: Int
) {
    let summary = try ScenarioRunner.record(
        try largeCheckout(steps: steps), delegate: "checkout.v1", registry: .examples, databasePath: database)
    let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
    var rates: [ReplayMode: Double] = [:]
    var isolatedRun = 0.0
    for mode in [ReplayMode.isolated, .interaction] {
        let start = now()
        let report = try replayer.replay(session: summary.session, delegate: "checkout.v1", mode: mode)
        let elapsed = Double(now() - start) / 1e9
        precondition(report.identical, "a replay against the recording delegate is identical")
        rates[mode] = Double(summary.callbacks) / elapsed
        if mode == .isolated { isolatedRun = Double(summary.callbacks) / report.timings.run }
        let phases = report.timings
        log(
            String(
                format: "    %@: load %.0f ms, run %.0f ms, store %.0f ms, compare %.0f ms", mode.rawValue,
                phases.load * 1e3, phases.run * 1e3, phases.store * 1e3, phases.compare * 1e3))
    }
    let copy = try measureCopy(session: summary.session, database: database)
    return (rates[.isolated]!, rates[.interaction]!, isolatedRun, Double(summary.callbacks) / copy, summary.callbacks)
}

/// Seconds SQLite takes to copy session `session`'s event rows as a new session, with the raw C
/// API: one `INSERT … SELECT`, one transaction, committed (the copy isolated replay makes).
func measureCopy(session: Int64, database: String) throws -> Double {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(database, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
        fatalError("cannot open \(database)")
    }
    defer { sqlite3_close_v2(db) }
    sqlite3_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -131072", nil, nil, nil)
    let start = now()
    let code = sqlite3_exec(
        db,
        """
        BEGIN IMMEDIATE;
        INSERT INTO events SELECT (SELECT max(session) + 1 FROM events), seq, t_ns, widget, callback, args, result,
                                  vetoed, implemented, 0, parent_seq, overridden, later, answers
        FROM events WHERE session = \(session) ORDER BY seq;
        COMMIT;
        """, nil, nil, nil)
    precondition(code == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
    return Double(now() - start) / 1e9
}

/// Answers like `EvenOnly`, except for the values in `flipped`.
final class EvenOnlyExcept: ProbeDelegate {
    let flipped: Set<Int>
    init(flipped: Set<Int>) { self.flipped = flipped }
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool { (value & 1 == 0) != flipped.contains(value) }
}

/// Records one probe session of `calls` callbacks with `delegate`; returns its id.
func recordProbeSession(calls: Int, database: String, delegate: any ProbeDelegate) throws -> Int64 {
    let probe = Probe(identifier: "probe")
    probe.delegate = delegate
    let recorder = try Recorder(
        databasePath: database, session: NewSession(scenario: "bench", source: "{}", delegate: "bench"),
        catalog: .builtIn)
    try recorder.attach(to: probe)
    for value in 0..<calls { _ = probe.ask(value) }
    return recorder.finish().session
}

/// Seconds SQLite takes to read every event row of `sessions`, in order, with the raw C API (each
/// row's identity, arguments and answer columns read): the least any comparison of those sessions
/// reads, the diff's baseline.
func measureScan(database: String, sessions: [Int64]) throws -> Double {
    let db = try openRaw(database)
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(
        db, "SELECT seq, widget, callback, args, result, vetoed FROM events WHERE session = ? ORDER BY seq", -1,
        &statement, nil)
    defer { sqlite3_finalize(statement) }
    var sink: Int64 = 0
    let start = now()
    for session in sessions {
        sqlite3_bind_int64(statement, 1, session)
        while sqlite3_step(statement) == SQLITE_ROW {
            sink &+=
                sqlite3_column_int64(statement, 0) &+ sqlite3_column_int64(statement, 1)
                &+ sqlite3_column_int64(statement, 2) &+ Int64(sqlite3_column_bytes(statement, 3))
                &+ sqlite3_column_int64(statement, 4) &+ sqlite3_column_int64(statement, 5)
        }
        sqlite3_reset(statement)
    }
    precondition(sink != 0, "the sessions hold events")
    return Double(now() - start) / 1e9
}

/// Builds a database of `sessions` × `perSession` events with the raw C API (10 widgets per
/// session, one event in 47 vetoed), for the query figure.
func buildLargeDatabase(_ database: String, sessions: Int, perSession: Int) throws {
    _ = try AuditStore(path: database, access: .write)
    var handle: OpaquePointer?
    sqlite3_open_v2(database, &handle, SQLITE_OPEN_READWRITE, nil)
    defer { sqlite3_close_v2(handle) }
    sqlite3_exec(handle, "PRAGMA synchronous = OFF; BEGIN", nil, nil, nil)
    sqlite3_exec(
        handle, "INSERT INTO callbacks (kind, protocol, name) VALUES ('callback', 'ProbeDelegate', 'probe')", nil, nil,
        nil)
    var event: OpaquePointer?
    sqlite3_prepare_v2(
        handle,
        "INSERT INTO events (session, seq, t_ns, widget, callback, args, result, vetoed, implemented, duration_ns, "
            + "parent_seq) VALUES (?, ?, ?, ?, 1, ?, ?, ?, 1, 40, NULL)", -1, &event, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    for session in 1...sessions {
        sqlite3_exec(
            handle,
            "INSERT INTO sessions (id, scenario, scenario_source, delegate, started_at, status) "
                + "VALUES (\(session), 'bench', '{}', 'bench', 'now', 'complete')", nil, nil, nil)
        for widget in 1...10 {
            sqlite3_exec(
                handle, "INSERT INTO widgets VALUES (\(session), \(widget), 'probe/w\(widget)', 'Probe', NULL)", nil,
                nil,
                nil)
        }
        for seq in 1...perSession {
            let vetoed = seq % 47 == 0  // spread over the ten widgets
            sqlite3_bind_int64(event, 1, Int64(session))
            sqlite3_bind_int64(event, 2, Int64(seq))
            sqlite3_bind_int64(event, 3, Int64(seq) * 1_000)
            sqlite3_bind_int64(event, 4, Int64(seq % 10 + 1))
            sqlite3_bind_text(event, 5, "[\(seq)]", -1, transient)
            sqlite3_bind_int64(event, 6, vetoed ? 0 : 1)
            sqlite3_bind_int64(event, 7, vetoed ? 1 : 0)
            sqlite3_step(event)
            sqlite3_reset(event)
        }
    }
    sqlite3_finalize(event)
    sqlite3_exec(handle, "COMMIT", nil, nil, nil)
    sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
}

/// Milliseconds for "the vetoes of one widget in one session" through `auditctl query`'s engine
/// (the `timeline` view, opened read-only), each time right after its baseline: the same rows read
/// from the `events` table with the raw C API through the same index, by a connection opened for it.
func measureQuery(_ database: String, session: Int) throws -> (
    milliseconds: [Double], baseline: [Double], plan: String, rows: Int
) {
    let sql = "SELECT seq, args FROM timeline WHERE session = \(session) AND widget = 'probe/w3' AND vetoed"
    let raw = """
        SELECT e.seq, e.args FROM events e JOIN widgets w ON w.session = e.session AND w.id = e.widget
        WHERE e.session = \(session) AND w.path = 'probe/w3' AND e.vetoed
        """
    var rows = 0
    var baseline: [Double] = []
    let times = try (0..<7).map { _ -> Double in
        let rawStart = now()
        var handle: OpaquePointer?
        sqlite3_open_v2(database, &handle, SQLITE_OPEN_READONLY, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, raw, -1, &statement, nil)
        var rawRows = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            rawRows += sqlite3_column_bytes(statement, 1) >= 0 ? 1 : 0
        }
        sqlite3_finalize(statement)
        sqlite3_close_v2(handle)
        baseline.append(Double(now() - rawStart) / 1e6)
        let start = now()
        rows = try ReadOnlyQuery.run(sql, databasePath: database).rows.count
        precondition(rows == rawRows && rows > 0, "the query and its baseline read the same rows")
        return Double(now() - start) / 1e6
    }
    let plan = try ReadOnlyQuery.run("EXPLAIN QUERY PLAN " + sql, databasePath: database).rows
        .map { row in row.last.map { if case .text(let text) = $0 { text } else { "" } } ?? "" }
        .joined(separator: "\n")
    return (times, baseline, plan, rows)
}
