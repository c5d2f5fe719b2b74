import AuditCore
import FetchKit
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers given later, from another queue, or never: `fetch.later` answers as `fetch.v1` does,
/// each handler later, from a queue of its own; `ForgetfulReader` lets go of the response's handler.
@Suite("The fetch view's answers given later or never")
struct FetchLaterAnswerTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws {
        folder = try TemporaryDirectory()
        _ = testServer
    }

    /// The readers, and one that never answers a response.
    static let registry: DelegateRegistry = {
        var registry = DelegateRegistry.fetchers
        registry.register("forgetful", summary: "lets go of the response's handler uncalled") { ForgetfulReader() }
        return registry
    }()

    func replay(_ session: Int64, _ delegate: String, _ mode: ReplayMode) throws -> ReplayReport {
        try Replayer(databasePath: database, registry: Self.registry, catalog: fetchCatalog)
            .replay(session: session, delegate: delegate, mode: mode)
    }

    /// An answer given later from another queue is recorded outside any event (`parent_seq` NULL);
    /// the view goes on exactly as with an answer given at once, so a session recorded with
    /// `fetch.later` replays identically against itself.
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func aLaterAnswerReplaysAgainstItself(mode: ReplayMode) throws {
        let session = try recordFetchScenario(database: database, delegate: "fetch.later").session
        let events = try AuditStore(path: database, access: .read).timeline(of: session)
        let answers = events.filter { $0.later == .answered }
        #expect(
            answers.count == 7 && answers.allSatisfy { $0.parentSeq == nil },
            "\(events.map { "\($0.seq) \($0.parentSeq ?? 0) \($0.later?.name ?? "-") \($0.callback) \($0.result ?? "")" })"
        )
        let report = try replay(session, "fetch.later", mode)
        #expect(report.identical, "\(report.diff.differences.map(describe))")
    }

    /// The same answers given at once and given later from another queue are no difference, in
    /// both replay modes and in `diff`: an answer is compared with its ask's, wherever it comes.
    /// (Before the root compared them so, interaction replay found 38 differences here, and
    /// isolated replay sometimes missed a candidate's answer still on its way.)
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func theSameAnswersGivenAtAnotherTimeAreNoDifference(mode: ReplayMode) throws {
        let atOnce = try recordFetchScenario(database: database).session
        let report = try replay(atOnce, "fetch.later", mode)
        #expect(report.identical, "\(report.diff.differences.map(describe))")
        let later = try recordFetchScenario(database: database, delegate: "fetch.later").session
        let diff = try SessionDiffer(try AuditStore(path: database, access: .read)).diff(atOnce, later)
        let laterEvents = try AuditStore(path: database, access: .read).timeline(of: later)
        #expect(
            diff.identical,
            "\(diff.differences.map(describe)) \(laterEvents.map { "\($0.seq) \($0.parentSeq ?? 0) \($0.later?.name ?? "-") \($0.callback) \($0.result ?? "")" })"
        )
    }

    /// A delegate that lets go of a handler uncalled: the ask is recorded "never answered", the
    /// view stops the load (it cancels the task and answers the session itself), and the fetch ends
    /// at once, cancelled, audited or not. Bounded by construction: the handler is released as the
    /// delegate's method returns.
    @Test(.timeLimit(.minutes(1))) func aHandlerLetGoUncalledStopsTheLoad() throws {
        let plain = FetchView(identifier: "browser")
        let forgetful = ForgetfulReader()
        plain.delegate = forgetful
        plain.fetch("/page.html")
        let expected = FetchOutcome(
            status: 200, path: "/page.html", bytes: 0, errorCode: -999, cancelled: false, unanswered: true)
        #expect(plain.outcome == expected)

        let root = buildBrowser()
        let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
        view.delegate = forgetful
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "forgetful", delegate: "forgetful"),
            catalog: fetchCatalog)
        try recorder.attach(to: root)
        view.fetch("/page.html")
        recorder.detach(from: root)
        let session = recorder.finish().session
        #expect(view.outcome == expected)
        let events = try AuditStore(path: database, access: .read).timeline(of: session)
        #expect(
            events.map { "\($0.callback) \($0.later?.name ?? "-")" } == [
                "fetch -", "fetchView(_:didReceiveResponse:completionHandler:) asked",
                "fetchView(_:didReceiveResponse:completionHandler:) never answered",
                "fetchView(_:didCompleteWithError:) -",
            ])
        #expect(
            events.last?.arguments == #"{"error":{"code":-999,"domain":"NSURLErrorDomain"}}"#)
        // Both modes: isolated replay tells the view of the recorded "never answered" where the
        // recording has it, so the view stops waiting as it did.
        for mode in [ReplayMode.interaction, .isolated] {
            let again = try replay(session, "forgetful", mode)
            #expect(again.identical, "\(mode): \(again.diff.differences.map(describe))")
            // Against a delegate that answers: the mistake the recording made and the candidate did not.
            let v1 = try replay(session, "fetch.v1", mode)
            #expect(
                v1.diff.differences.contains { $0.kind == .mistake }, "\(mode): \(v1.diff.differences.map(describe))")
        }
    }
}

/// Lets go of every response's handler without calling it (a mistake).
final class ForgetfulReader: FetchViewDelegate {
    func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {}
}
