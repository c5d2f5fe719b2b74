import AuditCore
import FetchKit
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the root package does not yet do what the fetch view needs, pinned as known issues: when
/// one of these starts passing, the root was fixed; drop the `withKnownIssue` and update the README.
/// (`fetch.later` answers as `fetch.v1` does, each handler later, from a queue of its own.)
@Suite("The fetch view and the root package's gaps")
struct FetchRootGapTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws {
        folder = try TemporaryDirectory()
        _ = testServer
    }

    func replay(_ session: Int64, _ delegate: String, _ mode: ReplayMode) throws -> ReplayReport {
        try Replayer(databasePath: database, registry: .fetchers, catalog: fetchCatalog)
            .replay(session: session, delegate: delegate, mode: mode)
    }

    /// An answer given later from another queue is recorded outside any event (`parent_seq` NULL);
    /// the view goes on exactly as with an answer given at once, so a session recorded with
    /// `fetch.later` replays identically against itself in interaction mode.
    @Test func aLaterAnswerReplaysAgainstItself() throws {
        let session = try recordFetchScenario(database: database, delegate: "fetch.later").session
        let events = try AuditStore(path: database, access: .read).timeline(of: session)
        let answers = events.filter { $0.later == .answered }
        #expect(answers.count == 7 && answers.allSatisfy { $0.parentSeq == nil })
        let report = try replay(session, "fetch.later", .interaction)
        #expect(report.identical, "\(report.diff.differences.map(describe))")
    }

    /// Root gap (b): in isolated replay the view gets the recorded answer at once and goes on; the
    /// candidate's own answer, given later from its queue, is compared whenever it comes, and
    /// `finish()` does not wait for answers in flight, so an answer that comes after the run ended
    /// is sometimes missed (seen under load, as a difference for the last answers).
    @Test(arguments: ["fetch.v1", "fetch.later"])
    func isolatedReplayAgainstALaterCandidateIsIdentical(recordedWith delegate: String) throws {
        let session = try recordFetchScenario(database: database, delegate: delegate).session
        let report = try replay(session, "fetch.later", .isolated)
        withKnownIssue(
            "root gap (b): isolated replay does not wait for a candidate's answer in flight", isIntermittent: true
        ) {
            #expect(report.identical, "\(report.diff.differences.map(describe))")
        }
    }

    /// Root gap (a): interaction replay (and `diff`) align events by their nesting, so the same
    /// answer given at once (nested under its ask) and given later from another queue (nested
    /// under nothing) do not align, and from the first such answer on, each fetch's events are
    /// reported as only in one session: 38 differences measured (19 each side: every event after
    /// each fetch's first answer) for the same policy.
    @Test func sameAnswersGivenAtAnotherTimeAlignInInteractionReplay() throws {
        let session = try recordFetchScenario(database: database).session
        let report = try replay(session, "fetch.later", .interaction)
        withKnownIssue(
            "root gap (a): an answer given on another thread (parent_seq NULL) misaligns with one given at once"
        ) {
            #expect(report.identical, "\(report.diff.differences.count) differences")
        }
    }

    /// Root gap (c): a delegate that lets go of a handler uncalled is recorded ("never answered",
    /// and `PendingAnswer.isWaiting` turns false), but the widget is not told, so a fetch view
    /// would wait for the answer, and Foundation for the view, for ever. No fetch runs here: the
    /// view's callback is asked directly, outside any fetch.
    @Test func aWidgetLearnsThatTheHandlerWasDroppedUncalled() throws {
        let view = FetchView(identifier: "browser")
        let delegate = ForgetfulReader()
        view.delegate = delegate
        let delivered = Mutex(false)
        let head = FetchResponse(status: 200, path: "/page.html", mimeType: "text/html")
        let pending = FetchView.callbacks.response.ask(delegate, view, head) { _ in delivered.withLock { $0 = true } }
        #expect(!pending.isWaiting, "the handler was released: the ask no longer waits")
        #expect(!delivered.withLock { $0 })
        withKnownIssue("root gap (c): LaterCallback.ask has no way to tell the widget the handler was dropped") {
            Issue.record("no `ifNeverAnswered` in LaterCallback.ask: the fetch view cannot answer Foundation itself")
        }
    }
}

/// Lets go of every handler without calling it (a mistake; never given to a fetch that runs).
final class ForgetfulReader: FetchViewDelegate {
    func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {}
}
