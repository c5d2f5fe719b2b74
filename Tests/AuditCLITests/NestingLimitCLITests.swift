import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// Delegates that nest inputs deeper than `InputNesting.limit`, through the real binaries: one line
/// on stderr, exit 2, nothing stored when recording; a replay whose candidate nests deeper than the
/// recording reports the difference and never crashes. `my-auditctl` registers the `linked`
/// delegate (`LinkedControlsDelegate`), which selects in the next control from `didSelect`.
@Suite("Nesting limit from the command line", .tags(.slow))
struct NestingLimitCLITests {
    /// A row of `count` controls and one tap on the first (`NestingLimitTests.chain` in AuditCore's tests).
    static func chain(_ count: Int, delegate: String = "linked") -> String {
        let controls = (0..<count).map { index in
            #"{"kind":"SegmentedControl","id":"c\#(index)","frame":[0,\#(index),100,1],"segments":["a","b"],"selected":0}"#
        }
        return #"""
            {"name":"chain","delegate":"\#(delegate)","root":{"kind":"View","id":"root","frame":[0,0,100,\#(count)],
             "children":[\#(controls.joined(separator: ","))]},
             "steps":[{"action":"tapSegment","widget":"root/c0","segment":1}]}
            """#
    }

    static let refusal =
        "chain.json: steps[0]: input selectSegment on root/c32 would nest 33 inputs deep, past the limit of 32 "
        + "(delegates that drive widgets from inside their callbacks)"

    @Test(arguments: [33, 3000])
    func recordingPastTheLimitFailsWithOneLineAndStoresNothing(controls: Int) throws {
        let sandbox = try Sandbox()
        try sandbox.write("chain.json", Self.chain(controls))
        let run = try sandbox.run(["record", "--scenario", "chain.json"], program: "my-auditctl")
        expectError(run.replacingProgram(), Self.refusal)
        #expect(!sandbox.exists("audit.sqlite"))
    }

    @Test func aDatabaseThatHoldsSessionsIsLeftUnchanged() throws {
        let sandbox = try Sandbox()
        try sandbox.write("chain.json", Self.chain(3000))
        try sandbox.write("short.json", Self.chain(InputNesting.limit))
        let first = try sandbox.run(["record", "--scenario", "short.json"], program: "my-auditctl")
        expectEqual(first.status, 0, "\(first)")
        let before = sandbox.bytes("audit.sqlite")
        let run = try sandbox.run(
            ["record", "--scenario", "chain.json", "--format", "json"], program: "my-auditctl")
        expectError(run.replacingProgram(), Self.refusal)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        let sessions = try sandbox.run(["sessions", "--format", "csv"], program: "my-auditctl")
        expectEqual(sessions.stdoutLines.filter { !$0.isEmpty }.count, 2, "\(sessions)")  // the header and session 1
    }

    @Test func aChainAtTheLimitIsRecordedAndReplaysIdentically() throws {
        let sandbox = try Sandbox()
        try sandbox.write("chain.json", Self.chain(InputNesting.limit))
        let record = try sandbox.run(
            ["record", "--scenario", "chain.json", "--format", "json"], program: "my-auditctl")
        expectEqual(record.status, 0, "\(record)")
        #expect(record.stdout.contains(#""events":\#(3 * InputNesting.limit)"#), "\(record)")
        for mode in [[], ["--isolated"]] {
            let replay = try sandbox.run(
                ["replay", "--session", "1", "--delegate", "linked"] + mode, program: "my-auditctl")
            expectEqual(replay.status, 0, "\(replay)")
        }
    }

    /// Recorded with a delegate that does not cascade, replayed against `linked` on a 100-control
    /// row: the candidate's inputs stop at the limit, as they would if it were recorded, and the
    /// replay reports the difference (exit 1) in both modes.
    @Test(arguments: [[], ["--isolated"]])
    func aCandidateThatNestsDeeperThanTheRecordingIsReportedNotACrash(mode: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.write("chain.json", Self.chain(100, delegate: "checkout.v1"))
        let record = try sandbox.run(["record", "--scenario", "chain.json"], program: "my-auditctl")
        expectEqual(record.status, 0, "\(record)")
        let replay = try sandbox.run(
            ["replay", "--session", "1", "--delegate", "linked"] + mode, program: "my-auditctl")
        expectEqual(replay.status, 1, "\(replay)")
        #expect(!replay.stderr.contains("error"), "\(replay)")
        if mode.isEmpty {  // isolated: the candidate drives only the recorded inputs, so it never nests
            #expect(
                replay.stdoutLines.contains(
                    "REGRESSION: the candidate's run refused an input: \(Self.refusal.dropFirst("chain.json: ".count))"),
                "\(replay)")
        }
        let json = try sandbox.run(
            ["replay", "--session", "1", "--delegate", "linked", "--format", "json"] + mode, program: "my-auditctl")
        let refused = try decodeJSON(json.stdout)["nesting_refused"]
        expectEqual(refused, (mode.isEmpty ? .string(String(Self.refusal.dropFirst("chain.json: ".count))) : .null))
        let sessions = try sandbox.run(["sessions", "--format", "csv"], program: "my-auditctl")
        expectEqual(sessions.status, 0, "\(sessions)")
        expectEqual(sessions.stdoutLines.filter { !$0.isEmpty }.count, 4, "\(sessions)")  // recording, 2 replays
    }
}
