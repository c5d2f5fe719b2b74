import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A scroll view dragged by touches, through the pan recognizer UIKit gives every scroll view
/// (`UIScrollView.panGestureRecognizer`), in arbitration with the app's recognizers of its content.
@Suite("Scroll view: dragged by touches through its own pan recognizer")
struct ScrollViewPanTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// A 320×200 scroll view over content 320×1000 at the top-left of the window, holding a
    /// 320×100 card at the top of the content.
    final class Screen {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let list = ScrollView(
            identifier: "list", frame: Rect(x: 0, y: 0, width: 320, height: 200),
            contentSize: Size(width: 320, height: 1000))
        let card = View(identifier: "card", frame: Rect(x: 0, y: 0, width: 320, height: 100))
        let scrollDelegate = ScrollLogDelegate()
        let gestureDelegate = ScriptedGestureDelegate()

        init(_ recognizers: [GestureRecognizer] = []) {
            root.addSubview(list)
            list.addSubview(card)
            list.delegate = scrollDelegate
            for recognizer in recognizers {
                card.addGestureRecognizer(recognizer)
                recognizer.delegate = gestureDelegate
            }
        }

        /// A finger that touches the card at (50, 80) and drags it 50 points up in two moves of
        /// 20 and 30 points, 1/8 s apart, then lifts where it is: the last move's speed is
        /// 30 / 0.125 = 240 points per second.
        func dragUp() {
            root.touchDispatcher.perform([
                Touch(id: 1, x: 50, y: 80, phase: .began, timestamp: 0),
                Touch(id: 1, x: 50, y: 60, phase: .moved, timestamp: 0.125),
                Touch(id: 1, x: 50, y: 30, phase: .moved, timestamp: 0.25),
                Touch(id: 1, x: 50, y: 30, phase: .ended, timestamp: 0.375),
            ])
        }
    }

    /// One line per event: seq, parent, widget, callback, arguments and result (inputs marked ▶).
    func timeline(_ session: Int64) throws -> [String] {
        try AuditStore(path: database, access: .read).timeline(of: session).map { event in
            let mark = event.kind == .input ? "▶ " : ""
            return "\(event.seq) \(event.parentSeq.map(String.init) ?? "-") \(mark)\(event.widget ?? "-") "
                + "\(event.callback) \(event.arguments) \(event.result ?? "void")"
        }
    }

    @Test func theScrollViewHasAPanRecognizerOfItsOwnThatTheAppDoesNotOwn() {
        let screen = Screen()
        let pan = screen.list.panGestureRecognizer
        #expect(pan.view === screen.list)
        expectEqual(pan.path, "root/list#panGestureRecognizer")
        #expect(screen.list.gestureRecognizers.isEmpty)
        #expect(screen.root.auditedObject(atPath: "root/list#panGestureRecognizer") === pan)
        pan.adoptDelegate(ScriptedGestureDelegate())
        #expect(pan.delegate == nil)
        screen.list.removeGestureRecognizer(pan)  // not the app's to remove: it stays
        #expect(pan.view === screen.list)
    }

    // The golden timeline of a touch drag over the app's tap: the scroll view's pan begins at 10
    // points and prevents the tap (still within its 45 points, the Gestures article), and the scroll
    // callbacks follow in UIKit's order (`UIScrollViewDelegate`): willBeginDragging, didScroll,
    // willEndDragging with the target, didEndDragging(willDecelerate: true), willBeginDecelerating,
    // didScroll at each step, didEndDecelerating.
    @Test func aTouchDragOverTheAppsTapScrollsTheContentWithEveryCallback() throws {
        let tap = TapGestureRecognizer(identifier: "tap")
        let screen = Screen([tap])
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: screen.root)
        screen.dragUp()
        let session = recorder.finish().session
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 150))
        #expect(!screen.list.isDragging && !screen.list.isDecelerating)
        let pan = "root/list#panGestureRecognizer"
        let states = { (tap: String, pan: String) in
            #"{"root/list#panGestureRecognizer":"\#(pan)","root/list/card#tap":"\#(tap)"}"#
        }
        func touch(_ y: Int, _ phase: String, _ t: String) -> String {
            #"{"touch":{"id":1,"phase":"\#(phase)","t":\#(t),"x":50.0,"y":\#(y).0}}"#
        }
        let scroll = "root/list"
        try expectEqual(
            timeline(session),
            [
                "1 - ▶ root/list/card touch \(touch(80, "began", "0.0")) "
                    + #"{"states":\#(states("possible", "possible")),"view":"root/list/card"}"#,
                "2 1 root/list/card#tap gestureRecognizer(_:shouldReceive:) \(touch(80, "began", "0.0")) true",
                #"3 1 root/list/card#tap gestureRecognizer(_:shouldBeRequiredToFailBy:) {"otherGestureRecognizer":"\#(pan)"} false"#,
                #"4 1 root/list/card#tap gestureRecognizer(_:shouldRequireFailureOf:) {"otherGestureRecognizer":"\#(pan)"} false"#,
                "5 - ▶ root/list/card touch \(touch(60, "moved", "0.125")) "
                    + #"{"states":\#(states("failed", "began")),"view":"root/list/card"}"#,
                // The tap, still within its 45 points, is prevented by the pan that begins.
                #"6 5 root/list/card#tap gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:) {"otherGestureRecognizer":"\#(pan)"} false"#,
                #"7 5 root/list/card#tap gestureRecognizer(_:canBePreventedBy:) {"preventingGestureRecognizer":"\#(pan)"} true"#,
                "8 5 \(scroll) scrollViewWillBeginDragging(_:) {} void",
                // The failed tap was reset after event 5 and left the sequence (rule 9).
                "9 - ▶ root/list/card touch \(touch(30, "moved", "0.25")) "
                    + #"{"states":{"\#(pan)":"changed"},"view":"root/list/card"}"#,
                "10 9 \(scroll) scrollViewDidScroll(_:) {} void",
                "11 - ▶ root/list/card touch \(touch(30, "ended", "0.375")) "
                    + #"{"states":{"\#(pan)":"ended"},"view":"root/list/card"}"#,
                "12 11 \(scroll) scrollViewWillEndDragging(_:withVelocity:targetContentOffset:) "
                    + #"{"velocity":{"x":0.0,"y":0.24},"targetContentOffset":{"x":0.0,"y":150.0}} {"x":0.0,"y":150.0}"#,
                #"13 11 \#(scroll) scrollViewDidEndDragging(_:willDecelerate:) {"willDecelerate":true} void"#,
                "14 11 \(scroll) scrollViewWillBeginDecelerating(_:) {} void",
                "15 11 \(scroll) scrollViewDidScroll(_:) {} void",
                "16 11 \(scroll) scrollViewDidScroll(_:) {} void",
                "17 11 \(scroll) scrollViewDidScroll(_:) {} void",
                "18 11 \(scroll) scrollViewDidScroll(_:) {} void",
                "19 11 \(scroll) scrollViewDidEndDecelerating(_:) {} void",
            ])
        // The pan began at 20 points and the content followed the 30 after; the flick at
        // 0.24 points per ms projects 0.24 × 499 ≈ 120 points further, reached in four steps.
        expectEqual(
            screen.scrollDelegate.calls,
            [
                "list.willBeginDragging dragging", "list.didScroll (0, 30) dragging",
                "list.willEndDragging (0, 0.24) (0, 150)->(0, 150) dragging", "list.didEndDragging true",
                "list.willBeginDecelerating decelerating", "list.didScroll (0, 83) decelerating",
                "list.didScroll (0, 120) decelerating", "list.didScroll (0, 143) decelerating",
                "list.didScroll (0, 150) decelerating", "list.didEndDecelerating (0, 150)",
            ])
    }

    @Test func aTapThatDoesNotMoveRecognizesAndScrollsNothing() {
        let tap = TapGestureRecognizer(identifier: "tap")
        var taps = 0
        tap.addAction { _ in taps += 1 }
        let screen = Screen([tap])
        screen.root.touchDispatcher.perform([
            Touch(id: 1, x: 50, y: 80, phase: .began, timestamp: 0),
            Touch(id: 1, x: 52, y: 81, phase: .ended, timestamp: 0.125),
        ])
        expectEqual(taps, 1)
        #expect(screen.scrollDelegate.calls.isEmpty)
        expectEqual(screen.list.panGestureRecognizer.state, .possible)  // reset for the next sequence
    }

    // The app's pan on the content joins the sequence before the scroll view's (the hit view's
    // recognizers first, the Gestures article, rule 2); both reach 10 points on the same move, so the
    // app's begins first and prevents the scroll view's, as a pan inside a scroll view does in UIKit.
    @Test func theAppsPanOnTheContentWinsAndTheContentStays() throws {
        let cardPan = PanGestureRecognizer(identifier: "swipe")
        let screen = Screen([cardPan])
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: screen.root)
        screen.dragUp()
        let session = recorder.finish().session
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 0))
        #expect(screen.scrollDelegate.calls.isEmpty)
        expectEqual(
            screen.gestureDelegate.calls,
            [
                "swipe.shouldReceive(1) true", "swipe.beRequiredToFail(panGestureRecognizer) false",
                "swipe.requireFailure(panGestureRecognizer) false", "swipe.shouldBegin true",
                "swipe.simultaneous(panGestureRecognizer) false", "swipe.canPrevent(panGestureRecognizer) true",
            ])
        let pan = "root/list#panGestureRecognizer"
        func touch(_ y: Int, _ phase: String, _ t: String) -> String {
            #"{"touch":{"id":1,"phase":"\#(phase)","t":\#(t),"x":50.0,"y":\#(y).0}}"#
        }
        func result(_ pan: String, _ swipe: String) -> String {
            #"{"states":{"root/list#panGestureRecognizer":"\#(pan)","root/list/card#swipe":"\#(swipe)"},"view":"root/list/card"}"#
        }
        let swipe = "root/list/card#swipe gestureRecognizer"
        try expectEqual(
            timeline(session),
            [
                "1 - ▶ root/list/card touch \(touch(80, "began", "0.0")) \(result("possible", "possible"))",
                "2 1 \(swipe)(_:shouldReceive:) \(touch(80, "began", "0.0")) true",
                #"3 1 \#(swipe)(_:shouldBeRequiredToFailBy:) {"otherGestureRecognizer":"\#(pan)"} false"#,
                #"4 1 \#(swipe)(_:shouldRequireFailureOf:) {"otherGestureRecognizer":"\#(pan)"} false"#,
                "5 - ▶ root/list/card touch \(touch(60, "moved", "0.125")) \(result("failed", "began"))",
                "6 5 root/list/card#swipe gestureRecognizerShouldBegin(_:) {} true",
                #"7 5 \#(swipe)(_:shouldRecognizeSimultaneouslyWith:) {"otherGestureRecognizer":"\#(pan)"} false"#,
                #"8 5 \#(swipe)(_:canPrevent:) {"preventedGestureRecognizer":"\#(pan)"} true"#,
                // The prevented scroll view's pan was reset after event 5 and left the sequence (rule 9).
                "9 - ▶ root/list/card touch \(touch(30, "moved", "0.25")) "
                    + #"{"states":{"root/list/card#swipe":"changed"},"view":"root/list/card"}"#,
                "10 - ▶ root/list/card touch \(touch(30, "ended", "0.375")) "
                    + #"{"states":{"root/list/card#swipe":"ended"},"view":"root/list/card"}"#,
            ])
    }

    @Test func allowedToRecognizeTogetherBothRunAndTheContentScrolls() {
        let cardPan = PanGestureRecognizer(identifier: "swipe")
        var swipes: [GestureRecognizer.State] = []
        cardPan.addAction { swipes.append($0.state) }
        let screen = Screen([cardPan])
        screen.gestureDelegate.simultaneous = { _, _ in true }
        screen.dragUp()
        expectEqual(swipes, [.began, .changed, .ended])
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 150))
        expectEqual(screen.scrollDelegate.calls.first, "list.willBeginDragging dragging")
    }

    @Test func theAppsPanThatWaitsForTheScrollViewsToFailLosesToIt() {
        let cardPan = PanGestureRecognizer(identifier: "swipe")
        var swipes: [GestureRecognizer.State] = []
        cardPan.addAction { swipes.append($0.state) }
        let screen = Screen([cardPan])
        cardPan.require(toFail: screen.list.panGestureRecognizer)
        screen.dragUp()
        #expect(swipes.isEmpty)
        expectEqual(cardPan.state, .possible)  // reset; it failed when the scroll view's began
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 150))
    }

    @Test func aDisabledPanLeavesTheContentToTheFingerlessInputs() {
        let screen = Screen()
        screen.list.panGestureRecognizer.isEnabled = false
        screen.dragUp()
        #expect(screen.scrollDelegate.calls.isEmpty)
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 0))
    }

    @Test func whileTheInputsDragTheViewTouchesDoNotBeginAnotherDrag() {
        let screen = Screen()
        screen.list.beginDrag()
        screen.dragUp()
        expectEqual(screen.scrollDelegate.calls, ["list.willBeginDragging dragging"])
        #expect(screen.list.isDragging && screen.list.contentOffset == Point(x: 0, y: 0))
        screen.list.endDrag(velocity: Point(x: 0, y: 0))
        #expect(!screen.list.isDragging)
    }

    @Test func anEndDragInputEndsATouchDragAndTheFingerMovesNothingMore() {
        let screen = Screen()
        let dispatcher = screen.root.touchDispatcher
        dispatcher.send(Touch(id: 1, x: 50, y: 180, phase: .began, timestamp: 0))
        dispatcher.send(Touch(id: 1, x: 50, y: 160, phase: .moved, timestamp: 0.125))
        dispatcher.send(Touch(id: 1, x: 50, y: 140, phase: .moved, timestamp: 0.25))
        #expect(screen.list.isDragging && screen.list.contentOffset == Point(x: 0, y: 20))
        screen.list.endDrag(velocity: Point(x: 0, y: 0))
        dispatcher.send(Touch(id: 1, x: 50, y: 100, phase: .moved, timestamp: 0.375))
        dispatcher.send(Touch(id: 1, x: 50, y: 100, phase: .ended, timestamp: 0.5))
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 20))
        expectEqual(screen.scrollDelegate.calls.filter { $0.contains("EndDragging") }.count, 2)
    }

    @Test func aMoveOverAVanishingTimeFlicksAtNoSpeed() {
        let screen = Screen()
        screen.root.touchDispatcher.perform([
            Touch(id: 1, x: 50, y: 190, phase: .began, timestamp: 0),
            // Moves 5e-324 s apart (the smallest gap a Double holds): 20 points over it is an
            // infinite speed.
            Touch(id: 1, x: 50, y: 170, phase: .moved, timestamp: 5e-324),
            Touch(id: 1, x: 50, y: 150, phase: .moved, timestamp: 1e-323),
            Touch(id: 1, x: 50, y: 150, phase: .ended, timestamp: 0.25),
        ])
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 20))
        #expect(screen.scrollDelegate.calls.contains("list.willEndDragging (0, 0) (0, 20)->(0, 20) dragging"))
    }

    @Test func aDragPastTheEndOfTheContentIsClamped() {
        let screen = Screen()
        screen.list.setContentOffset(Point(x: 0, y: 790))
        screen.scrollDelegate.calls = []
        screen.root.touchDispatcher.perform([
            Touch(id: 1, x: 50, y: 190, phase: .began, timestamp: 0),
            Touch(id: 1, x: 50, y: 170, phase: .moved, timestamp: 0.125),
            Touch(id: 1, x: 50, y: 100, phase: .moved, timestamp: 0.25),
            Touch(id: 1, x: 50, y: 100, phase: .cancelled, timestamp: 0.375),
        ])
        // 790 + 70 would pass the end (800); cancelled, the drag ends without a flick.
        expectEqual(screen.list.contentOffset, Point(x: 0, y: 800))
        expectEqual(
            screen.scrollDelegate.calls,
            [
                "list.willBeginDragging dragging", "list.didScroll (0, 800) dragging",
                "list.willEndDragging (0, 0) (0, 800)->(0, 800) dragging", "list.didEndDragging false",
            ])
    }

    /// A scenario whose touches drag a scroll view over a view with a tap, flicking it: recorded
    /// with the example delegate, it replays identically in both modes.
    static let touchDragScenario = #"""
        {"format": 1, "name": "drag", "delegate": "checkout.v1",
         "root": {"kind": "View", "id": "checkout", "frame": [0, 0, 390, 844], "children": [
           {"kind": "ScrollView", "id": "terms", "frame": [0, 0, 390, 200], "contentSize": [390, 1000],
            "children": [{"kind": "View", "id": "pay", "frame": [0, 0, 390, 100],
              "gestures": [{"kind": "TapGestureRecognizer", "id": "confirm"}]}]}]},
         "steps": [
           {"action": "touches", "widget": "checkout", "events": [
             {"id": 1, "phase": "began", "x": 50, "y": 80, "t": 0},
             {"id": 1, "phase": "moved", "x": 50, "y": 60, "t": 0.125},
             {"id": 1, "phase": "moved", "x": 50, "y": 30, "t": 0.25},
             {"id": 1, "phase": "ended", "x": 50, "y": 30, "t": 0.375}]},
           {"action": "touches", "widget": "checkout", "events": [
             {"id": 1, "phase": "began", "x": 50, "y": 190, "t": 0},
             {"id": 1, "phase": "ended", "x": 50, "y": 190, "t": 0.125}]}]}
        """#

    @Test(arguments: [ReplayMode.interaction, .isolated])
    func aRecordedTouchDragReplaysIdentically(mode: ReplayMode) throws {
        let scenario = try Scenario(data: Data(Self.touchDragScenario.utf8), catalog: .builtIn)
        let summary = try ScenarioRunner.record(
            scenario, delegate: nil, registry: .examples, databasePath: database)
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        #expect(events.contains { $0.callback == "scrollViewWillBeginDragging(_:)" && $0.parentSeq == 5 })
        #expect(events.contains { $0.callback == "scrollViewDidEndDecelerating(_:)" })
        let report = try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
            session: summary.session, delegate: "checkout.v1", mode: mode)
        #expect(report.identical, "\(report.diff.differences)")
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func auditingATouchDragNeverChangesBehaviour(seed: UInt64) throws {
        func run(_ recorder: Recorder?) throws -> [String] {
            let tap = TapGestureRecognizer(identifier: "tap")
            let screen = Screen([tap])
            try recorder?.attach(to: screen.root)
            var random = SeededGenerator(seed: seed)
            for _ in 0..<20 {
                var y = Double.random(in: 20...180, using: &random)
                var t = 0.0
                var events = [Touch(id: 1, x: 50, y: y, phase: .began, timestamp: t)]
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    y += Double(Int.random(in: -60...60, using: &random))
                    t += 0.125
                    events.append(Touch(id: 1, x: 50, y: y, phase: .moved, timestamp: t))
                }
                events.append(Touch(id: 1, x: 50, y: y, phase: .ended, timestamp: t + 0.125))
                screen.root.touchDispatcher.perform(events)
            }
            return screen.scrollDelegate.calls + [screen.list.contentOffset.text]
        }
        let plain = try run(nil)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let audited = try run(recorder)
        _ = recorder.finish()
        expectEqual(audited, plain)
        #expect(plain.contains { $0.contains("willBeginDragging") })
    }
}
