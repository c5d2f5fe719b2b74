import AuditCore
import FetchKit
import Foundation
import Testing

/// How the fetch view copes with Linux Foundation (the README's list), through the view itself.
@Suite("The fetch view where Linux Foundation differs")
struct FetchViewTests {
    /// Implements nothing: every answer is the protocol's default.
    final class DefaultReader: FetchViewDelegate {}

    /// The default challenge answer, `.performDefaultHandling` with no credential, never completes
    /// on Linux; the view cancels the challenge instead, so the fetch ends (with -999, after the 401
    /// it already reported). Recorded as "not implemented, default used".
    @Test func defaultHandlingWithoutACredentialEndsTheFetch() throws {
        let folder = try TemporaryDirectory()
        let root = buildBrowser()
        let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
        let delegate = DefaultReader()
        view.delegate = delegate
        let recorder = try Recorder(
            databasePath: folder.path("audit.sqlite"), session: NewSession(recordedInCode: "default", delegate: "none"),
            catalog: fetchCatalog)
        try recorder.attach(to: root)
        view.fetch("/private")
        recorder.detach(from: root)
        let session = recorder.finish().session
        #expect(
            view.outcome == FetchOutcome(status: 401, path: "/private", bytes: 13, errorCode: -999, cancelled: false))
        let events = try AuditStore(path: folder.path("audit.sqlite"), access: .read).timeline(of: session)
        let answer = try #require(
            events.first {
                $0.callback == "fetchView(_:didReceiveChallenge:completionHandler:)" && $0.later == .answered
            })
        #expect(answer.result == #"{"disposition":"performDefaultHandling"}"#)
        #expect(answer.implemented == false)
    }

    /// A vetoed response ends the fetch cancelled (-999) with no body, as at Apple, although Linux
    /// ignores `.cancel` and may already have finished the task when the view cancels it.
    @Test func aVetoedResponseEndsCancelledWithoutItsBody() throws {
        let root = buildBrowser()
        let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
        let reader = LoggingSiteReader(SiteReaderV2())
        view.delegate = reader
        view.fetch("/song.mp3")
        #expect(
            view.outcome == FetchOutcome(status: 200, path: "/song.mp3", bytes: 0, errorCode: -999, cancelled: true))
        #expect(reader.lines == ["response 200 /song.mp3 audio/mpeg", "  cancel", "complete -999"])
    }
}
