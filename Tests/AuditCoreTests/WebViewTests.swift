import AuditCore  // public API only, as an app would audit its own web view's delegate
import AuditExamples
import Foundation
import Testing

// A web view's navigation delegate decides later: through a decision handler, or as an `async`
// method's return. These delegates log every call they hear, one line each, so a run with the
// recorder can be compared with one without, and WebKit's order of notifications checked.

/// Logs every call; decides through the handler: a URL on `blocked.example` is cancelled, a
/// response the web view cannot show is cancelled, everything else allowed. Each method is the
/// class's own, so a subclass's override is what the protocol calls.
class LoggingNavigationDelegate: NavigationDelegate {
    var log: [String] = []

    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        log.append("action \(navigationAction.url) \(navigationAction.navigationType.rawValue)")
        decideAction(navigationAction, decisionHandler)
    }

    func webView(
        _ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        log.append("response \(navigationResponse.statusCode) \(navigationResponse.mimeType)")
        decisionHandler(Self.policy(for: navigationResponse))
    }

    func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(Self.policy(for: action))
    }

    static func policy(for action: WebView.NavigationAction) -> WebView.Policy {
        action.url.contains("://blocked.example") ? .cancel : .allow
    }

    static func policy(for response: WebView.NavigationResponse) -> WebView.Policy {
        response.canShowMIMEType ? .allow : .cancel
    }

    func webView(_ webView: WebView, didStartProvisionalNavigation navigation: WebView.Navigation) {
        log.append("start \(navigation.id)")
    }
    func webView(_ webView: WebView, didCommit navigation: WebView.Navigation) { log.append("commit \(navigation.id)") }
    func webView(_ webView: WebView, didFinish navigation: WebView.Navigation) { log.append("finish \(navigation.id)") }
    func webView(
        _ webView: WebView, didFailProvisionalNavigation navigation: WebView.Navigation,
        withError error: WebView.NavigationError
    ) {
        log.append("failProvisional \(navigation.id) \(error.code)")
    }
    func webView(_ webView: WebView, didFail navigation: WebView.Navigation, withError error: WebView.NavigationError) {
        log.append("fail \(navigation.id) \(error.code)")
    }
}

/// The same policies in the `async` form: each decision is the method's return, after a
/// suspension. The notifications are the class's above.
final class AsyncLoggingNavigationDelegate: LoggingNavigationDelegate, AsyncNavigationDelegate {
    func webView(_ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction) async
        -> WebView.Policy
    {
        log.append("action \(navigationAction.url) \(navigationAction.navigationType.rawValue)")
        await Task.yield()  // a suspension: the answer still comes before the input ends
        return Self.policy(for: navigationAction)
    }

    func webView(_ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse) async
        -> WebView.Policy
    {
        log.append("response \(navigationResponse.statusCode) \(navigationResponse.mimeType)")
        return Self.policy(for: navigationResponse)
    }
}

/// Holds each action decision until the test answers it.
final class HoldingNavigationDelegate: LoggingNavigationDelegate {
    var held: [@Sendable (WebView.Policy) -> Void] = []

    override func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        held.append(decisionHandler)
    }
}

/// Lets go of each action decision's handler without calling it.
final class ForgetfulNavigationDelegate: LoggingNavigationDelegate {
    override func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {}
}

/// Calls each action decision's handler twice: allow, then cancel.
final class StutteringNavigationDelegate: LoggingNavigationDelegate {
    override func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(.allow)
        decisionHandler(.cancel)
    }
}

/// A browser that asks the user about a host it does not know: it holds the decision until the
/// user taps Allow (segment 0) or Block (segment 1) on the prompt, a segmented control beside the
/// web view. Its answers come later, at another widget's input, in a scenario.
final class PromptingBrowser: NavigationDelegate, SegmentedControlDelegate {
    static let known: Set<String> = ["https://a.example/"]
    private var held: [@Sendable (WebView.Policy) -> Void] = []

    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        if Self.known.contains(navigationAction.url) {
            decisionHandler(.allow)
        } else {
            held.append(decisionHandler)
        }
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        let answering = held
        held = []
        for handler in answering { handler(index == 0 ? .allow : .cancel) }
    }
}

