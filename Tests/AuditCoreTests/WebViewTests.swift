import AuditCore  // public API only, as an app would audit its own web view's delegate
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@Suite("Web view: a navigation delegate that decides later, in WebKit's order")
struct WebViewTests {
    enum Form: String, CaseIterable, Sendable {
        case handler
        case async

        func delegate() -> LoggingNavigationDelegate {
            switch self {
            case .handler: LoggingNavigationDelegate()
            case .async: AsyncLoggingNavigationDelegate()
            }
        }
    }

    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// What a run left: what the delegate heard, and where the web view stands.
    struct Outcome: Equatable {
        var log: [String]
        var phase: WebView.Phase
        var url: String?
        var isLoading: Bool
    }

    /// Drives a web view with `delegate`, recorded when `recorded`; returns what happened and the
    /// session (0 when not recorded).
    func run(
        _ delegate: LoggingNavigationDelegate, recorded: Bool, _ drive: (WebView, LoggingNavigationDelegate) -> Void
    ) throws -> (outcome: Outcome, session: Int64) {
        let webView = WebView(identifier: "page")
        webView.navigationDelegate = delegate
        var session: Int64 = 0
        if recorded {
            let recorder = try Recorder(
                databasePath: database, session: NewSession(recordedInCode: "web", delegate: "logging"),
                catalog: .builtIn)
            try recorder.attach(to: webView)
            drive(webView, delegate)
            session = recorder.finish().session
        } else {
            drive(webView, delegate)
        }
        return (
            Outcome(log: delegate.log, phase: webView.phase, url: webView.url, isLoading: webView.isLoading), session
        )
    }

    func timeline(_ session: Int64) throws -> [TimelineEvent] {
        try AuditStore(path: database, access: .read).timeline(of: session)
    }

    // MARK: WebKit's order

    /// One input, as a test writes it.
    enum Step: Sendable {
        case load(String)
        case click(String)
        case respond(Int, String = "text/html")
        case finish
        case fail(Int)

        func perform(on webView: WebView) {
            switch self {
            case .load(let url): webView.load(url)
            case .click(let url): webView.click(url)
            case .respond(let status, let type): webView.respond(statusCode: status, mimeType: type)
            case .finish: webView.finishLoading()
            case .fail(let code): webView.failLoading(code: code)
            }
        }
    }

    /// A course a navigation can take: its inputs, the calls the delegate hears, in WebKit's
    /// order, and where the web view ends.
    struct Course: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var log: [String]
        var phase: WebView.Phase

        var testDescription: String { name }

