import AuditCore
import Foundation
import Testing

@Suite("auditctl minimize")
struct MinimizeCommandTests {
    @Test func writesAScenarioThatRecordAndReplayAccept() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--output", "min.json"])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout.hasPrefix("minimized 8 inputs to 1 in 5 tests (0 answered from the cache, 0 unresolved)"),
            "\(run)")
        #expect(run.stdout.contains("divergence: veto_changed at checkout/shipping"))
        #expect(try sandbox.run(["record", "--scenario", "min.json"]).stdout == "2\n")
        let replay = try sandbox.run(["replay", "--session", "2", "--delegate", "checkout.v2"])
        #expect(replay.status == 1, "\(replay)")

        let json = try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--format", "json"])
        #expect(json.status == 0)
        let value = try decodeJSON(json.stdout)
        #expect(value["minimal"] == .int(1))
        #expect(
            value["scenario"]?["steps"]
                == .array([
                    .object([
                        "action": .string("tapSegment"), "widget": .string("checkout/shipping"), "segment": .int(2),
                    ])
                ]))
    }

    @Test func nothingToMinimizeAndUnknownDelegatesAreOneLineErrors() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        expectError(
            try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v1"]),
            "checkout.v1 behaves like the recording on session 1: there is nothing to minimize")
        expectError(
            try sandbox.run(["minimize", "--session", "1", "--delegate", "nope"]),
            "unknown delegate 'nope' (registered: checkout.v1, checkout.v2)")
        expectError(
            try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--max-tests", "0"]),
            "--max-tests takes a positive integer, not '0'")
    }
}
