import AuditCore
import Foundation
import Testing

/// `show --format json` and `diff --format json` write their JSON as they read it, byte for byte
/// what they wrote when they built it whole (the goldens in `Tests/Fixtures/golden/` were written
/// by that build, before the output was streamed).
@Suite("Streamed JSON output")
struct StreamedJSONTests {
    /// Session 1: the small checkout with checkout.v1; session 2: its replay with checkout.v2 (which
    /// vetoes, so the diff has differences); session 3: the same tree with no steps. Times, durations and dates are then set to fixed values,
    /// so the output does not depend on the machine.
    static func fixedSessions() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let replay = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"])
        guard replay.status == 1 else { throw SandboxError(description: "the replay found no regression\n\(replay)") }
        let source = try String(contentsOf: sandbox.directory.appendingPathComponent("checkout.json"), encoding: .utf8)
        try sandbox.write("empty.json", String(source[..<source.range(of: "\"steps\"")!.lowerBound]) + "\"steps\": []}")
        let empty = try sandbox.run(["record", "--scenario", "empty.json"])
        guard empty.status == 0 else { throw SandboxError(description: "recording no steps failed\n\(empty)") }
        try sandbox.sqlite3(
            "audit.sqlite",
            """
            UPDATE events SET t_ns = seq * 1000000 + 250000, duration_ns = seq * 1000 + 500;
            UPDATE sessions SET started_at = '2026-01-01T00:00:00.000Z', ended_at = '2026-01-01T00:00:01.000Z';
            """)
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
        #expect(output == expected, sourceLocation: sourceLocation)
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
}
