import FetchKit
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What Linux Foundation's `URLSession` (swift-corelibs-foundation) does where Apple documents
/// otherwise: the README's claims, checked against a session whose delegate is a plain logger,
/// with no view and no recorder, against the loopback server. When one of these fails,
/// Foundation changed: update the README (and `FetchView+Load.swift`, which copes with them).
@Suite("What Linux Foundation's URLSession does (the README's claims)")
struct LinuxURLSessionTests {
    @Test func cancelFromTheResponseHandlerIsIgnored() {
        let log = SessionLog(responseDisposition: .cancel)
        log.load("/song.mp3")
        #expect(log.lines == ["response 200 /song.mp3 audio/mpeg", "data 41", "complete 0"])
    }

    @Test func aBasicChallengeComesAfterThe401AsAResponseAndItsBody() {
        let log = SessionLog()
        log.load("/private")
        #expect(
            log.lines == [
                "response 401 /private text/plain", "data 13",
                "challenge NSURLAuthenticationMethodHTTPBasic audit 0 401",
                "response 200 /private text/html", "data 74", "complete 0",
            ])
    }

    @Test(arguments: [URLSession.AuthChallengeDisposition.rejectProtectionSpace, .cancelAuthenticationChallenge])
    func refusingTheChallengeEndsCancelled(disposition: URLSession.AuthChallengeDisposition) {
        let log = SessionLog(challengeDisposition: disposition)
        log.load("/private")
        #expect(
            log.lines == [
                "response 401 /private text/plain", "data 13",
                "challenge NSURLAuthenticationMethodHTTPBasic audit 0 401",
                "complete -999",
            ])
    }

    /// Apple goes on without a credential (and ends with the 401). Linux never ends the task: it
    /// is still running after another request of the same session has come and gone, and ends
    /// only when cancelled. (No wait here is timed: the second request bounds the first.)
    @Test func defaultHandlingWithoutACredentialNeverCompletes() {
        let log = SessionLog(challengeDisposition: .performDefaultHandling)
        let stuck = log.start("/private", awaitingChallenge: true)
        log.load("/page.html")
        #expect(stuck.state == .running)
        #expect(
            log.lines == [
                "response 401 /private text/plain", "data 13",
                "challenge NSURLAuthenticationMethodHTTPBasic audit 0 401",
                "response 200 /page.html text/html", "data 74", "complete 0",
            ])
        stuck.cancel()
        log.awaitCompletion()
        #expect(log.lines.last == "complete -999")
    }

    @Test func aRefusedRedirectDeliversTheRedirectAsTheResponse() {
        let log = SessionLog(followsRedirects: false)
        log.load("/old")
        #expect(log.lines == ["redirect 302 /old → /page.html", "response 302 /old nil", "complete 0"])
    }

    @Test func everyCallComesOnTheDelegateQueue() {
        let log = SessionLog()
        for path in ["/old", "/private", "/song.mp3"] { log.load(path) }
        #expect(log.lines.count == 13)
        #expect(log.offQueue == 0)
    }
}

/// A `URLSession` delegate that writes down every call it gets, one line each, answers as it is
/// told (consecutive pieces of a body as one line), and counts the calls that did not come on its session's delegate queue.
final class SessionLog: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `state` is under its mutex, the rest is set in `init` and only read after.
    private let state = Mutex<(lines: [String], offQueue: Int)>(([], 0))
    private let completed = DispatchSemaphore(value: 0)
    private let challenged = DispatchSemaphore(value: 0)
    let responseDisposition: URLSession.ResponseDisposition
    let challengeDisposition: URLSession.AuthChallengeDisposition
    let followsRedirects: Bool
    let queue: OperationQueue
    private var session: URLSession!

    var lines: [String] { state.withLock { $0.lines } }
    var offQueue: Int { state.withLock { $0.offQueue } }

    init(
        responseDisposition: URLSession.ResponseDisposition = .allow,
        challengeDisposition: URLSession.AuthChallengeDisposition = .useCredential, followsRedirects: Bool = true
    ) {
        self.responseDisposition = responseDisposition
        self.challengeDisposition = challengeDisposition
        self.followsRedirects = followsRedirects
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        super.init()
        session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
    }

    /// Starts a data task for `path` on the test server; with `awaitingChallenge`, returns once the
    /// delegate answered its challenge.
    func start(_ path: String, awaitingChallenge: Bool = false) -> URLSessionDataTask {
        let task = session.dataTask(with: testServer.origin.appending(path: String(path.dropFirst())))
        task.resume()
        if awaitingChallenge { challenged.wait() }
        return task
    }

    /// Loads `path` and waits for the task to complete (bounded: the server closes every connection).
    func load(_ path: String) {
        _ = start(path)
        awaitCompletion()
    }

    func awaitCompletion() { completed.wait() }

    private func log(_ line: String) {
        let onQueue = OperationQueue.current === queue
        state.withLock {
            // A body may come in several pieces: one line for them all.
            if line.hasPrefix("data "), let last = $0.lines.last, last.hasPrefix("data ") {
                $0.lines[$0.lines.count - 1] = "data \(Int(last.dropFirst(5))! + Int(line.dropFirst(5))!)"
            } else {
                $0.lines.append(line)
            }
            if !onQueue { $0.offQueue += 1 }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        log("redirect \(response.statusCode) \(response.url?.path ?? "") → \(request.url?.path ?? "")")
        completionHandler(followsRedirects ? request : nil)
    }
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        let status = (challenge.failureResponse as? HTTPURLResponse)?.statusCode ?? 0
        log(
            "challenge \(space.authenticationMethod) \(space.realm ?? "nil") \(challenge.previousFailureCount) \(status)"
        )
        let credential =
            challengeDisposition == .useCredential
            ? URLCredential(user: LoopbackServer.user, password: LoopbackServer.password, persistence: .forSession)
            : nil
        completionHandler(challengeDisposition, credential)
        challenged.signal()
    }
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        log("response \(status) \(response.url?.path ?? "") \(response.mimeType ?? "nil")")
        completionHandler(responseDisposition)
    }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        log("data \(data.count)")
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log("complete \((error as NSError?)?.code ?? 0)")
        completed.signal()
    }
}
