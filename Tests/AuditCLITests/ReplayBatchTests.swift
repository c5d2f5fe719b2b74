import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `replay --all` and `replay --noise-runs`, end to end through the built binary.
@Suite("Replay batch and noise")
struct ReplayBatchTests {
    let sandbox: Sandbox

    /// Session 1 recorded with checkout.v1, session 2 with checkout.v2.
    init() throws {
        sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.recordExample(delegate: "checkout.v2")
    }

    @Test func replayAllSumsUpEachRecordedSessionAndSkipsReplays() throws {
        _ = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v1"])  // session 3, a replay
        let run = try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--jobs", "1"])
        expectEqual(run.status, 1, "\(run)")
        expectEqual(run.stderr, "", "no progress when stderr is not a terminal")
        expectEqual(
            run.stdoutLines,
            [
                "session 1 (checkout, recorded with checkout.v1): REGRESSION, 6 differences; stored as session 4",
                "session 2 (checkout, recorded with checkout.v2): identical (19 events); stored as session 5",
                "total: 2 sessions replayed against checkout.v2: 1 identical, 1 with regressions (6 differences)", "",
            ])
    }

    @Test func replayAllJSONAndExitZeroWhenAllIdentical() throws {
        try sandbox.sqlite3("audit.sqlite", "DELETE FROM events WHERE session = 2; DELETE FROM sessions WHERE id = 2")
        let run = try sandbox.run(["replay", "--all", "--delegate", "checkout.v1", "--format", "json"])
        expectEqual(run.status, 0, "\(run)")
        let json = try decodeJSON(run.stdout)
        expectEqual(json["total"]?["sessions"], .int(1))
        expectEqual(json["total"]?["identical"], .int(1))
        expectEqual(
            json["sessions"],
            .array([
                .object([
                    "recorded_session": .int(1), "candidate_session": .int(2), "identical": .bool(true),
                    "differences": .int(0), "noise": .int(0), "error": .null,
                ])
            ]))
    }

    @Test func replayAllShowsProgressOnlyOnATerminal() throws {
        let binary = try Sandbox.binary.get().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = [
            "-qec", "\(binary) replay --all --delegate checkout.v1 --db audit.sqlite >/dev/null", "/dev/null",
        ]
        process.currentDirectoryURL = sandbox.directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let terminal = String(decoding: data, as: UTF8.self)
        #expect(terminal.contains("replaying against checkout.v1: 0/2 sessions, 0 regressions so far"), "\(terminal)")
        #expect(terminal.contains("replaying against checkout.v1: 1/2 sessions, 0 regressions so far, "))
        #expect(terminal.contains("replaying against checkout.v1: 2/2 sessions, 1 regression so far, "))
        #expect(terminal.contains(" sessions/s, about 0 s left"))
    }

