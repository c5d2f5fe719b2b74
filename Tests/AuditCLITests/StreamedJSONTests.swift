import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCLI

/// `show --format json` and `diff --format json` write their JSON as they read it, byte for byte
/// what they wrote when they built it whole (the goldens in `Tests/Fixtures/golden/` were written
/// by that build, before the output was streamed).
@Suite("Streamed JSON output", .tags(.slow))
struct StreamedJSONTests {
    /// Session 1: the small checkout with checkout.v1; session 2: its replay with checkout.v2 (which
    /// vetoes, so the diff has differences); session 3: the same tree with no steps. Times, durations
    /// and dates are then set to fixed values, so the output does not depend on the machine. Made
    /// once per test process; each test reads its own copy of the database.
    static func fixedSessions() throws -> Sandbox {
        let folder = try SharedFixtures.folder("streamed-json-fixed-sessions") { folder in
            let sandbox = try Sandbox()
            try sandbox.recordExample()
            let replay = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"])
            guard replay.status == 1 else {
                throw SandboxError(description: "the replay found no regression\n\(replay)")
            }
            let source = try String(
                contentsOf: sandbox.directory.appendingPathComponent("checkout.json"), encoding: .utf8)
            try sandbox.write(
                "empty.json", String(source[..<source.range(of: "\"steps\"")!.lowerBound]) + "\"steps\": []}")
            let empty = try sandbox.run(["record", "--scenario", "empty.json"])
            guard empty.status == 0 else { throw SandboxError(description: "recording no steps failed\n\(empty)") }
            try sandbox.sqlite3(
                "audit.sqlite",
                """
                UPDATE events SET t_ns = seq * 1000000 + 250000, duration_ns = seq * 1000 + 500;
                UPDATE sessions SET started_at = '2026-01-01T00:00:00.000Z', ended_at = '2026-01-01T00:00:01.000Z';
                """)
            guard try sandbox.listing() == ["audit.sqlite", "checkout.json", "empty.json"] else {
                throw SandboxError(description: "the fixed sessions left \(try sandbox.listing())")
            }
            try SharedFixtures.copy(
                sandbox.directory.appendingPathComponent("audit.sqlite"),
                to: folder.appendingPathComponent("audit.sqlite"))
        }
        let sandbox = try Sandbox()
        try SharedFixtures.copy(
            folder.appendingPathComponent("audit.sqlite"), to: sandbox.directory.appendingPathComponent("audit.sqlite"))
        return sandbox
    }

    static let golden = Sandbox.packageRoot.appendingPathComponent("Tests/Fixtures/golden")

