import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Golden timelines of the rules issue #13 brought in line with UIKit: every question a delegate
/// is asked, in order, with the actions that ran (the Gestures article, "The rules").
@Suite("Gesture arbitration in UIKit's order: when each delegate question is asked")
struct GestureUIKitOrderTests {
    let folder = TemporaryDirectory()
    /// A single tap that requires a double tap to fail, both on the cell, logging to one delegate.
    func singleWaitingForDouble() -> (GestureFixture, ScriptedGestureDelegate, TapGestureRecognizer) {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let single = fixture.add(TapGestureRecognizer(identifier: "single"), to: fixture.cell)
        let double = fixture.add(TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2), to: fixture.cell)
        single.delegate = delegate
        double.delegate = delegate
        single.require(toFail: double)
        return (fixture, delegate, single)
    }

    let joinQuestions = [
        "single.shouldReceive(1) true", "double.shouldReceive(1) true", "double.requireFailure(single) false",
        "single.beRequiredToFail(double) false", "single.requireFailure(double) false",
        "double.beRequiredToFail(single) false",
    ]

    // UIGestureRecognizer.h: gestureRecognizerShouldBegin is "called when a gesture recognizer
    // attempts to transition out of UIGestureRecognizerStatePossible" — at the single tap's lift,
    // before its failure requirement is resolved. While it waits it reads `ended`; its action waits.
    @Test func shouldBeginIsAskedAtTheLiftBeforeTheRequirementIsResolved() {
        let (fixture, delegate, single) = singleWaitingForDouble()
        fixture.send(tapEvents(at: Point(x: 50, y: 50), time: 0))
        expectEqual(delegate.calls, joinQuestions + ["single.shouldBegin true"])
        expectEqual(single.state, .ended)
        #expect(fixture.actions.isEmpty)
        fixture.dispatcher.settle()
        expectEqual(fixture.actions, ["cell#single ended @0.45"])
        expectEqual(delegate.calls, joinQuestions + ["single.shouldBegin true"])  // asked once
        expectEqual(single.state, .possible)  // reset
    }

    @Test func shouldBeginIsAskedEvenWhenTheDoubleTapThenWins() {
        let (fixture, delegate, _) = singleWaitingForDouble()
        fixture.dispatcher.perform(
            tapEvents(at: Point(x: 50, y: 50), time: 0) + tapEvents(at: Point(x: 50, y: 50), time: 0.2))
        expectEqual(fixture.actions, ["cell#double ended @0.3"])
        // The waiting single tap is not offered the second finger; it fails by its requirement when
        // the double tap recognizes, and is asked nothing more.
        expectEqual(
            delegate.calls,
            joinQuestions + [
                "single.shouldBegin true", "double.shouldReceive(1) true", "double.shouldBegin true",
            ])
    }

    @Test func aShouldBeginVetoAtTheLiftFailsTheWaitingTapAtOnce() {
        let (fixture, delegate, single) = singleWaitingForDouble()
        delegate.shouldBegin = { $0 !== single }
        fixture.send(tapEvents(at: Point(x: 50, y: 50), time: 0))
        expectEqual(fixture.dispatcher.activeRecognizers.map(\.identifier), ["double"])  // failed, reset
        fixture.dispatcher.settle()
        #expect(fixture.actions.isEmpty)
        expectEqual(delegate.calls, joinQuestions + ["single.shouldBegin false"])
    }

    // The tap-count rule. UIGestureRecognizerSubclass.h, on canPreventGestureRecognizer: "for
    // example, a UITapGestureRecognizer never prevents another UITapGestureRecognizer with a higher
    // tap count". The class rule answers before the delegates, which are not asked about it: not
    // even about simultaneity, asked only "when the recognition of one of gestureRecognizer or
    // otherGestureRecognizer would be blocked by the other" (UIGestureRecognizer.h).
    @Test func aTapNeverPreventsATapWithAHigherTapCount() {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let single = fixture.add(TapGestureRecognizer(identifier: "single"), to: fixture.cell)
        let double = fixture.add(TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2), to: fixture.cell)
        single.delegate = delegate
        double.delegate = delegate
        fixture.dispatcher.perform(
            tapEvents(at: Point(x: 50, y: 50), time: 0) + tapEvents(at: Point(x: 50, y: 50), time: 0.2))
        expectEqual(fixture.actions, ["cell#single ended @0.1", "cell#double ended @0.3"])
        // Reset after its first tap (rule 9), the single tap takes the second finger and joins again;
        // at the second lift both ask, and the double tap, now first in the sequence, prevents it.
        expectEqual(
            delegate.calls,
            joinQuestions + [
                "single.shouldBegin true", "single.shouldReceive(1) true", "double.shouldReceive(1) true",
                "single.requireFailure(double) false",
                "double.beRequiredToFail(single) false", "double.requireFailure(single) false",
                "single.beRequiredToFail(double) false", "double.shouldBegin true", "single.shouldBegin true",
                "single.simultaneous(double) false", "double.simultaneous(single) false",
                "single.canBePrevented(double) true", "double.canPrevent(single) true",
            ])
        expectEqual(single.canPrevent(double), false)
        expectEqual(double.canPrevent(single), true)
        expectEqual(single.canPrevent(TapGestureRecognizer(identifier: "other")), true)
    }

    /// A pan on the cell and a pan on its container, both 10 pt: one 20 pt move makes both ask.
    func twoPans() -> (GestureFixture, ScriptedGestureDelegate, PanGestureRecognizer, PanGestureRecognizer) {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let inner = fixture.add(PanGestureRecognizer(identifier: "inner"), to: fixture.cell)
        let outer = fixture.add(PanGestureRecognizer(identifier: "outer"), to: fixture.container)
        inner.delegate = delegate
        outer.delegate = delegate
        return (fixture, delegate, inner, outer)
    }

    let drag = [touch(.began, 50, 50, 0), touch(.moved, 70, 50, 0.1), touch(.ended, 70, 50, 0.2)]

    // Every recognizer that receives the event is asked `shouldBegin` as it tries to begin, even
    // when another one wins on that same event (observed UIKit behaviour, issue #13 item 5: UIKit
    // gives an event to every recognizer before it resolves who prevents whom; Apple documents no
    // order). The one that joined first then prevents the other.
    @Test func everyRecognizerThatTriesToBeginOnAnEventIsAskedShouldBegin() {
        let (fixture, delegate, _, _) = twoPans()
        fixture.dispatcher.perform(drag)
        expectEqual(fixture.actions, ["cell#inner began @0.1", "cell#inner ended @0.2"])
        expectEqual(
            Array(delegate.calls.dropFirst(6)),
            [
                "inner.shouldBegin true", "outer.shouldBegin true", "outer.simultaneous(inner) false",
                "inner.simultaneous(outer) false", "outer.canBePrevented(inner) true", "inner.canPrevent(outer) true",
            ])
    }

    @Test func aVetoOnTheLoserIsAskedAndRecorded() throws {
        let (fixture, delegate, _, outer) = twoPans()
        delegate.shouldBegin = { $0 !== outer }
        let recorder = try Recorder(databasePath: folder.path("audit.sqlite"), session: newSession(), catalog: .builtIn)
        try recorder.attach(to: fixture.root)
        fixture.dispatcher.perform(drag)
        let summary = recorder.finish()
        expectEqual(fixture.actions, ["cell#inner began @0.1", "cell#inner ended @0.2"])
        expectEqual(Array(delegate.calls.dropFirst(6)), ["inner.shouldBegin true", "outer.shouldBegin false"])
        expectEqual(summary.vetoes, 1)
    }

    // UIGestureRecognizerSubclass.h on `reset`: "called automatically by the runtime after the
    // gesture state is set to UIGestureRecognizerStateEnded/Recognized or Failed/Cancelled"; "after
    // this is received all remaining active touches will be ignored". A finger resting on the
    // screen no longer blocks a later tap.
    @Test func aFinishedRecognizerIsResetAfterTheEventAndTakesANewFinger() {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let tap = fixture.add(TapGestureRecognizer(identifier: "tap"), to: fixture.cell)
        tap.delegate = delegate
        fixture.send([touch(.began, 50, 50, 0)])
        fixture.dispatcher.advance(to: 0.8)  // held past maximumTapDuration: failed, then reset
        expectEqual(tap.state, .possible)
        #expect(fixture.dispatcher.activeRecognizers.isEmpty)
        fixture.send(tapEvents(at: Point(x: 60, y: 60), time: 1, id: 2) + [touch(.ended, 50, 50, 1.5)])
        expectEqual(fixture.actions, ["cell#tap ended @1.1"])
        expectEqual(delegate.calls, ["tap.shouldReceive(1) true", "tap.shouldReceive(2) true", "tap.shouldBegin true"])
    }

    @Test func tapsThatFailedTogetherAreResetAtOnceAndTheNextTapCounts() {
        let (fixture, _, single) = singleWaitingForDouble()
        let double = fixture.cell.gestureRecognizers[1]
        fixture.send([touch(.began, 50, 50, 0), touch(.moved, 100, 50, 0.05)])  // 50 pt: both taps fail
        #expect(single.state == .possible && double.state == .possible)  // both reset
        fixture.send([touch(.ended, 100, 50, 0.1)])
        fixture.dispatcher.settle()
        #expect(fixture.actions.isEmpty)
        // Both join again on the next finger; the single tap waits for the double tap as before.
        fixture.send(tapEvents(at: Point(x: 50, y: 50), time: 1))
        expectEqual(fixture.dispatcher.activeRecognizers.map(\.identifier), ["single", "double"])
        fixture.dispatcher.settle()
        expectEqual(fixture.actions, ["cell#single ended @1.45"])
    }

    // UIGestureRecognizer.h on `enabled`: "If you change this property to false while a gesture
    // recognizer is currently recognizing a gesture, the gesture recognizer transitions to a
    // cancelled state."
    @Test func disablingAnActiveRecognizerCancelsIt() {
        let fixture = GestureFixture()
        let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.cell)
        fixture.send([touch(.began, 50, 50, 0)])
        fixture.dispatcher.advance(to: 0.6)
        press.isEnabled = false
        press.isEnabled = true  // the idiom apps use to make a recognizer stop
        expectEqual(press.state, .cancelled)
        fixture.send([touch(.moved, 70, 50, 0.7), touch(.ended, 70, 50, 0.8)])
        expectEqual(fixture.actions, ["cell#press began @0.5", "cell#press cancelled @0.6"])
        #expect(fixture.dispatcher.activeRecognizers.isEmpty)
    }

    // Rule 10 with rule 9: a recognizer disabled and re-enabled (the idiom) stays cancelled until
    // the end of the next event, whose new finger it is not offered; then it is reset and leaves the
    // sequence, and the next new finger, with the first one still down, is recognized again.
    @Test func aRecognizerDisabledThenReEnabledIsResetAndRecognizesANewFinger() {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.cell)
        press.delegate = delegate
        fixture.send([touch(.began, 50, 50, 0)])
        fixture.dispatcher.advance(to: 0.6)
        press.isEnabled = false
        press.isEnabled = true
        expectEqual(press.state, .cancelled)
        expectEqual(fixture.dispatcher.activeRecognizers.map(\.identifier), ["press"])  // still a member
        fixture.send(tapEvents(at: Point(x: 60, y: 60), time: 0.7, id: 2))  // not offered: still cancelled
        expectEqual(press.state, .possible)  // reset after that event
        #expect(fixture.dispatcher.activeRecognizers.isEmpty)
        fixture.send([touch(.began, 70, 70, 1, id: 3)])
        fixture.dispatcher.advance(to: 1.6)
        fixture.send([touch(.ended, 70, 70, 1.7, id: 3), touch(.ended, 50, 50, 1.8)])
        expectEqual(
            fixture.actions,
            [
                "cell#press began @0.5", "cell#press cancelled @0.6", "cell#press began @1.5", "cell#press ended @1.7",
            ])
        expectEqual(
            delegate.calls,
            [
                "press.shouldReceive(1) true", "press.shouldBegin true", "press.shouldReceive(3) true",
                "press.shouldBegin true",
            ])
        expectEqual(press.state, .possible)
    }

    @Test func disablingAPossibleRecognizerFailsItAndReleasesThoseWaitingForIt() {
        let (fixture, delegate, single) = singleWaitingForDouble()
        let double = fixture.cell.gestureRecognizers[1]
        fixture.send(tapEvents(at: Point(x: 50, y: 50), time: 0))
        fixture.dispatcher.advance(to: 0.2)
        double.isEnabled = false
        expectEqual(fixture.actions, ["cell#single ended @0.2"])
        expectEqual(single.state, .ended)
        expectEqual(delegate.calls, joinQuestions + ["single.shouldBegin true"])
    }

    // Removing a recognizer from its view mid-gesture cancels it; it receives nothing more.
    @Test func removingAnActiveRecognizerCancelsItAndTakesItOutOfTheSequence() {
        let fixture = GestureFixture()
        let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.cell)
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        fixture.send([touch(.began, 50, 50, 0)])
        fixture.dispatcher.advance(to: 0.6)
        expectEqual(pan.state, .possible)  // prevented when the long press began, then reset (rule 9)
        expectEqual(fixture.dispatcher.activeRecognizers.map(\.identifier), ["press"])
        fixture.cell.removeGestureRecognizer(press)
        #expect(press.view == nil && press.state == .possible)
        #expect(fixture.dispatcher.activeRecognizers.isEmpty)
        fixture.send([touch(.moved, 90, 50, 0.7), touch(.ended, 90, 50, 0.8)])
        expectEqual(fixture.actions, ["cell#press began @0.5", "cell#press cancelled @0.6"])
    }
}
