import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@Suite("auditctl minimize")
struct MinimizeCommandTests {
    @Test func writesAScenarioThatRecordAndReplayAccept() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--output", "min.json"])
        expectEqual(run.status, 0, "\(run)")
        #expect(
            run.stdout.hasPrefix("minimized 8 inputs to 1 in 6 tests (0 answered from the cache, 0 unresolved)"),
            "\(run)")
        #expect(run.stdout.contains("divergence: veto_changed at checkout/shipping"))
        try expectEqual(sandbox.run(["record", "--scenario", "min.json"]).stdout, "2\n")
        let replay = try sandbox.run(["replay", "--session", "2", "--delegate", "checkout.v2"])
        expectEqual(replay.status, 1, "\(replay)")

        let json = try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--format", "json"])
        expectEqual(json.status, 0)
        let value = try decodeJSON(json.stdout)
        expectEqual(value["minimal"], .int(1))
        expectEqual(
            value["scenario"]?["steps"],
            .array([
                .object([
                    "action": .string("tapSegment"), "widget": .string("checkout/shipping"), "segment": .int(2),
                ])
            ]))
    }

    /// A session recorded in code stores its tree without a delegate: the minimized scenario names
    /// the one it was recorded with, so `record --scenario` alone records it as the session was and
    /// a replay against the candidate shows the divergence (the reference's worked example).
    @Test func aSessionRecordedInCodeMinimizesToAScenarioThatNamesItsDelegate() throws {
        let sandbox = try Sandbox()
        try Self.recordInCode(into: sandbox.path("audit.sqlite"))
        let run = try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--output", "min.json"])
        expectEqual(run.status, 0, "\(run)")
        let scenario = try decodeJSON(String(contentsOfFile: sandbox.path("min.json"), encoding: .utf8))
        expectEqual(scenario["delegate"], .string("checkout.v1"), "\(scenario)")
        expectEqual(scenario["name"], .string("checkout in code-minimized"))
        expectEqual(
            scenario["steps"],
            .array([
                .object([
                    "action": .string("tapSegment"), "widget": .string("checkout/shipping"), "segment": .int(2),
                ])
            ]))
        let record = try sandbox.run(["record", "--scenario", "min.json"])
        expectEqual(record.stdout, "2\n", "\(record)")
        let replay = try sandbox.run(["replay", "--session", "2", "--delegate", "checkout.v2"])
        expectEqual(replay.status, 1, "\(replay)")
        #expect(replay.stdout.contains("(checkout in code-minimized, recorded with checkout.v1)"), "\(replay)")
        #expect(replay.stdout.contains("\nfirst divergence: veto changed\n"), "\(replay)")
    }

    /// The two segmented controls of the checkout, recorded in code with checkout.v1: four taps,
    /// the third one store pickup (which checkout.v2 vetoes).
    static func recordInCode(into database: String) throws {
        let delegate = try DelegateRegistry.examples.entry(named: "checkout.v1").make()
        try withExtendedLifetime(delegate) {
            let screen = View(identifier: "checkout")
            let shipping = SegmentedControl(
                identifier: "shipping", segments: ["Standard", "Express", "Pickup"], selectedSegmentIndex: 0)
            let payment = SegmentedControl(
                identifier: "payment", segments: ["Card", "PayPal", "Invoice"], selectedSegmentIndex: 0)
            for control in [shipping, payment] {
                screen.addSubview(control)
                control.delegate = delegate as? any SegmentedControlDelegate
            }
            let recorder = try Recorder(
                databasePath: database,
                session: NewSession(recordedInCode: "checkout in code", delegate: "checkout.v1"),
                catalog: .builtIn)
            try recorder.attach(to: screen)
            shipping.tapSegment(1)
            payment.tapSegment(2)
            shipping.tapSegment(2)
            payment.tapSegment(1)
            recorder.detach(from: screen)
            expectEqual(recorder.finish().status, .complete)
        }
    }

    @Test func nothingToMinimizeAndUnknownDelegatesAreOneLineErrors() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        expectError(
            try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v1"]),
            "checkout.v1 behaves like the recording on session 1: there is nothing to minimize")
        expectError(
            try sandbox.run(["minimize", "--session", "1", "--delegate", "nope"]),
            "unknown delegate 'nope' (registered: checkout.v1, checkout.v2, browser.v1, browser.v2)")
        expectError(
            try sandbox.run(["minimize", "--session", "1", "--delegate", "checkout.v2", "--max-tests", "0"]),
            "--max-tests takes a positive integer, not '0'")
    }
}
