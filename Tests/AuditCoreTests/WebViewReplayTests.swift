import AuditCore  // public API only, as an app would audit its own web view's delegate
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

extension WebViewTests {
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
        expectEqual(names, Set(WebView.callbacks.descriptors.map(\.name)))
        expectEqual(events.filter { $0.vetoed == true }.count, 2)  // the ad host and the download
        expectEqual(events.filter { $0.kind == .input }.count, 18)
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
        expectEqual(differences.count, 1, "\(differences)")
        let planted = try #require(differences.first)
        expectEqual(planted.kind, .vetoChanged)
        expectEqual(planted.event.callback, "webView(_:decidePolicyForNavigationAction:decisionHandler:)")
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
        expectEqual(kinds, [.vetoChanged: 1, .onlyInA: 5, .resultChanged: 7], "\(kinds)")
        expectEqual(differences.count, 13)
        expectEqual(
            differences.filter { $0.kind == .onlyInA }.map(\.event.callback),
            [
                "webView(_:didStartProvisionalNavigation:)",
                "webView(_:decidePolicyForNavigationResponse:decisionHandler:)",
                "webView(_:decidePolicyForNavigationResponse:decisionHandler:)", "webView(_:didCommit:)",
                "webView(_:didFinish:)",
            ])
        expectEqual(
            differences.filter { $0.kind == .resultChanged }.map(\.event.callback),
            [
                "click", "respond", "finish", "click", "respond", "load", "load",
            ])
        let first = try #require(report.firstDivergence)
        expectEqual(first.difference.kind, .vetoChanged)
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
        expectEqual(
            Dictionary(grouping: interaction.diff.differences, by: \.kind).mapValues(\.count),
            [
                .onlyInA: 26, .onlyInB: 26,
            ])
        expectEqual(
            Set(interaction.diff.differences.map { $0.event.protocolName ?? "" }),
            [
                "NavigationDelegate", "AsyncNavigationDelegate",
            ])
        let isolated = try replayer.replay(session: session, delegate: "async", mode: .isolated)
        expectEqual(isolated.diff.differences.map(\.kind), [.onlyInA])
        expectEqual(isolated.diff.differences.first?.event.later, .asked)
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
        expectEqual(again.finding?.run, finding.run)
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
        expectEqual(
            decisions.map(\.later),
            [
                .asked, .answered, .asked, .gaveUp, .asked, .answeredAfterGivingUp, .answered, .asked, .answered,
            ])
        let firstAnswer = try #require(decisions.first { $0.later == .answered })
        let didSelect = try #require(events.first { $0.callback.hasPrefix("segmentedControl(_:didSelectSegmentAt:") })
        expectEqual(firstAnswer.parentSeq, didSelect.seq)
        let start = try #require(events.first { $0.callback == "webView(_:didStartProvisionalNavigation:)" })
        expectEqual(start.parentSeq, firstAnswer.seq)
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
        expectEqual(
            Dictionary(grouping: interaction.diff.differences, by: \.kind).mapValues(\.count),
            [
                .resultChanged: 3, .onlyInB: 6, .onlyInA: 2, .mistake: 1, .vetoChanged: 1,
            ])
        let isolated = try replayer.replay(session: session, delegate: "trusting", mode: .isolated)
        expectEqual(isolated.diff.differences.map(\.kind), [.mistake, .vetoChanged])
        expectEqual(isolated.diff.differences.map(\.event.later), [.answeredAfterGivingUp, .answered])
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
        expectEqual(decisions.map(\.later), [.asked, .answered])
        expectEqual(decisions.first?.implemented, false)
        expectEqual(decisions.last?.implemented, false)
    }
}
