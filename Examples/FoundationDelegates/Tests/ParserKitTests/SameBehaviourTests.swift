import AuditCore
import AuditTesting
import Foundation
import ParserKit
import Testing

@Suite("AuditTesting: the feed reader's policy against a baseline")
struct SameBehaviourTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("baselines.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    /// The documented layout: with no `database:`, the baseline is the committed
    /// `Tests/__Baselines__/ParserKitTests/SameBehaviourTests.sqlite`, recorded with `feed.v1`.
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func v1BehavesAsTheCommittedBaseline(replay: ReplayMode) {
        let outcome = expectSameBehaviour(
            "feed", catalog: catalog, replay: replay, delegate: { FeedReader() }, build: buildScreen,
            drive: driveScreen)
        #expect(outcome?.passed == true)
    }

    /// The changed policy (v2 refuses enclosures, and no longer spells out `&copy;`) fails the
    /// check, at the first changed answer.
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func v2sChangedPolicyFailsTheCheck(replay: ReplayMode) throws {
        let baseline = try BehaviourCheck(databasePath: database, catalog: catalog, mode: .all)
            .check(
                "feed", delegateName: "feed.v1", delegate: { FeedReader() }, build: buildScreen, drive: driveScreen)
        guard case .recorded = baseline else {
            Issue.record("expected a recorded baseline, got \(baseline.message)")
            return
        }
        let outcome = try BehaviourCheck(databasePath: database, catalog: catalog, mode: .never, replayMode: replay)
            .check("feed", delegate: { FeedReaderV2() }, build: buildScreen, drive: driveScreen)
        #expect(!outcome.passed)
        guard case .differed(let report) = outcome else {
            Issue.record("expected a difference, got \(outcome.message)")
            return
        }
        #expect(report.firstDivergence?.difference.event.callback == "parser(_:resolveExternalEntityName:systemID:)")
        #expect(
            report.diff.differences.contains {
                $0.kind == .vetoChanged && $0.event.arguments.contains(#""elementName":"enclosure""#)
            })
        #expect(outcome.message.contains("resolveExternalEntityName"), "\(outcome.message)")
        // And the assertion helper fails the test with it.
        withKnownIssue {
            expectSameBehaviour(
                "feed", catalog: catalog, database: database, record: .never, replay: replay,
                delegate: { FeedReaderV2() }, build: buildScreen, drive: driveScreen)
        }
    }
}
