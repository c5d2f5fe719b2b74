import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// `coverage`: for every widget of the sessions and every callback its kind declares, whether it
/// was called, which answers were seen, and the inputs that reached it — a user's own kind too.
@Suite("Coverage of stored sessions")
struct CoverageTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func row(_ report: CoverageReport, _ widget: String, _ callback: String) throws -> CoverageReport.Row {
        try #require(report.rows.first { $0.widget == widget && $0.callback == callback })
    }

    @Test func theExampleShowsWhatItCoversAndWhatNot() throws {
        let recorded = try ScenarioRunner.record(
            try Examples.checkout(), delegate: nil, registry: .examples, databasePath: database)
        let store = try AuditStore(path: database, access: .read)
        let report = try CoverageReport(sessions: [recorded.session], catalog: .builtIn, in: store)
        let select = try row(report, "checkout/shipping", "segmentedControl(_:shouldSelectSegmentAt:)")
        #expect(select.calls > 0 && select.implemented == select.calls)
        expectEqual(select.missingBranches, ["vetoed"])
        #expect(select.inputs.contains("tapSegment on checkout/shipping"))
        // The table is never scrolled in the example (it is shorter than its frame): its scroll
        // callbacks are never called. Nor are the simultaneity and prevention questions between
        // recognizers that never compete in it: the pay button's single tap waits for its double
        // tap, so it fails unasked when the double tap recognizes (issue #32, item 6), and v1 lets
        // the back pan recognize with the long press. Checked by hand against the scenario: exactly
        // these.
        let never = report.rows.filter { $0.calls == 0 }.map { "\($0.widget) \($0.callback)" }
        let scrolling = [
            "scrollViewDidScroll(_:)", "scrollViewWillBeginDragging(_:)",
            "scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)",
            "scrollViewDidEndDragging(_:willDecelerate:)", "scrollViewWillBeginDecelerating(_:)",
            "scrollViewDidEndDecelerating(_:)", "scrollViewShouldScrollToTop(_:)", "scrollViewDidScrollToTop(_:)",
        ]
        expectEqual(
            Set(never),
            Set(
                [
                    "checkout#back gestureRecognizer(_:canPrevent:)",
                    "checkout#back gestureRecognizer(_:canBePreventedBy:)",
                    "checkout/items#reorder gestureRecognizer(_:canBePreventedBy:)",
                    "checkout/pay#confirm gestureRecognizer(_:canPrevent:)",
                    "checkout/pay#confirm gestureRecognizer(_:canBePreventedBy:)",
                    "checkout/pay#confirm gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:)",
                    "checkout/pay#quickPay gestureRecognizer(_:canPrevent:)",
                    "checkout/pay#quickPay gestureRecognizer(_:canBePreventedBy:)",
                    "checkout/pay#quickPay gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:)",
                ] + scrolling.map { "checkout/items \($0)" }))
        // A view has no delegate of its own; its recognizers have the seven questions each.
        #expect(!report.rows.contains { $0.widget == "checkout" })
        expectEqual(report.rows.filter { $0.widget == "checkout/pay#confirm" }.count, 7)
        let total = report.total
        #expect(total.callbacks == report.rows.count && total.called == report.rows.count { $0.calls > 0 })
        #expect(
            report.byProtocol.map(\.tally.callbacks).reduce(0, +) == total.callbacks
                && report.byProtocol.map(\.tally.branches).reduce(0, +) == total.branches)

        // The replay against checkout.v2 vetoes the selection: with it, both answers are covered.
        let replay = try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
            session: recorded.session, delegate: "checkout.v2", mode: .interaction)
        let both = try CoverageReport(sessions: [recorded.session, replay.candidate.id], catalog: .builtIn, in: store)
        try expectEqual(
            row(both, "checkout/shipping", "segmentedControl(_:shouldSelectSegmentAt:)").missingBranches, [])
        #expect(both.total.branchesSeen > total.branchesSeen)
    }

    /// The point of argument classes: a callback whose both answers were seen, yet whose arguments
    /// were never tried in ways a change could hang on.
    @Test func bothAnswersSeenButArgumentClassesNeverTried() throws {
        let recorded = try ScenarioRunner.record(
            try Examples.checkout(), delegate: "checkout.v1", registry: .examples, databasePath: database)
        let store = try AuditStore(path: database, access: .read)
        let report = try CoverageReport(sessions: [recorded.session], catalog: .builtIn, in: store)
        func names(_ classes: [ArgumentClass]?) -> [String] { (classes ?? []).map(\.description) }

        // The coupon: allowed ("SAVE10") and vetoed ("x") both seen, so `coverage` counted it
        // covered; but no space, line break, punctuation or accented letter was ever typed, and
        // lowercase only with the veto (checkout.v2 allows it).
        let coupon = try row(report, "checkout/coupon", "textView(_:shouldChangeTextIn:replacementText:)")
        expectEqual(coupon.missingBranches, [])
        #expect(names(coupon.argumentClasses["allowed"]).contains("replacementText: uppercase"))
        #expect(!names(coupon.argumentClasses["allowed"]).contains("replacementText: lowercase"))
        #expect(names(coupon.argumentClasses["vetoed"]).contains("replacementText: lowercase"))
        expectEqual(
            names(coupon.untriedClasses).filter { $0.hasPrefix("replacementText") },
            [
                "replacementText: empty", "replacementText: whitespace", "replacementText: line break",
                "replacementText: other ASCII", "replacementText: non-ASCII",
            ])
        expectEqual(coupon.states, ["allowed": [.input], "vetoed": [.input]])

        // Selecting a row: kept and overridden both seen, but kept never with row 0 — the first row
        // was never tapped, which is where a veto of the first row would show.
        let willSelect = try row(report, "checkout/items", "tableView(_:willSelectRowAt:)")
        expectEqual(willSelect.missingBranches, [])
        expectEqual(names(willSelect.argumentClasses["kept"]), ["indexPath.row: positive", "indexPath.section: zero"])
        expectEqual(names(willSelect.untriedClasses), ["indexPath.row: negative", "indexPath.section: negative"])

        // A recognizer named in an argument is listed as the widget it is, not classified as text.
        let simultaneous = try row(report, "checkout#back", "gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:)")
        expectEqual(simultaneous.widgetArguments, ["overridden": ["otherGestureRecognizer checkout/items#reorder"]])
        #expect(simultaneous.argumentClasses.isEmpty && simultaneous.untriedClasses.isEmpty)
        // A callback without arguments has no classes; a callback never called has nothing at all.
        let begin = try row(report, "checkout/coupon", "textViewShouldBeginEditing(_:)")
        #expect(begin.argumentClasses.isEmpty && begin.states == ["allowed": [.input]])
        #expect(report.rows.filter { $0.calls == 0 }.allSatisfy { $0.states.isEmpty && $0.argumentClasses.isEmpty })
        // The total counts each row's classes tried and untried.
        expectEqual(
            report.total.argumentClasses,
            report.rows.map { $0.triedClasses.count + $0.untriedClasses.count }.reduce(0, +))
        #expect(report.total.argumentClassesTried < report.total.argumentClasses)

        let page = HTMLTimeline.coverage(report, limits: .init(textLength: 1_000))
        #expect(page.contains("Answers by argument class and state"))
        #expect(
            page.contains(
                "replacementText empty, whitespace, line break, other ASCII, non-ASCII"))
        #expect(page.contains("otherGestureRecognizer checkout/items#reorder"))
    }

    /// A callback asked inside another callback (a selection made in code from a did-select) is
    /// told apart from one asked by an input, and one asked outside any input from both.
    @Test func statesTellWhereACallbackWasAskedFrom() throws {
        /// Up to two, and once told of a change, asks again about ten more: from inside a callback.
        final class AsksAgain: StepperDelegate {
            var asked = false
            func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool { value <= 2 }
            func stepper(_ stepper: Stepper, didChangeTo value: Int) {
                guard !asked else { return }
                asked = true
                _ = Stepper.callbacks.shouldChange.ask(self, stepper, value + 10)
            }
        }
        let delegate = AsksAgain()
        let stepper = Stepper(identifier: "stepper")
        stepper.delegate = delegate
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "steps", delegate: "AsksAgain"),
            catalog: CustomWidgetTests.catalog)
        try recorder.attach(to: stepper)
        stepper.increment()
        _ = Stepper.callbacks.shouldChange.ask(delegate, stepper, -1)  // by code, outside any input
        let session = recorder.finish().session
        let report = try CoverageReport(
            sessions: [session], catalog: CustomWidgetTests.catalog, in: AuditStore(path: database, access: .read))
        let shouldChange = try row(report, "stepper", "stepper(_:shouldChangeTo:)")
        expectEqual(shouldChange.states, ["allowed": [.input, .outside], "vetoed": [.callback]])
        expectEqual(
            shouldChange.argumentClasses.mapValues { $0.map(\.description) },
            [
                "allowed": ["value: negative", "value: positive"], "vetoed": ["value: positive"],
            ])
        expectEqual(shouldChange.untriedClasses.map(\.description), ["value: zero"])
        try expectEqual(row(report, "stepper", "stepper(_:didChangeTo:)").states, ["called": [.input]])
    }

    @Test func aUsersOwnWidgetKindIsCovered() throws {
        let delegate = UpToTwo()
        let stepper = Stepper(identifier: "stepper")
        stepper.delegate = delegate
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "steps", delegate: "UpToTwo"),
            catalog: CustomWidgetTests.catalog)
        try recorder.attach(to: stepper)
        for _ in 0..<3 { stepper.increment() }
        let session = recorder.finish().session
        let report = try CoverageReport(
            sessions: [session], catalog: CustomWidgetTests.catalog, in: AuditStore(path: database, access: .read))
        let declared = Stepper.kind.callbacks.map(\.descriptor.name)
        expectEqual(report.rows.map(\.callback), declared)
        #expect(report.rows.allSatisfy { $0.widget == "stepper" && $0.widgetKind == "Stepper" })
        let vetoable = try #require(report.rows.first { $0.answer == .veto })
        #expect(vetoable.branches["vetoed"] == 1 && vetoable.branches["allowed"] == 2)
    }

    /// A widget path or callback name with markup in it is shown, never run.
    @Test func recordedMarkupIsEscaped() throws {
        let report = CoverageReport(
            sessions: [1],
            rows: [
                CoverageReport.Row(
                    widget: "<script>alert(1)</script>", widgetKind: "K", protocolName: "P&Q", callback: "c\"x",
                    answer: .veto, branches: ["allowed": 0, "vetoed": 0])
            ])
        let page = HTMLTimeline.coverage(report)
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("P&amp;Q.c&quot;x"))
    }
}