/// Allows every host at once: the prompt's taps answer nothing.
final class TrustingBrowser: NavigationDelegate, SegmentedControlDelegate {
    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(.allow)
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {}
}

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
        #expect(outcome.log == course.log, "\(course.name)")
        #expect(outcome.phase == course.phase, "\(course.name)")
    }

    @Test func theCommittedURLIsTheLastPageAllowedToShow() throws {
        let webView = WebView(identifier: "page", url: "https://start.example/")
        let delegate = LoggingNavigationDelegate()
        webView.navigationDelegate = delegate
        webView.load("https://a.example/f.zip")
        webView.respond(statusCode: 200, mimeType: "application/zip")
        #expect(webView.url == "https://start.example/")
        webView.load("https://a.example/")
        #expect(webView.phase == .provisional && webView.isLoading)
        #expect(webView.url == "https://start.example/")  // not before the commit
        webView.respond(statusCode: 200, mimeType: "text/html")
        #expect(webView.url == "https://a.example/" && webView.phase == .committed)
    }

    @Test func withNoDelegateEveryNavigationIsAllowed() throws {
        let webView = WebView(identifier: "page")
        webView.load("https://a.example/d.zip")
        #expect(webView.phase == .provisional)
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
            #expect(webView.phase == .decidingAction)
            holding.held[1](.allow)
            webView.respond(statusCode: 200, mimeType: "text/html")
        }
        #expect(
            outcome.log == [
                "action https://a.example/ other", "action https://b.example/ other", "start 2",
                "response 200 text/html",
                "commit 2",
            ])
        #expect(outcome.url == "https://b.example/")
        let events = try timeline(session)
        let asks = events.filter { $0.later == .asked }
        let decisions = asks.filter { $0.callback == "webView(_:decidePolicyForNavigationAction:decisionHandler:)" }
        #expect(decisions.count == 2)
        #expect(events.filter { $0.answers == decisions[0].seq }.map(\.later) == [.gaveUp, .answeredAfterGivingUp])
        let answer = try #require(events.first { $0.answers == decisions[1].seq })
        #expect(answer.later == .answered && answer.parentSeq == nil)  // given between inputs
        // What the web view did on taking the answer is nested under it.
        let start = try #require(events.first { $0.callback == "webView(_:didStartProvisionalNavigation:)" })
        #expect(start.parentSeq == answer.seq)
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
        #expect(
            outcome.log == [
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
        #expect(
            outcome.log == [
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
        #expect(plain.outcome == audited.outcome)
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
        #expect(decisions.map(\.later) == [.asked, .answered, .asked, .answered, .asked, .answered])
        #expect(decisions.map(\.vetoed) == [nil, true, nil, false, nil, true])
        #expect(decisions.filter { $0.later == .answered }.map(\.result) == ["false", "true", "false"])
        for answer in decisions where answer.later == .answered {
            #expect(answer.parentSeq == answer.answers)  // given at once, inside the ask
        }
        #expect(decisions[0].arguments.contains(#""navigationType":"linkActivated""#), "\(decisions[0].arguments)")
        let failure = try #require(events.first { $0.callback == "webView(_:didFailProvisionalNavigation:withError:)" })
        #expect(failure.arguments.contains(#""code":102"#) && failure.arguments.contains("WebKitErrorDomain"))
        #expect(failure.protocolName == "NavigationDelegate")
    }

    @Test func aHandlerNeverCalledOrCalledTwiceIsRecordedAsAMistake() throws {
        let forgetful = try timeline(
            try run(ForgetfulNavigationDelegate(), recorded: true) { webView, _ in
                webView.load("https://a.example/")
                webView.load("https://b.example/")
            }.session)
        #expect(forgetful.filter { $0.later == .neverAnswered }.count == 2)
        let stuttering = try timeline(
            try run(StutteringNavigationDelegate(), recorded: true) { webView, _ in
                webView.load("https://a.example/")
            }.session)
        let twice = stuttering.filter { $0.later == .answeredTwice }
        #expect(twice.map(\.result) == ["false"])
        // The web view took the first answer: the navigation started.
        #expect(stuttering.contains { $0.callback == "webView(_:didStartProvisionalNavigation:)" })
        // Still held when the recording ends: never answered, recorded at the end.
        let held = try timeline(
            try run(HoldingNavigationDelegate(), recorded: true) { webView, _ in webView.load("https://a.example/") }
                .session)
        #expect(
            held.filter { $0.callback.hasPrefix("webView(_:decidePolicyFor") }.map(\.later) == [.asked, .neverAnswered])
    }

    // MARK: The browser example, replayed

    func recordBrowser(_ delegate: String = "browser.v1") throws -> Int64 {
        try ScenarioRunner.record(
            try Examples.browser(), delegate: delegate, registry: .examples, databasePath: database
        ).session
    }

    @Test func theBrowserExampleRunsEveryCourse() throws {
        let session = try recordBrowser()
        let events = try timeline(session)
        let names = Set(events.filter { $0.kind == .callback }.map(\.callback))
        #expect(names == Set(WebView.callbacks.descriptors.map(\.name)))
        #expect(events.filter { $0.vetoed == true }.count == 2)  // the ad host and the download
        #expect(events.filter { $0.kind == .input }.count == 18)
    }

    @Test func replayingV1AgainstItselfFindsNothingInEitherMode() throws {
        let session = try recordBrowser()
        let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try replayer.replay(session: session, delegate: "browser.v1", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences.prefix(3))")
        }
    }

    /// Isolated mode asks v2 each recorded question and gives the web view the recorded answer:
    /// the run keeps the recording's course, and the one answer that differs is the one found.
    @Test func isolatedReplayAgainstV2FindsExactlyThePlantedDifference() throws {
        let session = try recordBrowser()
        let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
        let report = try replayer.replay(session: session, delegate: "browser.v2", mode: .isolated)
        let differences = report.diff.differences
        #expect(differences.count == 1, "\(differences)")
        let planted = try #require(differences.first)
        #expect(planted.kind == .vetoChanged)
        #expect(planted.event.callback == "webView(_:decidePolicyForNavigationAction:decisionHandler:)")
        #expect(planted.a?.later == .answered && planted.a?.result == "true" && planted.b?.result == "false")
        let ask = try #require(try timeline(session).first { $0.seq == planted.a?.answers })
        #expect(ask.later == .asked && ask.arguments.contains(#"http://example.com/archive"#), "\(ask.arguments)")
    }

    /// Interaction mode lets v2's cancel take effect: the planted veto (1), then what the
    /// navigation to the plain-http page no longer does, only in the recording (5: its
    /// didStartProvisionalNavigation, the response decision's ask and answer, didCommit,
    /// didFinish), and the result of every input until another page commits (7: the click itself,
    /// its respond and finish, then the download's click and respond and both loads, whose results
    /// still name the page v1 had shown and v2 never did). 13 in all.
    @Test func interactionReplayAgainstV2FindsThePlantedDifferenceAndWhatFollows() throws {
        let session = try recordBrowser()
        let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
        let report = try replayer.replay(session: session, delegate: "browser.v2", mode: .interaction)
        let differences = report.diff.differences
        let kinds = Dictionary(grouping: differences, by: \.kind).mapValues(\.count)
        #expect(kinds == [.vetoChanged: 1, .onlyInA: 5, .resultChanged: 7], "\(kinds)")
        #expect(differences.count == 13)
        #expect(
            differences.filter { $0.kind == .onlyInA }.map(\.event.callback) == [
                "webView(_:didStartProvisionalNavigation:)",
                "webView(_:decidePolicyForNavigationResponse:decisionHandler:)",
                "webView(_:decidePolicyForNavigationResponse:decisionHandler:)", "webView(_:didCommit:)",
                "webView(_:didFinish:)",
            ])
        #expect(
            differences.filter { $0.kind == .resultChanged }.map(\.event.callback) == [
                "click", "respond", "finish", "click", "respond", "load", "load",
            ])
        let first = try #require(report.firstDivergence)
        #expect(first.difference.kind == .vetoChanged)
        #expect(first.input?.callback == "click" && first.input?.arguments == #"{"url":"http://example.com/archive"}"#)
    }

    /// The two forms are two protocols: a delegate moved from the handler form to the `async` form,
    /// with the same policies, replays against a recording of the other form as other callbacks.
    /// Interaction mode: each of the 13 decisions' ask and answer only in the recording (26) and
    /// the async ones only in the candidate (26). Isolated mode: the web view asks a callback the
    /// recording does not have, so the run leaves the recording's course at the first decision
    /// (1 difference, the rest not compared, as the report says).
    @Test func aDelegateMovedToTheOtherFormReplaysAsOtherCallbacks() throws {
        var registry = DelegateRegistry()
        registry.register("handler", summary: "handler form") { LoggingNavigationDelegate() }
        registry.register("async", summary: "async form, same policies") { AsyncLoggingNavigationDelegate() }
        let session = try ScenarioRunner.record(
            try Examples.browser(), delegate: "handler", registry: registry, databasePath: database
        ).session
        let replayer = Replayer(databasePath: database, registry: registry, catalog: .builtIn)
        let interaction = try replayer.replay(session: session, delegate: "async", mode: .interaction)
        #expect(
            Dictionary(grouping: interaction.diff.differences, by: \.kind).mapValues(\.count) == [
                .onlyInA: 26, .onlyInB: 26,
            ])
        #expect(
            Set(interaction.diff.differences.map { $0.event.protocolName ?? "" }) == [
                "NavigationDelegate", "AsyncNavigationDelegate",
            ])
        let isolated = try replayer.replay(session: session, delegate: "async", mode: .isolated)
        #expect(isolated.diff.differences.map(\.kind) == [.onlyInA])
        #expect(isolated.diff.differences.first?.event.later == .asked)
        #expect(isolated.leftCourse != nil)
        let same = try replayer.replay(session: session, delegate: "handler", mode: .isolated)
        #expect(same.identical && same.leftCourse == nil)
    }

    /// `explore` drives the web view too: random navigations and network answers on the browser
    /// example find v2's change, and the same seed finds it again.
    @Test func exploringTheBrowserFindsThePlantedDifference() throws {
        var options = Explorer.Options()
        options.runs = 50
        options.stepsPerRun = 12
        let explorer = Explorer(scenario: try Examples.browser(), registry: .examples, options: options)
        let result = try explorer.explore(delegate: "browser.v1", candidate: "browser.v2")
        let finding = try #require(result.finding)
        #expect(finding.steps.contains { $0.action == "load" || $0.action == "click" })
        #expect(finding.minimized.steps.count <= finding.steps.count)
        let again = try explorer.explore(delegate: "browser.v1", candidate: "browser.v2")
        #expect(again.finding?.run == finding.run)
        let same = try explorer.explore(delegate: "browser.v1", candidate: "browser.v1")
        #expect(same.finding == nil)
    }

    // MARK: Answers given later in a scenario

    static let promptScenario = #"""
        {
          "format": 1, "name": "prompt", "delegate": "prompting",
          "root": { "kind": "View", "id": "browser", "children": [
            { "kind": "WebView", "id": "page", "url": "https://a.example/" },
            { "kind": "SegmentedControl", "id": "prompt", "segments": ["Allow", "Block"] }
          ] },
          "steps": [
            { "action": "load", "widget": "browser/page", "url": "https://new.example/" },
            { "action": "tapSegment", "widget": "browser/prompt", "segment": 0 },
            { "action": "respond", "widget": "browser/page", "statusCode": 200 },
            { "action": "finish", "widget": "browser/page" },
            { "action": "click", "widget": "browser/page", "url": "https://other.example/" },
            { "action": "click", "widget": "browser/page", "url": "https://third.example/" },
            { "action": "tapSegment", "widget": "browser/prompt", "segment": 1 },
            { "action": "load", "widget": "browser/page", "url": "https://a.example/" },
            { "action": "respond", "widget": "browser/page", "statusCode": 200 }
          ]
        }
        """#

    static let promptRegistry: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("prompting", summary: "asks the user about unknown hosts") { PromptingBrowser() }
        registry.register("trusting", summary: "allows every host at once") { TrustingBrowser() }
        return registry
    }()

    func recordPrompt() throws -> Int64 {
        let scenario = try Scenario(data: Data(Self.promptScenario.utf8), catalog: .builtIn)
        return try ScenarioRunner.record(
            scenario, delegate: nil, registry: Self.promptRegistry, databasePath: database
        ).session
    }

    /// The user's tap answers the held decision: the answer is nested under the tap's
    /// didSelect callback, and the navigation's start under the answer.
    @Test func aDecisionTheUserAnswersLaterIsRecordedUnderTheTap() throws {
        let events = try timeline(try recordPrompt())
        let decisions = events.filter { $0.callback == "webView(_:decidePolicyForNavigationAction:decisionHandler:)" }
        // new.example: asked, answered at the tap; other.example: given up for third.example,
        // answered (cancel) at the second tap; a.example: answered at once.
        #expect(
            decisions.map(\.later) == [
                .asked, .answered, .asked, .gaveUp, .asked, .answeredAfterGivingUp, .answered, .asked, .answered,
            ])
        let firstAnswer = try #require(decisions.first { $0.later == .answered })
        let didSelect = try #require(events.first { $0.callback.hasPrefix("segmentedControl(_:didSelectSegmentAt:") })
        #expect(firstAnswer.parentSeq == didSelect.seq)
        let start = try #require(events.first { $0.callback == "webView(_:didStartProvisionalNavigation:)" })
        #expect(start.parentSeq == firstAnswer.seq)
    }

    @Test func aDecisionTheUserAnswersLaterReplaysIdenticallyInBothModes() throws {
        let session = try recordPrompt()
        let replayer = Replayer(databasePath: database, registry: Self.promptRegistry, catalog: .builtIn)
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try replayer.replay(session: session, delegate: "prompting", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences.map { "\($0.kind) \($0.event.callback)" })")
        }
    }

    /// A delegate that answers at once where the recording's answers came with the taps.
    ///
    /// Interaction mode compares each answer with its own ask's, wherever it comes, and the
    /// timelines around them: 13 differences. 3 input results (the load and both clicks leave the
    /// web view provisional, not deciding); 6 events only in the candidate (its 3
    /// didStartProvisionalNavigation, its answer for the second host, which the recording gave up
    /// on, and 2 didFailProvisional with -999, as the second click and the last load replace a
    /// navigation that had started); 2 only in the recording (the first
    /// didStartProvisionalNavigation, nested under the tap, and the give-up); the mistake only the
    /// recording made (answered after giving up); and the Block tap's cancel against an allow
    /// (veto changed).
    ///
    /// Isolated mode compares each first answer whatever its time: 2 differences, the same veto
    /// and the same mistake.
    @Test func anAnswerGivenAtAnotherTimeIsADifference() throws {
        let session = try recordPrompt()
        let replayer = Replayer(databasePath: database, registry: Self.promptRegistry, catalog: .builtIn)
        let interaction = try replayer.replay(session: session, delegate: "trusting", mode: .interaction)
        #expect(
            Dictionary(grouping: interaction.diff.differences, by: \.kind).mapValues(\.count) == [
                .resultChanged: 3, .onlyInB: 6, .onlyInA: 2, .mistake: 1, .vetoChanged: 1,
            ])
        let isolated = try replayer.replay(session: session, delegate: "trusting", mode: .isolated)
        #expect(isolated.diff.differences.map(\.kind) == [.mistake, .vetoChanged])
        #expect(isolated.diff.differences.map(\.event.later) == [.answeredAfterGivingUp, .answered])
    }

    /// With no delegate at all the web view takes the default (allow), and both the ask and the
    /// answer are recorded as not implemented.
    @Test func withNoDelegateTheDefaultAnswerIsRecordedAsNotImplemented() throws {
        let webView = WebView(identifier: "page")
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "web", delegate: "none"), catalog: .builtIn)
        try recorder.attach(to: webView)
        webView.load(Self.a)
        let session = recorder.finish().session
        let decisions = try timeline(session).filter { $0.callback.hasPrefix("webView(_:decidePolicyFor") }
        #expect(decisions.map(\.later) == [.asked, .answered])
        #expect(decisions.first?.implemented == false)
        #expect(decisions.last?.implemented == false)
    }
}
