import AuditCore
import FetchKit
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback server of this test process, started by the first test that needs it, on a port
/// the system picks; every fetch view fetches from it. A suite whose views the replayer builds
/// (not `buildBrowser`) touches it first: a view fetching before it started gets "connection
/// refused" from `http://127.0.0.1`.
let testServer: LoopbackServer = {
    let server = try! LoopbackServer()  // a test process that cannot listen on 127.0.0.1 cannot test this
    FetchView.origin = server.origin
    return server
}()

/// The shipped scenario, `fetch.json`: a redirect, a page behind a challenge, a song, a page.
let fetchScenarioPath = packageRoot.appending(path: "fetch.json").path

/// The paths `fetch.json` and the in-code sessions fetch, in order.
let sitePaths = ["/old", "/private", "/song.mp3", "/page.html"]

/// The screen of the in-code sessions: a fetch view under a root view.
func buildBrowser() -> View {
    _ = testServer
    let screen = View(identifier: "screen", frame: Rect(x: 0, y: 0, width: 390, height: 844))
    screen.addSubview(FetchView(identifier: "browser", frame: Rect(x: 0, y: 0, width: 390, height: 844)))
    return screen
}

/// What the app does in the in-code sessions: it fetches `sitePaths`, one after another.
func driveBrowser(_ root: View) throws {
    let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
    for path in sitePaths { view.fetch(path) }
}

/// Records the in-code session with the registered reader `delegate`.
func recordFetchesInCode(database: String, delegate: String = "fetch.v1") throws -> RecordingSummary {
    let root = buildBrowser()
    let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
    let reader = try DelegateRegistry.fetchers.entry(named: delegate).make()
    view.delegate = try require(reader as? any FetchViewDelegate, "fetch view delegate")
    let recorder = try Recorder(
        databasePath: database, session: NewSession(recordedInCode: "site-in-code", delegate: delegate),
        catalog: fetchCatalog)
    try recorder.attach(to: root)
    try withExtendedLifetime(reader) { try driveBrowser(root) }
    recorder.detach(from: root)
    return recorder.finish()
}

/// Records `fetch.json` with `delegate`.
func recordFetchScenario(database: String, delegate: String = "fetch.v1") throws -> RecordingSummary {
    _ = testServer
    let scenario = try Scenario(contentsOf: fetchScenarioPath, catalog: fetchCatalog)
    return try ScenarioRunner.record(scenario, delegate: delegate, registry: .fetchers, databasePath: database)
}

/// A site reader that also writes down, in order, every call it gets and every answer it gives.
final class LoggingSiteReader: FetchViewDelegate, @unchecked Sendable {
    // @unchecked: `written` is under its mutex; `reader` is called only on the fetch's thread.
    private let reader: SiteReader
    private let written = Mutex<[String]>([])
    var lines: [String] { written.withLock { $0 } }

    init(_ reader: SiteReader) { self.reader = reader }

    private func log(_ line: String) { written.withLock { $0.append(line) } }

    func fetchView(
        _ view: FetchView, willRedirect response: FetchResponse, to request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        log("redirect \(response.status) \(response.path) → \(request.url?.path ?? "nil")")
        reader.fetchView(view, willRedirect: response, to: request) { [self] answer in
            log("  follow \(answer?.url?.path ?? "nil")")
            completionHandler(answer)
        }
    }
    func fetchView(
        _ view: FetchView, didReceive challenge: FetchChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        log("challenge \(challenge.method) \(challenge.realm ?? "nil") \(challenge.previousFailureCount)")
        reader.fetchView(view, didReceive: challenge) { [self] disposition, credential in
            log("  \(ChallengeAnswer(disposition).disposition) \(credential?.user ?? "nil")")
            completionHandler(disposition, credential)
        }
    }
    func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        log("response \(response.status) \(response.path) \(response.mimeType ?? "nil")")
        reader.fetchView(view, didReceive: response) { [self] disposition in
            log("  \(disposition == .cancel ? "cancel" : "allow")")
            completionHandler(disposition)
        }
    }
    func fetchView(_ view: FetchView, didLoad body: Data) {
        log("body \(body.count)")
        reader.fetchView(view, didLoad: body)
    }
    func fetchView(_ view: FetchView, didCompleteWithError error: (any Error)?) {
        log("complete \((error as NSError?)?.code ?? 0)")
        reader.fetchView(view, didCompleteWithError: error)
    }
}
