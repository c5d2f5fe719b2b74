import AuditTesting
import Foundation
import Testing

@testable import AuditCore
@testable import AuditExamples

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

    @Test func missingRecordsTheFirstTimeThenCompares() throws {
        guard case .recorded(let session, _) = try check(.missing, .v1) else { throw Failure("expected a recording") }
        #expect(try baselines() == [session])
        #expect(try check(.missing, .v1).passed)
        guard case .differed(let report) = try check(.missing, .v2) else { throw Failure("expected a difference") }
        #expect(report.firstDivergence?.difference.kind == .vetoChanged)
        #expect(try baselines() == [session])
    }

    @Test func neverFailsWithoutABaselineAndRecordsNothing() throws {
        guard case .missingBaseline("checkout") = try check(.never, .v1) else { throw Failure("expected no baseline") }
        #expect(!FileManager.default.fileExists(atPath: database))
        _ = try check(.missing, .v1)
        #expect(try check(.never, .v1).passed)
        #expect(try !check(.never, .v2).passed)
        #expect(try baselines().count == 1)
    }

    @Test func allRecordsEveryTimeAndNeverPasses() throws {
        let first = try check(.all, .v1)
        let second = try check(.all, .v1)
        #expect(!first.passed && !second.passed)
        #expect(try baselines().count == 2)
    }

    @Test func failedReRecordsOnlyWhenBehaviourDiffers() throws {
        _ = try check(.missing, .v1)
        #expect(try check(.failed, .v1).passed)
        #expect(try baselines().count == 1)
        guard case .recorded(_, let reason) = try check(.failed, .v2) else { throw Failure("expected a re-recording") }
        #expect(reason.contains("behaviour differed"))
        #expect(try baselines().count == 2)
        // The new baseline is v2's behaviour: v2 now matches, v1 differs.
        #expect(try check(.never, .v2).passed)
        #expect(try !check(.never, .v1).passed)
    }

    @Test(arguments: [
        ([:], "missing"), (["AUDITCTL_RECORD": "never"], "never"), (["AUDITCTL_RECORD": "ALL"], "all"),
        (["AUDITCTL_RECORD": "failed"], "failed"), (["AUDITCTL_RECORD": ""], "missing"),
    ])
    func modeComesFromTheEnvironment(environment: [String: String], expected: String) {
        #expect(RecordMode.fromEnvironment(environment)?.rawValue == expected)
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
        #expect(same?.passed == true)
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
