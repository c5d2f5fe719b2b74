import AuditCore
import AuditTesting
import Foundation
import SliderKit
import Testing

@Suite("AuditTesting: the slider's behaviour against a baseline")
struct SameBehaviourTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("baselines.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    /// Records the in-code baseline `volume` with V1 (record mode `all`: always records).
    func recordBaseline() throws {
        let outcome = try BehaviourCheck(databasePath: database, catalog: catalog, mode: .all)
            .check(
                "volume", delegateName: "volume.v1", delegate: { VolumeControllerV1() }, build: buildScreen,
                drive: driveScreen)
        guard case .recorded = outcome else {
            Issue.record("expected a recorded baseline, got \(outcome.message)")
            return
        }
        #expect(!outcome.passed)
    }

    @Test(arguments: [ReplayMode.interaction, .isolated])
    func v1BehavesAsItsBaseline(replay: ReplayMode) throws {
        try recordBaseline()
        let outcome = expectSameBehaviour(
            "volume", catalog: catalog, database: database, record: .never, replay: replay,
            delegate: { VolumeControllerV1() }, build: buildScreen, drive: driveScreen)
        #expect(outcome?.passed == true)
    }

    /// The documented layout: with no `database:`, the baseline is the committed
    /// `Tests/__Baselines__/SliderKitTests/SameBehaviourTests.sqlite`, outside the test target, so
    /// `Package.swift` needs no `exclude:`; comparing with it leaves it byte for byte as it was.
    @Test func v1BehavesAsTheCommittedBaseline() {
        expectSameBehaviour(
            "volume", catalog: catalog, delegate: { VolumeControllerV1() }, build: buildScreen, drive: driveScreen)
    }

    @Test func v2DiffersFromTheBaseline() throws {
        try recordBaseline()
        let outcome = try BehaviourCheck(databasePath: database, catalog: catalog, mode: .never)
            .check("volume", delegate: { VolumeControllerV2() }, build: buildScreen, drive: driveScreen)
        #expect(outcome.passed == false)
        guard case .differed(let report) = outcome else {
            Issue.record("expected a difference, got \(outcome.message)")
            return
        }
        #expect(report.firstDivergence?.difference.event.callback == "slider(_:proposedValue:)")
        #expect(outcome.message.contains("slider(_:proposedValue:)"))
        // And the assertion helper fails the test with it.
        withKnownIssue {
            expectSameBehaviour(
                "volume", catalog: catalog, database: database, record: .never, delegate: { VolumeControllerV2() },
                build: buildScreen, drive: driveScreen)
        }
    }

    @Test func withNoBaselineModeNeverFails() throws {
        let outcome = try BehaviourCheck(databasePath: database, catalog: catalog, mode: .never)
            .check("volume", delegate: { VolumeControllerV1() }, build: buildScreen, drive: driveScreen)
        #expect(!outcome.passed)
        guard case .missingBaseline = outcome else {
            Issue.record("expected a missing baseline, got \(outcome.message)")
            return
        }
    }

    @Test func theScenarioFormPassesForV1() throws {
        let scenario = try volumeScenario()
        let baseline = try BehaviourCheck(databasePath: database, catalog: catalog, mode: .all)
            .check("volume-scenario", scenario: scenario, delegateName: "volume.v1", delegate: { VolumeControllerV1() })
        guard case .recorded = baseline else {
            Issue.record("expected a recorded baseline, got \(baseline.message)")
            return
        }
        let outcome = expectSameBehaviour(
            "volume-scenario", scenario: scenario, database: database, record: .never,
            delegate: { VolumeControllerV1() })
        #expect(outcome?.passed == true)
        withKnownIssue {
            expectSameBehaviour(
                "volume-scenario", scenario: scenario, database: database, record: .never,
                delegate: { VolumeControllerV2() })
        }
    }
}