        func drive(_ webView: WebView) { for step in steps { step.perform(on: webView) } }
    }

    static let a = "https://a.example/"
    static let b = "https://b.example/"
    static let blocked = "https://blocked.example/"

    static let courses: [Course] = [
        Course(
            name: "allowed", steps: [.load(a), .respond(200), .finish],
            log: ["action \(a) other", "start 1", "response 200 text/html", "commit 1", "finish 1"], phase: .idle),
        Course(
            name: "action cancelled", steps: [.click(blocked), .respond(200), .finish],
            log: ["action \(blocked) linkActivated"], phase: .idle),
        Course(
            name: "response cancelled", steps: [.load(a), .respond(200, "application/zip"), .finish],
            log: ["action \(a) other", "start 1", "response 200 application/zip", "failProvisional 1 102"],
            phase: .idle),
        Course(
            name: "failed before commit", steps: [.load(a), .fail(-1009), .finish],
            log: ["action \(a) other", "start 1", "failProvisional 1 -1009"], phase: .idle),
        Course(
            name: "failed after commit", steps: [.load(a), .respond(200), .fail(-1005)],
            log: ["action \(a) other", "start 1", "response 200 text/html", "commit 1", "fail 1 -1005"],
            phase: .idle),
        Course(
            name: "replaced after it started", steps: [.load(a), .load(b), .respond(404)],
            log: [
                "action \(a) other", "start 1", "failProvisional 1 -999", "action \(b) other", "start 2",
                "response 404 text/html", "commit 2",
            ], phase: .committed),
        Course(
            name: "a loading page replaced", steps: [.load(a), .respond(200), .click(b)],
            log: [
                "action \(a) other", "start 1", "response 200 text/html", "commit 1", "action \(b) linkActivated",
                "fail 1 -999", "start 2",
            ], phase: .provisional),
        Course(
            name: "a loading page kept when the new navigation is cancelled",
            steps: [.load(a), .respond(200), .click(blocked), .finish],
            log: [
                "action \(a) other", "start 1", "response 200 text/html", "commit 1",
                "action \(blocked) linkActivated", "finish 1",
            ], phase: .idle),
    ]

    @Test(arguments: Form.allCases, courses)
    func notificationsComeInWebKitsOrder(form: Form, course: Course) throws {
        let (outcome, _) = try run(form.delegate(), recorded: false) { webView, _ in course.drive(webView) }
        expectEqual(outcome.log, course.log, "\(course.name)")
        expectEqual(outcome.phase, course.phase, "\(course.name)")
    }

    @Test func theCommittedURLIsTheLastPageAllowedToShow() throws {
        let webView = WebView(identifier: "page", url: "https://start.example/")
        let delegate = LoggingNavigationDelegate()
        webView.navigationDelegate = delegate
        webView.load("https://a.example/f.zip")
        webView.respond(statusCode: 200, mimeType: "application/zip")
        expectEqual(webView.url, "https://start.example/")
        webView.load("https://a.example/")
        #expect(webView.phase == .provisional && webView.isLoading)
        expectEqual(webView.url, "https://start.example/")  // not before the commit
        webView.respond(statusCode: 200, mimeType: "text/html")
        #expect(webView.url == "https://a.example/" && webView.phase == .committed)
    }

    @Test func withNoDelegateEveryNavigationIsAllowed() throws {
        let webView = WebView(identifier: "page")
        webView.load("https://a.example/d.zip")
        expectEqual(webView.phase, .provisional)
        webView.respond(statusCode: 200, mimeType: "application/zip")
        #expect(webView.phase == .committed && webView.url == "https://a.example/d.zip")
    }

    /// A new load while the delegate holds the decision gives up the earlier ask: the earlier
    /// handler, called afterwards, changes nothing, and no notification names it (it never started).
    @Test func aNewLoadGivesUpTheDecisionItWaitsFor() throws {
        let (outcome, session) = try run(HoldingNavigationDelegate(), recorded: true) { webView, delegate in
            let holding = delegate as! HoldingNavigationDelegate
            webView.load("https://a.example/")
            #expect(webView.phase == .decidingAction && webView.isWaitingForDecision && !webView.isLoading)
            webView.load("https://b.example/")
            holding.held[0](.allow)  // too late: given up
            expectEqual(webView.phase, .decidingAction)
            holding.held[1](.allow)
            webView.respond(statusCode: 200, mimeType: "text/html")
        }
        expectEqual(
            outcome.log,
            [
                "action https://a.example/ other", "action https://b.example/ other", "start 2",
                "response 200 text/html",
                "commit 2",
            ])
        expectEqual(outcome.url, "https://b.example/")
        let events = try timeline(session)
        let asks = events.filter { $0.later == .asked }
        let decisions = asks.filter { $0.callback == "webView(_:decidePolicyForNavigationAction:decisionHandler:)" }
        expectEqual(decisions.count, 2)
        expectEqual(events.filter { $0.answers == decisions[0].seq }.map(\.later), [.gaveUp, .answeredAfterGivingUp])
        let answer = try #require(events.first { $0.answers == decisions[1].seq })
        #expect(answer.later == .answered && answer.parentSeq == nil)  // given between inputs
        // What the web view did on taking the answer is nested under it.
        let start = try #require(events.first { $0.callback == "webView(_:didStartProvisionalNavigation:)" })
        expectEqual(start.parentSeq, answer.seq)
    }

    /// A committed page goes on loading while the next navigation waits for its decision.
    @Test func aLoadingPageStillLoadsWhileTheNextNavigationWaits() throws {
        let (outcome, _) = try run(HoldingNavigationDelegate(), recorded: false) { webView, delegate in
            let holding = delegate as! HoldingNavigationDelegate
            webView.load(Self.a)
            holding.held[0](.allow)
            webView.respond(statusCode: 200, mimeType: "text/html")
            webView.click(Self.b)
            #expect(webView.phase == .decidingAction && webView.isLoading && webView.url == Self.a)
            holding.held[1](.allow)
            #expect(webView.phase == .provisional && webView.isLoading)
        }
        expectEqual(
            outcome.log,
            [
                "action \(Self.a) other", "start 1", "response 200 text/html", "commit 1",
                "action \(Self.b) linkActivated",
                "fail 1 -999", "start 2",
            ])
    }

    @Test func aResponseWaitsForItsDecisionAndANewLoadCancelsIt() throws {
        // Holds the response decision: the navigation has started, so it fails with -999.
        final class HoldingResponses: LoggingNavigationDelegate {
            var held: [@Sendable (WebView.Policy) -> Void] = []
            override func webView(
                _ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse,
                decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
            ) {
                log.append("response \(navigationResponse.statusCode)")
                held.append(decisionHandler)
            }
        }
        let delegate = HoldingResponses()
        let (outcome, _) = try run(delegate, recorded: false) { webView, _ in
            webView.load("https://a.example/")
            webView.respond(statusCode: 200, mimeType: "text/html")
            #expect(webView.phase == .decidingResponse && webView.isWaitingForDecision)
            webView.load("https://b.example/")
            delegate.held[0](.allow)  // too late
        }
        expectEqual(
            outcome.log,
            [
                "action https://a.example/ other", "start 1", "response 200", "failProvisional 1 -999",
                "action https://b.example/ other", "start 2",
            ])
        #expect(outcome.url == nil)
    }

    // MARK: Auditing

    static let drives: [@Sendable (WebView, LoggingNavigationDelegate) -> Void] = [
        { webView, _ in for course in courses { course.drive(webView) } },
        { webView, delegate in
            webView.load("https://a.example/")
            webView.click("https://b.example/")
            (delegate as? HoldingNavigationDelegate)?.held.last?(.allow)
            webView.respond(statusCode: 200, mimeType: "text/html")
            webView.finishLoading()
        },
    ]

    @Test(arguments: ["handler", "async", "holding", "forgetful", "stuttering"], drives.indices)
    func auditingChangesNothing(delegate name: String, drive: Int) throws {
        func make() -> LoggingNavigationDelegate {
            switch name {
            case "async": AsyncLoggingNavigationDelegate()
            case "holding": HoldingNavigationDelegate()
            case "forgetful": ForgetfulNavigationDelegate()
            case "stuttering": StutteringNavigationDelegate()
            default: LoggingNavigationDelegate()
            }
        }
        let plain = try run(make(), recorded: false, Self.drives[drive])
        let audited = try run(make(), recorded: true, Self.drives[drive])
        expectEqual(plain.outcome, audited.outcome)
        #expect(!plain.outcome.log.isEmpty && audited.session > 0)
    }

    @Test(arguments: Form.allCases)
    func bothFormsAreRecordedAsAsksAndAnswersUnderTheirOwnProtocol(form: Form) throws {
        let (_, session) = try run(form.delegate(), recorded: true) { webView, _ in
            webView.click("https://blocked.example/")
            webView.load("https://a.example/f.zip")
            webView.respond(statusCode: 200, mimeType: "application/zip")
        }
        let events = try timeline(session)
        let protocolName = form == .handler ? "NavigationDelegate" : "AsyncNavigationDelegate"
        let decisions = events.filter { $0.callback.hasPrefix("webView(_:decidePolicyFor") }
        #expect(decisions.allSatisfy { $0.protocolName == protocolName }, "\(decisions.map(\.protocolName))")
        expectEqual(decisions.map(\.later), [.asked, .answered, .asked, .answered, .asked, .answered])
        expectEqual(decisions.map(\.vetoed), [nil, true, nil, false, nil, true])
        expectEqual(decisions.filter { $0.later == .answered }.map(\.result), ["false", "true", "false"])
        for answer in decisions where answer.later == .answered {
            expectEqual(answer.parentSeq, answer.answers)  // given at once, inside the ask
        }
        #expect(decisions[0].arguments.contains(#""navigationType":"linkActivated""#), "\(decisions[0].arguments)")
        let failure = try #require(events.first { $0.callback == "webView(_:didFailProvisionalNavigation:withError:)" })
        #expect(failure.arguments.contains(#""code":102"#) && failure.arguments.contains("WebKitErrorDomain"))
        expectEqual(failure.protocolName, "NavigationDelegate")
    }

    @Test func aHandlerNeverCalledOrCalledTwiceIsRecordedAsAMistake() throws {
        let forgetful = try timeline(
            try run(ForgetfulNavigationDelegate(), recorded: true) { webView, _ in
                webView.load("https://a.example/")
                webView.load("https://b.example/")
            }.session)
        expectEqual(forgetful.filter { $0.later == .neverAnswered }.count, 2)
        let stuttering = try timeline(
            try run(StutteringNavigationDelegate(), recorded: true) { webView, _ in
                webView.load("https://a.example/")
            }.session)
        let twice = stuttering.filter { $0.later == .answeredTwice }
        expectEqual(twice.map(\.result), ["false"])
        // The web view took the first answer: the navigation started.
        #expect(stuttering.contains { $0.callback == "webView(_:didStartProvisionalNavigation:)" })
        // Still held when the recording ends: never answered, recorded at the end.
        let held = try timeline(
            try run(HoldingNavigationDelegate(), recorded: true) { webView, _ in webView.load("https://a.example/") }
                .session)
        expectEqual(
            held.filter { $0.callback.hasPrefix("webView(_:decidePolicyFor") }.map(\.later), [.asked, .neverAnswered])
    }
}