    /// Sessions replayed two at a time are reported in session order with the verdicts of one at a
    /// time; only the candidates' ids may differ (they are numbered as the jobs store them).
    @Test func replayAllInParallelReportsWhatOneJobReportsInSessionOrder() throws {
        for _ in 0..<4 { try sandbox.recordExample(delegate: "checkout.v2") }
        try sandbox.recordExample()
        let storedAs = /; stored as session \d+$/
        func verdicts(_ jobs: String) throws -> [String] {
            let run = try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--jobs", jobs])
            expectEqual(run.status, 1, "\(run)")
            return run.stdoutLines.map { $0.replacing(storedAs, with: "") }
        }
        let one = try verdicts("1")
        expectEqual(one.count, 9)
        try expectEqual(verdicts("2"), one)
        try expectEqual(verdicts("3"), one)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("audit.sqlite-wal")), "the jobs truncate the WAL")
        let replays = try ReliabilityTests.sqlite3(
            sandbox.path("audit.sqlite"),
            "SELECT replay_of, count(*), min(status), max(status) FROM sessions WHERE replay_of IS NOT NULL "
                + "GROUP BY replay_of")
        expectEqual(replays, (1...7).map { "\($0)|3|complete|complete" }.joined(separator: "\n"))
    }

    /// `--output-db`: the sessions replayed are copied into another database and their candidates
    /// stored there; the database replayed is only read. Replaying into it again copies nothing twice.
    @Test func replayAllIntoAnotherDatabaseLeavesTheInputAsItWas() throws {
        let files = { try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted() }
        let before = (try files(), try Data(contentsOf: URL(fileURLWithPath: sandbox.path("audit.sqlite"))))
        for _ in 0..<2 {
            let run = try sandbox.run([
                "replay", "--all", "--delegate", "checkout.v2", "--output-db", "shard.sqlite", "--jobs", "1",
            ])
            expectEqual(run.status, 1, "\(run)")
            expectEqual(
                run.stdoutLines.first?.hasPrefix("session 1 (checkout, recorded with checkout.v1): REGRESSION"), true)
        }
        try expectEqual(files(), (before.0 + ["shard.sqlite"]).sorted())
        try expectEqual(Data(contentsOf: URL(fileURLWithPath: sandbox.path("audit.sqlite"))), before.1)
        let stored = try ReliabilityTests.sqlite3(
            sandbox.path("shard.sqlite"),
            "SELECT coalesce(replay_of, 0), delegate, count(*) FROM sessions GROUP BY 1, 2 ORDER BY 1, 2")
        expectEqual(stored, "0|checkout.v1|1\n0|checkout.v2|1\n1|checkout.v2|2\n2|checkout.v2|2")
    }

    @Test func aBadOutputDatabaseIsRefusedAndNothingIsWritten() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.path("audit.sqlite")))
        expectError(
            try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--output-db", "./audit.sqlite"]),
            "--output-db is the database replayed; give another file")
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("link.sqlite"), withDestinationPath: sandbox.path("elsewhere.sqlite"))
        expectError(
            try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--output-db", "link.sqlite"]),
            startingWith: "cannot open link.sqlite")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("elsewhere.sqlite")))
        try sandbox.write("notes.txt", "not a database")
        expectError(
            try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--output-db", "notes.txt"]),
            "cannot open notes.txt: file is not a database (14 bytes, shorter than a SQLite header)")
        try expectEqual(String(contentsOfFile: sandbox.path("notes.txt"), encoding: .utf8), "not a database")
        expectError(
            try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--output-db", "shard.sqlite"]),
            "--jobs and --output-db are for replaying many sessions: give them with --all")
        try expectEqual(Data(contentsOf: URL(fileURLWithPath: sandbox.path("audit.sqlite"))), before)
    }

    @Test(arguments: [
        (["--jobs", "0"], "--jobs takes a positive integer, not '0'"),
        (["--jobs", "two"], "--jobs takes a positive integer, not 'two'"),
        (["--jobs", "257"], "--jobs takes at most 256, not 257"),
    ])
    func aBadJobCountIsRefusedAndNothingIsWritten(_ jobs: [String], _ message: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.path("audit.sqlite")))
        expectError(try sandbox.run(["replay", "--all", "--delegate", "checkout.v2"] + jobs), message)
        expectError(
            try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--jobs", "2"]),
            "--jobs and --output-db are for replaying many sessions: give them with --all")
        try expectEqual(Data(contentsOf: URL(fileURLWithPath: sandbox.path("audit.sqlite"))), before)
    }

    @Test func replayAllAndSessionExcludeEachOther() throws {
        expectError(
            try sandbox.run(["replay", "--all", "--session", "1", "--delegate", "checkout.v2"]),
            "give --session N or --all, not both")
        expectError(try sandbox.run(["replay", "--all"]), "--delegate NAME is required")
    }

    @Test func noiseRunsAgainstADeterministicDelegateFindNoNoise() throws {
        let run = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--noise-runs", "2"])
        expectEqual(run.status, 1, "\(run)")
        #expect(run.stdout.contains("REGRESSION: 6 differences"))
        expectEqual(run.stdoutLines.dropLast().last, "noise: none (2 baseline runs against checkout.v1, sessions 4, 5)")
        let json = try sandbox.run([
            "replay", "--session", "2", "--delegate", "checkout.v2", "--noise-runs", "1", "--format", "json",
        ])
        expectEqual(json.status, 0, "\(json)")
        let value = try decodeJSON(json.stdout)
        expectEqual(value["noise"]?["runs"], .int(1))
        expectEqual(value["noise"]?["differences"], .array([]))
        expectEqual(value["identical"], .bool(true))
    }

    @Test func noiseRunsMustBePositive() throws {
        expectError(
            try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--noise-runs", "0"]),
            "--noise-runs takes a positive integer, not '0'")
    }

    /// Each run stores a whole session: a hundred million would fill the disk (issue 32; that
    /// one is refused in `ArgumentParserTests`, as a build without the bound would run it for
    /// hours). The bound is checked before the database is opened, so nothing is stored.
    @Test(arguments: [["--session", "1"], ["--all"]])
    func noiseRunsAreBounded(_ sessions: [String]) throws {
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(
            try sandbox.run(["replay"] + sessions + ["--delegate", "checkout.v2", "--noise-runs", "101"]),
            "--noise-runs takes at most 100, not 101")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions().count, 2)
    }
}
