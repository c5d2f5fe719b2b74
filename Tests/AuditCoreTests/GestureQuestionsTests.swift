import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Only the questions UIKit asks (issue #32, item 6): no simultaneity question where a class rule
/// already says that neither recognizer can block the other, and none to a recognizer that has
/// failed — it is asked nothing more in that sequence (the Gestures article, rules 3, 6 and 7).
@Suite("Gesture questions UIKit does not ask are not asked")
struct GestureQuestionsTests {
    /// The order the two taps are added to the cell in, so join order.
    enum Order: String, CaseIterable {
        case singleFirst
        case doubleFirst
    }

    /// A single and a double tap on the cell, no failure requirement, one delegate that would let
    /// any pair recognize together if asked.
    func twoTaps(_ order: Order) -> (GestureFixture, ScriptedGestureDelegate) {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        delegate.simultaneous = { _, _ in true }
        let single = TapGestureRecognizer(identifier: "single")
        let double = TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2)
        for tap in order == .singleFirst ? [single, double] : [double, single] {
            fixture.add(tap, to: fixture.cell)
            tap.delegate = delegate
        }
        return (fixture, delegate)
    }

    // UIGestureRecognizerSubclass.h: "a UITapGestureRecognizer never prevents another
    // UITapGestureRecognizer with a higher tap count"; UIGestureRecognizer.h asks
    // shouldRecognizeSimultaneouslyWith only "when the recognition of one of gestureRecognizer or
    // otherGestureRecognizer would be blocked by the other". The single tap cannot block the double
    // tap, so its lift asks nothing but its own shouldBegin.
    @Test(arguments: Order.allCases)
    func theTapCountRuleDecidesBeforeAnyDelegateIsAsked(order: Order) {
        let (fixture, delegate) = twoTaps(order)
        fixture.send(tapEvents(at: Point(x: 50, y: 50), time: 0))
        expectEqual(fixture.actions, ["cell#single ended @0.1"])
        let afterJoining = delegate.calls.drop { !$0.contains("shouldBegin") }
        expectEqual(Array(afterJoining), ["single.shouldBegin true"])
        #expect(!delegate.calls.contains { $0.contains("simultaneous") || $0.contains("Prevent") })
        fixture.dispatcher.settle()  // the double tap gives up: no question either
        expectEqual(Array(delegate.calls.drop { !$0.contains("shouldBegin") }), ["single.shouldBegin true"])
    }

    /// A tap on the cell that waits for the container's pan, the way the requirement is made.
    func tapWaitingForPan(_ requirement: GestureArbitrationTests.Requirement) -> (
        GestureFixture, ScriptedGestureDelegate, TapGestureRecognizer
    ) {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let tap = fixture.add(TapGestureRecognizer(identifier: "tap"), to: fixture.cell)
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        tap.delegate = delegate
        pan.delegate = delegate
        switch requirement {
        case .inCode: tap.require(toFail: pan)
        case .shouldRequireFailureOf: delegate.requireFailure = { recognizer, _ in recognizer === tap }
        case .shouldBeRequiredToFailBy: delegate.beRequiredToFail = { recognizer, _ in recognizer === pan }
        }
        // Asked, either would let both recognize: the requirement must still win, unasked.
        delegate.simultaneous = { _, _ in true }
        return (fixture, delegate, tap)
    }

    // UIGestureRecognizer.h, requireGestureRecognizerToFail: "if otherGestureRecognizer transitions
    // to UIGestureRecognizerStateRecognized or UIGestureRecognizerStateBegan then this recognizer
    // will instead transition to UIGestureRecognizerStateFailed". The pan begins, the tap it holds
    // back fails, and is not asked whether it may recognize with the pan or be prevented by it.
    @Test(arguments: GestureArbitrationTests.Requirement.allCases)
    func aTapFailedByThePanItWaitsForIsAskedNothingMore(requirement: GestureArbitrationTests.Requirement) {
        let (fixture, delegate, tap) = tapWaitingForPan(requirement)
        fixture.send([touch(.began, 50, 50, 0), touch(.moved, 70, 50, 0.1)])
        expectEqual(fixture.actions, ["container#pan began @0.1"])
        expectEqual(tap.state, .possible)  // failed, reset and released (rule 9)
        expectEqual(delegate.calls.last, "pan.shouldBegin true")
        fixture.send([touch(.ended, 70, 50, 0.2)])
        fixture.dispatcher.settle()
        expectEqual(fixture.actions, ["container#pan began @0.1", "container#pan ended @0.2"])
        expectEqual(delegate.calls.last, "pan.shouldBegin true")
        #expect(!delegate.calls.contains { $0.contains("simultaneous") || $0.contains("Prevent") })
    }

    // Rule 3: a member that failed — here disabled between events, so still in the sequence until
    // the end of the next one (rule 10) — is not paired with a recognizer that joins on a new
    // finger: neither is asked the failure-requirement questions about the other.
    @Test func aFailedMemberIsNotAskedTheFailureQuestionsWithANewcomer() {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        let tap = fixture.add(TapGestureRecognizer(identifier: "tap"), to: fixture.cell)
        pan.delegate = delegate
        tap.delegate = delegate
        fixture.send([touch(.began, 200, 200, 0)])  // on the container, outside the cell
        pan.isEnabled = false
        expectEqual(pan.state, .failed)
        expectEqual(fixture.dispatcher.activeRecognizers.map(\.identifier), ["pan"])  // still a member
        fixture.send(tapEvents(at: Point(x: 50, y: 50), time: 0.1, id: 2) + [touch(.ended, 200, 200, 0.3)])
        expectEqual(fixture.actions, ["cell#tap ended @0.2"])
        expectEqual(delegate.calls, ["pan.shouldReceive(1) true", "tap.shouldReceive(2) true", "tap.shouldBegin true"])
    }

    // The recorded form of the two rules, on the demo's pay button: a single tap (`confirm`) that
    // waits for a double tap (`quickPay`). Recorded with checkout.v1, the double tap recognizes and
    // the single tap fails by its requirement; neither is asked about simultaneity or prevention.
    @Test func theCheckoutDoubleTapRecordsNoQuestionAfterTheSingleTapFailed() throws {
        let folder = TemporaryDirectory()
        let database = folder.path("audit.sqlite")
        let recorded = try ScenarioRunner.record(
            try Examples.checkout(), delegate: nil, registry: .examples, databasePath: database)
        let timeline = try AuditStore(path: database, access: .read).timeline(of: recorded.session)
        let questions = timeline.filter {
            ($0.widget ?? "").hasPrefix("checkout/pay#") && $0.kind == .callback
                && !["gestureRecognizer(_:shouldReceive:)", "gestureRecognizerShouldBegin(_:)"].contains($0.callback)
                && !$0.callback.contains("Fail")
        }
        expectEqual(questions.map { "\($0.widget ?? "") \($0.callback)" }, [])
    }
}
