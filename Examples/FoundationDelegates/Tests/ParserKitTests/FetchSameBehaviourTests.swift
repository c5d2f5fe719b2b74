import AuditCore
import AuditTesting
import FetchKit
import Foundation
import Testing

@Suite("AuditTesting: the site reader's policy against a baseline")
struct FetchSameBehaviourTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("baselines.sqlite") }

    init() throws {
        folder = try TemporaryDirectory()
        _ = testServer  // replay builds its own fetch view, which fetches from `FetchView.origin`
    }

    /// With no `database:`, the baseline is the committed
    /// `Tests/__Baselines__/ParserKitTests/FetchSameBehaviourTests.sqlite`, recorded with `fetch.v1`.
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func v1BehavesAsTheCommittedBaseline(replay: ReplayMode) {
        let outcome = expectSameBehaviour(
            "site", catalog: fetchCatalog, replay: replay, delegate: { SiteReader() }, build: buildBrowser,
            drive: driveBrowser)
        #expect(outcome?.passed == true)
    }

    /// The changed policy (v2 refuses redirects and cancels audio) fails the check, at the refused
    /// redirect.
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func v2sChangedPolicyFailsTheCheck(replay: ReplayMode) throws {
        let baseline = try BehaviourCheck(databasePath: database, catalog: fetchCatalog, mode: .all)
            .check(
                "site", delegateName: "fetch.v1", delegate: { SiteReader() }, build: buildBrowser, drive: driveBrowser)
        guard case .recorded = baseline else {
            Issue.record("expected a recorded baseline, got \(baseline.message)")
            return
        }
        let outcome = try BehaviourCheck(
            databasePath: database, catalog: fetchCatalog, mode: .never, replayMode: replay
        )
        .check("site", delegate: { SiteReaderV2() }, build: buildBrowser, drive: driveBrowser)
        #expect(!outcome.passed)
        guard case .differed(let report) = outcome else {
            Issue.record("expected a difference, got \(outcome.message)")
            return
        }
        #expect(report.firstDivergence?.difference.event.callback == "fetchView(_:willRedirect:to:completionHandler:)")
        #expect(report.diff.differences.contains { $0.kind == .vetoChanged })
        #expect(report.diff.differences.count == (replay == .isolated ? 2 : 8))
        withKnownIssue {
            expectSameBehaviour(
                "site", catalog: fetchCatalog, database: database, record: .never, replay: replay,
                delegate: { SiteReaderV2() }, build: buildBrowser, drive: driveBrowser)
        }
    }
}
