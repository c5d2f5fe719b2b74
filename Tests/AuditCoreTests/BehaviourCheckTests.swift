import AuditTesting
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Behaviour checks for an app's own tests: record modes")
struct BehaviourCheckTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func check(_ mode: RecordMode, _ version: CheckoutDelegate.Version) throws -> BehaviourOutcome {
        try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: mode)
            .check("checkout", scenario: try Examples.checkout()) { CheckoutDelegate(version: version) }
    }

    func baselines() throws -> [Int64] {
        try AuditStore(path: database, access: .read).sessions().filter { $0.replayOf == nil }.map(\.id)
    }

    /// A tree built in code and driven by a closure, with no scenario file: two segmented controls.
    static func build() -> View {
        let root = View(identifier: "root")
        for name in ["a", "b"] {
            root.addSubview(SegmentedControl(identifier: name, segments: ["x", "y", "z"], selectedSegmentIndex: 0))
        }
        return root
    }

    static func drive(_ root: View) {
        for (index, tap) in [1, 2, 1, 0, 2].enumerated() {
            (root.subviews[index % 2] as! SegmentedControl).tapSegment(tap)
        }
    }

    @Test func aTreeBuiltInCodeIsRecordedThenComparedWithoutAScenario() throws {
        // Recording a baseline fails the test that recorded it ("run again"): a known issue here.
        var first: BehaviourOutcome?
        withKnownIssue {
            first = expectSameBehaviour(
                "taps", catalog: .builtIn, database: database, record: .missing, delegate: { LoggingDelegate() },
                build: Self.build, drive: Self.drive)
        }
        guard case .recorded(let session, _)? = first else {
            throw Failure("expected a recording, got \(first as Any)")
        }
        expectEqual(first?.message.hasPrefix("recorded a new baseline as session \(session) because"), true)
        let second = expectSameBehaviour(
            "taps", catalog: .builtIn, database: database, record: .never, delegate: { LoggingDelegate() },
            build: Self.build, drive: Self.drive)
        expectEqual(second?.passed, true)
        expectEqual(second?.message, "behaviour matches session \(session)")
        // A delegate that vetoes segment 2 behaves otherwise, and the message says where first.
        let vetoing = try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .never).check(
            "taps", delegate: { LoggingDelegate(vetoing: [2]) }, build: Self.build, drive: Self.drive)
        guard case .differed = vetoing else { throw Failure("expected a difference, got \(vetoing)") }
        #expect(vetoing.message.contains("first divergence: veto_changed at root/b"), "\(vetoing.message)")
        let missing = try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .never).check(
            "other", delegate: { LoggingDelegate() }, build: Self.build, drive: Self.drive)
        expectEqual(
            missing.message,
            "no baseline named 'other' and record mode is 'never' (set AUDITCTL_RECORD=missing to record it)")
    }

    /// A test whose inputs changed since its baseline was recorded is not compared on the old
    /// inputs: the check fails saying where they part; a `drive` that now throws fails it too.
    @Test func aTestWhoseInputsChangedIsNotComparedOnTheOldOnes() throws {
        let check = BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .missing)
        _ = try check.check("taps", delegate: { LoggingDelegate() }, build: Self.build, drive: Self.drive)
        let same = try check.check("taps", delegate: { LoggingDelegate() }, build: Self.build, drive: Self.drive)
        #expect(same.passed, "\(same.message)")
        #expect {
            try check.check("taps", delegate: { LoggingDelegate() }, build: Self.build) { root in
                Self.drive(root)
                (root.subviews[1] as! SegmentedControl).tapSegment(1)
            }
        } throws: { error in
            "\(error)"
                == "the test performs other inputs than baseline session 1 recorded (input 6: recorded nothing, "
                + "now 'root/b tapSegment'); record the baseline again (AUDITCTL_RECORD=all) if the test changed"
        }
        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try check.check("taps", delegate: { LoggingDelegate() }, build: Self.build) { _ in throw Broken() }
        }
        // Nothing of the checks was written to the baselines: still one session.
        try expectEqual(baselines(), [1])
    }

    @Test func missingRecordsTheFirstTimeThenCompares() throws {
        guard case .recorded(let session, _) = try check(.missing, .v1) else { throw Failure("expected a recording") }
        try expectEqual(baselines(), [session])
        #expect(try check(.missing, .v1).passed)
        guard case .differed(let report) = try check(.missing, .v2) else { throw Failure("expected a difference") }
        expectEqual(report.firstDivergence?.difference.kind, .vetoChanged)
        try expectEqual(baselines(), [session])
    }

    @Test func neverFailsWithoutABaselineAndRecordsNothing() throws {
        guard case .missingBaseline("checkout") = try check(.never, .v1) else { throw Failure("expected no baseline") }
        #expect(!FileManager.default.fileExists(atPath: database))
        _ = try check(.missing, .v1)
        #expect(try check(.never, .v1).passed)
        #expect(try !check(.never, .v2).passed)
        try expectEqual(baselines().count, 1)
    }

    @Test func allRecordsEveryTimeAndNeverPasses() throws {
        let first = try check(.all, .v1)
        let second = try check(.all, .v1)
        #expect(!first.passed && !second.passed)
        try expectEqual(baselines().count, 2)
    }

    @Test func failedReRecordsOnlyWhenBehaviourDiffers() throws {
        _ = try check(.missing, .v1)
        #expect(try check(.failed, .v1).passed)
        try expectEqual(baselines().count, 1)
        guard case .recorded(_, let reason) = try check(.failed, .v2) else { throw Failure("expected a re-recording") }
        #expect(reason.contains("behaviour differed"))
        try expectEqual(baselines().count, 2)
        // The new baseline is v2's behaviour: v2 now matches, v1 differs.
        #expect(try check(.never, .v2).passed)
        #expect(try !check(.never, .v1).passed)
    }

    @Test(arguments: [
        ([:], "missing"), (["AUDITCTL_RECORD": "never"], "never"), (["AUDITCTL_RECORD": "ALL"], "all"),
        (["AUDITCTL_RECORD": "failed"], "failed"), (["AUDITCTL_RECORD": ""], "missing"),
    ])
    func modeComesFromTheEnvironment(environment: [String: String], expected: String) {
        expectEqual(RecordMode.fromEnvironment(environment)?.rawValue, expected)
    }

    @Test func anUnknownModeInTheEnvironmentIsRejected() {
        #expect(RecordMode.fromEnvironment(["AUDITCTL_RECORD": "sometimes"]) == nil)
    }

    @Test func swiftTestingHelperPassesOnSameBehaviourAndRecordsAnIssueOtherwise() throws {
        let scenario = try Examples.checkout()
        _ = try check(.missing, .v1)
        let same = expectSameBehaviour("checkout", scenario: scenario, database: database, record: .never) {
            CheckoutDelegate(version: .v1)
        }
        expectEqual(same?.passed, true)
        withKnownIssue {
            expectSameBehaviour("checkout", scenario: scenario, database: database, record: .never) {
                CheckoutDelegate(version: .v2)
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