    /// Compares with the golden file `name`; with `AUDITCTL_UPDATE_GOLDEN=1` writes it instead
    /// (after a deliberate change of the output, such as another spelling of numbers).
    func expectGolden(_ output: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = Self.golden.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["AUDITCTL_UPDATE_GOLDEN"] == "1" {
            try Data(output.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        expectEqual(output, expected, sourceLocation: sourceLocation)
    }

    @Test func showJSONIsByteIdenticalToTheGolden() throws {
        let sandbox = try Self.fixedSessions()
        for session in ["1", "2", "3"] {
            let run = try sandbox.run(["show", "--session", session, "--format", "json"])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
            try expectGolden(run.stdout, "show-\(session).json")
        }
    }

    @Test func diffJSONIsByteIdenticalToTheGolden() throws {
        let sandbox = try Self.fixedSessions()
        for (a, b) in [("1", "2"), ("2", "1"), ("1", "1"), ("1", "3"), ("3", "3")] {
            let run = try sandbox.run(["diff", a, b, "--format", "json"])
            #expect(run.status == (a == b ? 0 : 1) && run.stderr.isEmpty, "\(run)")
            try expectGolden(run.stdout, "diff-\(a)-\(b).json")
        }
    }

    // MARK: in process: chunks, and the whole value's text

    /// Everything written, one string per write.
    final class Capture {
        var writes: [String] = []
        var output: Output { Output(out: { self.writes.append($0) }, error: { _ in }) }
    }

    /// A database with two sessions of `steps` random checkout steps: one with checkout.v1, one with
    /// checkout.v2 (which vetoes where v1 does not). Recorded once per test process for each
    /// `steps`; the tests only read it.
    static func recordedPair(steps: Int) throws -> String {
        let folder = try SharedFixtures.folder("streamed-json-pair-\(steps)") { folder in
            let database = folder.appendingPathComponent("audit.sqlite").path
            let scenario = try Scenario(
                data: Data(randomCheckoutSource(seed: 12, count: steps).utf8), catalog: .builtIn)
            for delegate in ["checkout.v1", "checkout.v2"] {
                _ = try ScenarioRunner.record(scenario, delegate: delegate, registry: .examples, databasePath: database)
            }
        }
        return folder.appendingPathComponent("audit.sqlite").path
    }

    @Test func showWritesChunksWhoseTextIsTheWholeValue() throws {
        let database = try Self.recordedPair(steps: 2_000)
        let capture = Capture()
        try Command.showSession(1, database, .json, capture.output)
        #expect(capture.writes.count >= 3, "\(capture.writes.count) writes")
        #expect(capture.writes.allSatisfy { $0.utf8.count < 65_536 + 4_096 })
        let store = try AuditStore(path: database, access: .read)
        let whole = AuditValue.object([
            "session": Command.sessionValue(try store.session(1)),
            "events": .array(try store.timeline(of: 1).map(Command.eventValue)),
        ])
        expectEqual(capture.writes.joined(), whole.json + "\n")
    }

    @Test func diffWritesChunksWhoseTextIsTheWholeValue() throws {
        let database = try Self.recordedPair(steps: 2_000)
        let store = try AuditStore(path: database, access: .read)
        for (a, b) in [(Int64(1), Int64(2)), (2, 1), (1, 1)] {
            let diff = try SessionDiffer(store).diff(a, b)
            let comparison = try SessionDiffer(store).compare(a, b)
            #expect(comparison.identical == diff.identical && comparison.counts == diff.counts)
            let capture = Capture()
            try Command.writeJSON(
                identical: comparison.identical, DifferenceOutput.summary(comparison), to: capture.output
            ) { body throws(StoreError) in try SessionDiffer(store).forEachDifference(in: comparison, body) }
            let whole = orderedJSON([
                ("identical", .bool(diff.identical)),
                ("differences", .array(diff.differences.map(DifferenceOutput.json))),
                ("summary", DifferenceOutput.summary(diff)),
            ])
            expectEqual(capture.writes.joined(), whole + "\n")
            if a != b {
                #expect(diff.differences.count > 100, "too few differences to test chunks")
                #expect(capture.writes.count >= 2, "\(capture.writes.count) writes")
            }
        }
    }

    @Test(arguments: [1, 7, 500, 100_000])
    func differencesReadInChunksAreTheDiffsInOrder(chunk: Int) throws {
        let database = try Self.recordedPair(steps: 300)
        let store = try AuditStore(path: database, access: .read)
        var streamed: [EventDifference] = []
        try SessionDiffer(store).forEachDifference(in: try SessionDiffer(store).compare(2, 1), chunk: chunk) {
            streamed.append($0)
        }
        expectEqual(streamed, (try SessionDiffer(store).diff(2, 1)).differences)
        #expect(!streamed.isEmpty)
    }

    // MARK: memory, through the real process

    /// The JSON of a large session takes no more memory than its text, give or take a quarter
    /// (before streaming, `show --format json` took 4 times as much as text, `diff` 3.9 times:
    /// CommandLineReference gives the figures). Peaks are compared with each other, measured by
    /// `/usr/bin/time` for each process alone, so machine load does not enter.
    @Test(
        "show and diff --format json take no more memory than text on a large session",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"))
    func jsonPeakMemoryAgainstText() throws {
        let sandbox = try Sandbox()
        try sandbox.write("large.json", randomCheckoutSource(seed: 5, count: 10_000))
        for delegate in ["checkout.v1", "checkout.v2"] {
            let run = try sandbox.run(["record", "--scenario", "large.json", "--delegate", delegate])
            expectEqual(run.status, 0, "\(run)")
        }
        // Each command line is measured once: session 1's JSON is also the small end of the growth
        // below (running it again, the slowest of the runs, measured the same process again).
        var measured: [[String]: (Run, Int)] = [:]
        func peakMemory(_ arguments: [String]) throws -> (Run, Int) {
            if let known = measured[arguments] { return known }
            let measure = try HostileInputTests.peakMemory(sandbox, arguments)
            measured[arguments] = measure
            return measure
        }
        for command in [["show", "--session", "1"], ["diff", "1", "2"]] {
            let (text, textPeak) = try peakMemory(command)
            let (json, jsonPeak) = try peakMemory(command + ["--format", "json"])
            #expect(text.status == json.status && json.stdout.utf8.count > 4_000_000, "\(command)")
            #expect(jsonPeak * 4 <= textPeak * 5, "\(command): json \(jsonPeak) KiB, text \(textPeak) KiB")
        }
        // And on their own: a session two and a half times as long, and what `show` prints, as
        // JSON, text or CSV, grows by more than twice what its peak grows by (held whole, the peak
        // would grow by at least as much). `diff` is held to text only: both hold a fingerprint per
        // event to align the sessions.
        try sandbox.write("larger.json", randomCheckoutSource(seed: 5, count: 25_000))
        try expectEqual(sandbox.run(["record", "--scenario", "larger.json"]).status, 0)
        for format in ["json", "text", "csv"] {
            let (small, smallPeak) = try peakMemory(["show", "--session", "1", "--format", format])
            let (large, largePeak) = try peakMemory(["show", "--session", "3", "--format", format])
            let grown = (large.stdout.utf8.count - small.stdout.utf8.count) / 1024
            #expect(grown > 2_000, "\(format): the output grew by \(grown) KiB")
            #expect(
                (largePeak - smallPeak) * 2 < grown,
                "\(format): peak \(smallPeak) → \(largePeak) KiB, output +\(grown) KiB")
        }
    }
}
