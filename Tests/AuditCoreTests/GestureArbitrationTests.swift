import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Gesture arbitration: failure requirements, simultaneity, prevention, delegate vetoes")
struct GestureArbitrationTests {
    enum Requirement: String, CaseIterable {
        case inCode
        case shouldRequireFailureOf
        case shouldBeRequiredToFailBy
    }

    /// A cell with a single tap that waits for its double tap to fail, set up one of three ways.
    func singleAndDoubleTap(_ requirement: Requirement) -> (GestureFixture, ScriptedGestureDelegate) {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let single = fixture.add(TapGestureRecognizer(identifier: "single"), to: fixture.cell)
        let double = fixture.add(TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2), to: fixture.cell)
        single.delegate = delegate
        double.delegate = delegate
        switch requirement {
        case .inCode: single.require(toFail: double)
        case .shouldRequireFailureOf: delegate.requireFailure = { $0 === single && $1 === double }
        case .shouldBeRequiredToFailBy: delegate.beRequiredToFail = { $0 === double && $1 === single }
        }
        return (fixture, delegate)
    }

    @Test(arguments: Requirement.allCases)
    func aSingleTapRecognizesOnlyOnceTheDoubleTapFailed(requirement: Requirement) {
        let (fixture, delegate) = singleAndDoubleTap(requirement)
        fixture.dispatcher.perform(tapEvents(at: Point(x: 50, y: 50), time: 0))
        // Lifted at 0.1; the double tap gives up 0.35 s later, and only then does the single tap recognize.
        expectEqual(fixture.actions, ["cell#single ended @0.45"])
        // The failure-requirement questions are asked once for the pair, when the double tap joins.
        var questions = [
            "single.shouldReceive(1) true", "double.shouldReceive(1) true", "double.requireFailure(single) false",
            "single.beRequiredToFail(double) false",
            "single.requireFailure(double) \(requirement == .shouldRequireFailureOf)",
        ]
        if requirement != .shouldRequireFailureOf {  // asked only when the first of the two said no
            questions.append("double.beRequiredToFail(single) \(requirement == .shouldBeRequiredToFailBy)")
        }
        expectEqual(Array(delegate.calls.prefix(questions.count)), questions)
        expectEqual(delegate.calls.suffix(1), ["single.shouldBegin true"])
    }

    @Test(arguments: Requirement.allCases)
    func aDoubleTapMakesTheWaitingSingleTapFail(requirement: Requirement) {
        let (fixture, delegate) = singleAndDoubleTap(requirement)
        fixture.dispatcher.perform(
            tapEvents(at: Point(x: 50, y: 50), time: 0) + tapEvents(at: Point(x: 50, y: 50), time: 0.2))
        expectEqual(fixture.actions, ["cell#double ended @0.3"])
        // The waiting single tap is not offered the second touch. When the double tap recognizes,
        // the single tap fails by its requirement (UIGestureRecognizer.h, requireGestureRecognizerToFail:
        // "if otherGestureRecognizer transitions to UIGestureRecognizerStateRecognized or
        // UIGestureRecognizerStateBegan then this recognizer will instead transition to
        // UIGestureRecognizerStateFailed"), and, failed, is asked nothing more: no simultaneity or
        // prevention question, whichever way the requirement was set up (issue #32, item 6).
        expectEqual(delegate.calls.filter { $0.hasPrefix("single.shouldReceive") }.count, 1)
        expectEqual(
            delegate.calls.suffix(3),
            [
                "single.shouldBegin true", "double.shouldReceive(1) true", "double.shouldBegin true",
            ])
        #expect(fixture.cell.gestureRecognizers.allSatisfy { $0.state == .possible })  // reset
    }

    /// A scroll-like container with a pan, and a cell with a long press, sharing one delegate.
    func panOverLongPress(minimumTranslation: Double = 10) -> (
        GestureFixture, PanGestureRecognizer, LongPressGestureRecognizer, ScriptedGestureDelegate
    ) {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.cell)
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        pan.minimumTranslation = minimumTranslation
        press.delegate = delegate
        pan.delegate = delegate
        return (fixture, pan, press, delegate)
    }

    /// Holds still 0.7 s, drags 30 pt, lifts.
    let holdThenDrag = [touch(.began, 50, 50, 0), touch(.moved, 80, 50, 0.7), touch(.ended, 80, 50, 0.8)]

    @Test func aLongPressThatBeginsPreventsTheContainersPan() {
        let (fixture, _, _, delegate) = panOverLongPress()
        fixture.dispatcher.perform(holdThenDrag)
        expectEqual(fixture.actions, ["cell#press began @0.5", "cell#press changed @0.7", "cell#press ended @0.8"])
        expectEqual(
            delegate.calls.suffix(5),
            [
                "press.shouldBegin true", "pan.simultaneous(press) false", "press.simultaneous(pan) false",
                "pan.canBePrevented(press) true", "press.canPrevent(pan) true",
            ])
    }

    @Test func withSimultaneousRecognitionThePanAndTheLongPressBothRun() {
        let (fixture, _, _, delegate) = panOverLongPress()
        delegate.simultaneous = { recognizer, _ in recognizer is PanGestureRecognizer }
        fixture.dispatcher.perform(holdThenDrag)
        expectEqual(
            fixture.actions,
            [
                "cell#press began @0.5", "cell#press changed @0.7", "container#pan began @0.7",
                "cell#press ended @0.8", "container#pan ended @0.8",
            ])
        // Either delegate saying yes is enough; the second is asked only when the first said no. The
        // one that would be prevented — the pan, both times — is asked first (#13 item 6).
        expectEqual(
            delegate.calls.suffix(4),
            [
                "press.shouldBegin true", "pan.simultaneous(press) true", "pan.shouldBegin true",
                "pan.simultaneous(press) true",
            ])
    }

    @Test func aDragBeforeTheLongPressBeginsIsThePans() {
        let (fixture, _, _, _) = panOverLongPress()
        fixture.dispatcher.perform([touch(.began, 50, 50, 0), touch(.moved, 80, 50, 0.1), touch(.ended, 90, 50, 0.2)])
        expectEqual(fixture.actions, ["container#pan began @0.1", "container#pan ended @0.2"])
    }

    @Test func aPanThatBeginsPreventsTheLongPress() {
        let (fixture, _, _, delegate) = panOverLongPress(minimumTranslation: 5)
        fixture.dispatcher.perform([touch(.began, 50, 50, 0), touch(.moved, 56, 50, 0.1), touch(.ended, 56, 50, 0.9)])
        expectEqual(fixture.actions, ["container#pan began @0.1", "container#pan ended @0.9"])
        #expect(delegate.calls.contains("pan.canPrevent(press) true"))
        #expect(delegate.calls.contains("press.canBePrevented(pan) true"))
    }

    @Test func canPreventFalseLetsBothRecognize() {
        // As UIWebDocumentView in the seed article: its long press cannot prevent a scroll view's pan.
        let (fixture, _, _, delegate) = panOverLongPress()
        delegate.canPrevent = { recognizer, other in
            !(recognizer is LongPressGestureRecognizer && other is PanGestureRecognizer)
        }
        fixture.dispatcher.perform(holdThenDrag)
        expectEqual(
            fixture.actions,
            [
                "cell#press began @0.5", "cell#press changed @0.7", "container#pan began @0.7",
                "cell#press ended @0.8", "container#pan ended @0.8",
            ])
        // The pan, beginning while the long press is active, is not prevented by it either.
        expectEqual(
            delegate.calls.suffix(4),
            [
                "pan.simultaneous(press) false", "press.simultaneous(pan) false", "pan.canBePrevented(press) true",
                "press.canPrevent(pan) false",
            ])
    }

    @Test func canBePreventedFalseKeepsTheLongPressAliveUnderAPan() {
        let (fixture, _, _, delegate) = panOverLongPress(minimumTranslation: 5)
        delegate.canBePrevented = { recognizer, _ in !(recognizer is LongPressGestureRecognizer) }
        fixture.dispatcher.perform([touch(.began, 50, 50, 0), touch(.moved, 56, 50, 0.1), touch(.ended, 56, 50, 0.9)])
        expectEqual(
            fixture.actions,
            [
                "container#pan began @0.1", "cell#press began @0.5", "cell#press ended @0.9",
                "container#pan ended @0.9",
            ])
    }

    @Test func aRefusedTouchIsNeverSeen() {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let tap = fixture.add(TapGestureRecognizer(identifier: "tap"), to: fixture.cell)
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        tap.delegate = delegate
        pan.delegate = delegate
        delegate.shouldReceive = { recognizer, touch in !(recognizer === tap && touch.location.x < 60) }
        fixture.dispatcher.perform(tapEvents(at: Point(x: 50, y: 50), time: 0))
        #expect(fixture.actions.isEmpty)
        // The tap did not join: no question is asked about it, and the pan alone saw the touch.
        expectEqual(delegate.calls, ["tap.shouldReceive(1) false", "pan.shouldReceive(1) true"])
        fixture.dispatcher.perform(tapEvents(at: Point(x: 100, y: 100), time: 0))
        expectEqual(fixture.actions, ["cell#tap ended @0.2"])
    }

    @Test func aShouldBeginVetoFailsTheRecognizerAndPreventsNothing() {
        let (fixture, _, _, delegate) = panOverLongPress(minimumTranslation: 5)
        delegate.shouldBegin = { !($0 is PanGestureRecognizer) }
        fixture.dispatcher.perform([touch(.began, 50, 50, 0), touch(.moved, 56, 50, 0.1), touch(.ended, 56, 50, 0.9)])
        expectEqual(fixture.actions, ["cell#press began @0.5", "cell#press ended @0.9"])
        #expect(delegate.calls.contains("pan.shouldBegin false"))
        #expect(!delegate.calls.contains("pan.canPrevent(press) true"))
    }

    @Test func aWaitingPanThatEndedWhileWaitingBeginsAndEndsAtOnce() {
        let fixture = GestureFixture()
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.root)
        pan.minimumTranslation = 5
        pan.require(toFail: press)
        fixture.dispatcher.perform([touch(.began, 50, 50, 0), touch(.moved, 56, 50, 0.1), touch(.ended, 58, 50, 0.3)])
        // The pan asked to begin at 0.1 and waited; it saw the lift first, then the long press
        // failed, lifted early.
        expectEqual(fixture.actions, ["container#pan began @0.3", "container#pan ended @0.3"])
        expectEqual(pan.translation, Point(x: 0, y: 0))  // reset for the next sequence
    }

    @Test func aRecognizerFailsAtOnceWhenTheOneItRequiresToFailBegins() {
        let (fixture, pan, press, _) = panOverLongPress(minimumTranslation: 5)
        pan.require(toFail: press)
        fixture.dispatcher.perform([
            touch(.began, 50, 50, 0), touch(.moved, 56, 50, 0.1), touch(.moved, 90, 50, 0.7),
            touch(.ended, 90, 50, 0.8),
        ])
        expectEqual(fixture.actions, ["cell#press began @0.5", "cell#press changed @0.7", "cell#press ended @0.8"])
    }

    @Test func aRequirementOnARecognizerOutsideTheSequenceDoesNotBlock() {
        let fixture = GestureFixture()
        let sibling = View(identifier: "sibling", frame: Rect(x: 200, y: 0, width: 100, height: 100))
        fixture.container.addSubview(sibling)
        let tap = fixture.add(TapGestureRecognizer(identifier: "tap"), to: fixture.cell)
        let other = fixture.add(TapGestureRecognizer(identifier: "other", numberOfTapsRequired: 2), to: sibling)
        tap.require(toFail: other)
        fixture.dispatcher.perform(tapEvents(at: Point(x: 50, y: 50), time: 0))
        expectEqual(fixture.actions, ["cell#tap ended @0.1"])
    }

    @Test func recognizersThatWaitForEachOtherFailWhenNothingCanChange() {
        let fixture = GestureFixture()
        let first = fixture.add(TapGestureRecognizer(identifier: "first"), to: fixture.cell)
        let second = fixture.add(TapGestureRecognizer(identifier: "second"), to: fixture.cell)
        first.require(toFail: second)
        second.require(toFail: first)
        fixture.dispatcher.perform(tapEvents(at: Point(x: 50, y: 50), time: 0))
        #expect(fixture.actions.isEmpty)
        #expect(fixture.dispatcher.activeRecognizers.isEmpty)
    }

    // UIGestureRecognizerSubclass.h: "a UITapGestureRecognizer never prevents another
    // UITapGestureRecognizer with a higher tap count" (golden timeline in GestureUIKitOrderTests).
    @Test func aTapDoesNotPreventADoubleTapWithoutAFailureRequirement() {
        let fixture = GestureFixture()
        fixture.add(TapGestureRecognizer(identifier: "single"), to: fixture.cell)
        fixture.add(TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2), to: fixture.cell)
        fixture.dispatcher.perform(
            tapEvents(at: Point(x: 50, y: 50), time: 0) + tapEvents(at: Point(x: 50, y: 50), time: 0.2))
        expectEqual(fixture.actions, ["cell#single ended @0.1", "cell#double ended @0.3"])
    }
}
