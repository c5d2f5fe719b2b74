import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Logs every scroll callback with the state the view shows during it; its answers are hooks.
class ScrollLogDelegate: ScrollViewDelegate {
    var calls: [String] = []
    /// Moves the target of a flick; nil leaves it.
    var retarget: ((Point) -> Point)?
    var allowsScrollToTop: () -> Bool = { true }
    var onDidScrollToTop: ((ScrollView) -> Void)?

    func scrollViewDidScroll(_ scrollView: ScrollView) {
        calls.append("\(scrollView.identifier).didScroll \(scrollView.contentOffset.text)" + flags(scrollView))
    }

    func scrollViewWillBeginDragging(_ scrollView: ScrollView) {
        calls.append("\(scrollView.identifier).willBeginDragging" + flags(scrollView))
    }

    func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        let proposed = targetContentOffset.pointee
        if let retarget { targetContentOffset.pointee = retarget(proposed) }
        calls.append(
            "\(scrollView.identifier).willEndDragging \(velocity.text) \(proposed.text)->"
                + targetContentOffset.pointee.text + flags(scrollView))
    }

    func scrollViewDidEndDragging(_ scrollView: ScrollView, willDecelerate decelerate: Bool) {
        calls.append("\(scrollView.identifier).didEndDragging \(decelerate)" + flags(scrollView))
    }

    func scrollViewWillBeginDecelerating(_ scrollView: ScrollView) {
        calls.append("\(scrollView.identifier).willBeginDecelerating" + flags(scrollView))
    }

    func scrollViewDidEndDecelerating(_ scrollView: ScrollView) {
        calls.append("\(scrollView.identifier).didEndDecelerating \(scrollView.contentOffset.text)" + flags(scrollView))
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        let answer = allowsScrollToTop()
        calls.append("\(scrollView.identifier).shouldScrollToTop \(answer)")
        return answer
    }

    func scrollViewDidScrollToTop(_ scrollView: ScrollView) {
        calls.append("\(scrollView.identifier).didScrollToTop \(scrollView.contentOffset.text)")
        onDidScrollToTop?(scrollView)
    }

    private func flags(_ scrollView: ScrollView) -> String {
        (scrollView.isDragging ? " dragging" : "") + (scrollView.isDecelerating ? " decelerating" : "")
    }
}

extension Point {
    /// `(x, y)` with whole numbers written without a fraction, for short logs.
    var text: String {
        func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        return "(\(number(x)), \(number(y)))"
    }
}

/// What a timeline line shows of an answer: `vetoed` for a veto, overridden or kept for an
/// override, `-` otherwise.
func answerEffect(_ event: TimelineEvent) -> String {
    if let vetoed = event.vetoed { return String(vetoed) }
    if let overridden = event.overridden { return overridden ? "overridden" : "kept" }
    return "-"
}

@Suite("Scroll view: UIKit semantics and audit")
struct ScrollViewTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// 100×100 points showing content 100×1000: it scrolls vertically up to y = 900.
    func scrollView(offset: Point = Point(x: 0, y: 0)) -> ScrollView {
        ScrollView(
            identifier: "s", frame: Rect(x: 0, y: 0, width: 100, height: 100),
            contentSize: Size(width: 100, height: 1000), contentOffset: offset)
    }

    @Test func dragMovesTheContentAgainstTheFingerAndClamps() {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.beginDrag()
        view.drag(by: Point(x: 0, y: -50))
        view.drag(by: Point(x: 30, y: 100))  // past the top: clamped to 0
        view.drag(by: Point(x: 0, y: 10))  // still at the top: no move, no callback
        #expect(view.isDragging)
        expectEqual(view.contentOffset, Point(x: 0, y: 0))
        expectEqual(view.maximumContentOffset, Point(x: 0, y: 900))
        expectEqual(
            delegate.calls,
            [
                "s.willBeginDragging dragging", "s.didScroll (0, 50) dragging", "s.didScroll (0, 0) dragging",
            ])
    }

    @Test func aFlickProjectsItsTargetWithUIKitsDecelerationRateAndDeceleratesInSteps() {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.beginDrag()
        // 1 point per ms at the normal rate 0.998 travels 0.998 / 0.002 = 499 points.
        view.endDrag(velocity: Point(x: 0, y: 1))
        expectEqual(view.contentOffset, Point(x: 0, y: 499))
        #expect(!view.isDragging && !view.isDecelerating)
        expectEqual(
            delegate.calls,
            [
                "s.willBeginDragging dragging", "s.willEndDragging (0, 1) (0, 499)->(0, 499) dragging",
                "s.didEndDragging true", "s.willBeginDecelerating decelerating", "s.didScroll (0, 218) decelerating",
                "s.didScroll (0, 374) decelerating", "s.didScroll (0, 468) decelerating",
                "s.didScroll (0, 499) decelerating", "s.didEndDecelerating (0, 499)",
            ])
    }

    @Test func theProjectedTargetIsClampedToTheContent() {
        let view = scrollView(offset: Point(x: 0, y: 800))
        view.decelerationRate = ScrollView.fastDecelerationRate  // 99 ms of travel
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.beginDrag()
        view.endDrag(velocity: Point(x: 5, y: 3))
        expectEqual(delegate.calls[1], "s.willEndDragging (5, 3) (0, 900)->(0, 900) dragging")
        expectEqual(view.contentOffset, Point(x: 0, y: 900))
    }

    @Test func theDelegatesTargetWinsAndIsClamped() {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        delegate.retarget = { _ in Point(x: 0, y: 2000) }
        view.delegate = delegate
        view.beginDrag()
        view.endDrag(velocity: Point(x: 0, y: 0.5))  // 249.5 points, rounded away from zero
        expectEqual(view.projectionTime, 499)
        expectEqual(view.contentOffset, Point(x: 0, y: 900))
        expectEqual(delegate.calls[1], "s.willEndDragging (0, 0.5) (0, 250)->(0, 2000) dragging")
    }

    @Test func aTargetAtTheOffsetDoesNotDecelerate() {
        let view = scrollView(offset: Point(x: 0, y: 40))
        let delegate = ScrollLogDelegate()
        delegate.retarget = { _ in Point(x: 0, y: 40) }
        view.delegate = delegate
        view.beginDrag()
        view.endDrag(velocity: Point(x: 0, y: 2))
        expectEqual(
            delegate.calls,
            [
                "s.willBeginDragging dragging", "s.willEndDragging (0, 2) (0, 900)->(0, 40) dragging",
                "s.didEndDragging false",
            ])
    }

    @Test func scrollToTopCanBeVetoed() {
        let view = scrollView(offset: Point(x: 0, y: 300))
        let delegate = ScrollLogDelegate()
        delegate.allowsScrollToTop = { false }
        view.delegate = delegate
        view.tapStatusBar()
        expectEqual(view.contentOffset, Point(x: 0, y: 300))
        expectEqual(delegate.calls, ["s.shouldScrollToTop false"])
        delegate.allowsScrollToTop = { true }
        view.tapStatusBar()
        expectEqual(view.contentOffset, Point(x: 0, y: 0))
        expectEqual(
            delegate.calls,
            [
                "s.shouldScrollToTop false", "s.shouldScrollToTop true", "s.didScroll (0, 0)",
                "s.didScrollToTop (0, 0)",
            ])
    }

    @Test func scrollsToTopFalseAsksNothing() {
        let view = scrollView(offset: Point(x: 0, y: 300))
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.scrollsToTop = false
        view.tapStatusBar()
        #expect(delegate.calls.isEmpty)
        expectEqual(view.contentOffset, Point(x: 0, y: 300))
    }

    @Test func withoutDelegateTheDefaultsApply() {
        let view = scrollView(offset: Point(x: 0, y: 300))
        view.beginDrag()
        view.drag(by: Point(x: 0, y: 100))
        view.endDrag(velocity: Point(x: 0, y: -0.1))
        expectEqual(view.contentOffset, Point(x: 0, y: 150))
        view.tapStatusBar()
        expectEqual(view.contentOffset, Point(x: 0, y: 0))
    }

    @Test func validationExplainsWhatAnInputNeeds() {
        let view = scrollView()
        expectEqual(view.validateDrag(by: Point(x: 0, y: 1)), "s is not being dragged (begin a drag first)")
        expectEqual(view.validateEndDrag(velocity: Point(x: 0, y: 1)), "s is not being dragged (begin a drag first)")
        #expect(view.validateBeginDrag() == nil)
        expectEqual(view.validateSetContentOffset(Point(x: .nan, y: 0)), "a content offset must be finite")
        view.beginDrag()
        expectEqual(view.validateBeginDrag(), "s is already being dragged")
        expectEqual(view.validateTapStatusBar(), "s is being dragged (end the drag first)")
        expectEqual(view.validateEndDrag(velocity: Point(x: .infinity, y: 0)), "a velocity must be finite")
        #expect(view.validateDrag(by: Point(x: 0, y: 1)) == nil)
    }

    @Test func recordsEveryCallbackWithTheTargetBeforeAndAfter() throws {
        let root = View(identifier: "root")
        let view = scrollView()
        root.addSubview(view)
        let delegate = ScrollLogDelegate()
        delegate.retarget = { proposed in Point(x: proposed.x, y: (proposed.y / 100).rounded(.up) * 100) }
        var vetoScrollToTop = true
        delegate.allowsScrollToTop = { !vetoScrollToTop }
        view.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        view.beginDrag()
        view.drag(by: Point(x: 0, y: -30))
        view.endDrag(velocity: Point(x: 0, y: 0.1))  // proposes 30 + 50 = 80; the delegate snaps to 100
        view.tapStatusBar()  // vetoed
        vetoScrollToTop = false
        view.tapStatusBar()
        view.setContentOffset(Point(x: 0, y: 12.5))
        let summary = recorder.finish()
        expectEqual(summary.vetoes, 1)  // the status bar tap; the snapped target is an override

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        func after(_ y: String, dragging: Bool = false) -> String {
            #"{"contentOffset":{"x":0.0,"y":\#(y)},"dragging":\#(dragging)}"#
        }
        let scroll = "root/s ScrollViewDelegate"
        let expected: [String] = [
            "1 - input root/s - beginDrag {} \(after("0.0", dragging: true)) - -",
            "2 1 callback \(scroll) scrollViewWillBeginDragging(_:) {} void - true",
            #"3 - input root/s - drag {"translation":{"x":0.0,"y":-30.0}} "# + after("30.0", dragging: true)
                + " - -",
            "4 3 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
            #"5 - input root/s - endDrag {"velocity":{"x":0.0,"y":0.1}} "# + after("100.0") + " - -",
            "6 5 callback \(scroll) scrollViewWillEndDragging(_:withVelocity:targetContentOffset:) "
                + #"{"velocity":{"x":0.0,"y":0.1},"targetContentOffset":{"x":0.0,"y":80.0}} "#
                + #"{"x":0.0,"y":100.0} overridden true"#,
            #"7 5 callback \#(scroll) scrollViewDidEndDragging(_:willDecelerate:) {"willDecelerate":true} void - true"#,
            "8 5 callback \(scroll) scrollViewWillBeginDecelerating(_:) {} void - true",
            "9 5 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
            "10 5 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
            "11 5 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
            "12 5 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
            "13 5 callback \(scroll) scrollViewDidEndDecelerating(_:) {} void - true",
            "14 - input root/s - tapStatusBar {} \(after("100.0")) - -",
            "15 14 callback \(scroll) scrollViewShouldScrollToTop(_:) {} false true true",
            "16 - input root/s - tapStatusBar {} \(after("0.0")) - -",
            "17 16 callback \(scroll) scrollViewShouldScrollToTop(_:) {} true false true",
            "18 16 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
            "19 16 callback \(scroll) scrollViewDidScrollToTop(_:) {} void - true",
            #"20 - input root/s - setContentOffset {"contentOffset":{"x":0.0,"y":12.5}} "# + after("12.5")
                + " - -",
            "21 20 callback \(scroll) scrollViewDidScroll(_:) {} void - true",
        ]
        expectEqual(timelineLines(events, protocols: true, overrides: true), expected)
        #expect(events.allSatisfy { $0.widgetKind == "ScrollView" })
    }

    @Test func anUnchangedTargetIsNotAVetoAndDefaultsAreMarked() throws {
        final class DidScrollOnly: ScrollViewDelegate {
            var scrolls = 0
            func scrollViewDidScroll(_ scrollView: ScrollView) { scrolls += 1 }
        }
        let view = scrollView()
        let delegate = DidScrollOnly()
        view.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.beginDrag()
        view.endDrag(velocity: Point(x: 0, y: 0.2))
        view.tapStatusBar()
        let summary = recorder.finish()
        expectEqual(summary.vetoes, 0)
        expectEqual(delegate.scrolls, 5)
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let willEnd = try #require(events.first { $0.callback.hasPrefix("scrollViewWillEndDragging") })
        expectEqual(willEnd.arguments, #"{"velocity":{"x":0.0,"y":0.2},"targetContentOffset":{"x":0.0,"y":100.0}}"#)
        expectEqual(willEnd.result, #"{"x":0.0,"y":100.0}"#)
        expectEqual(willEnd.overridden, false)
        #expect(willEnd.vetoed == nil)
        expectEqual(willEnd.implemented, false)
        let callbacks = events.filter { $0.kind == .callback }
        expectEqual(
            callbacks.map { "\($0.callback) \($0.implemented!)" },
            [
                "scrollViewWillBeginDragging(_:) false",
                "scrollViewWillEndDragging(_:withVelocity:targetContentOffset:) false",
                "scrollViewDidEndDragging(_:willDecelerate:) false", "scrollViewWillBeginDecelerating(_:) false",
                "scrollViewDidScroll(_:) true", "scrollViewDidScroll(_:) true", "scrollViewDidScroll(_:) true",
                "scrollViewDidScroll(_:) true", "scrollViewDidEndDecelerating(_:) false",
                "scrollViewShouldScrollToTop(_:) false", "scrollViewDidScroll(_:) true",
                "scrollViewDidScrollToTop(_:) false",
            ])
    }

    @Test func reassigningTheDelegateRetargetsAtOnceAndDetachStopsRecording() throws {
        let view = scrollView()
        let first = ScrollLogDelegate()
        view.delegate = first
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        #expect(view.auditLink != nil)
        let second = ScrollLogDelegate()
        view.delegate = second
        view.setContentOffset(Point(x: 0, y: 10))
        recorder.detach(from: view)
        #expect(view.auditLink == nil)
        #expect(view.delegate === second)
        view.setContentOffset(Point(x: 0, y: 20))
        #expect(first.calls.isEmpty)
        expectEqual(second.calls, ["s.didScroll (0, 10)", "s.didScroll (0, 20)"])
        expectEqual(recorder.finish().callbacks, 1)
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func auditingNeverChangesBehaviour(seed: UInt64) throws {
        let (plain, summary) = try expectAuditingChangesNothing(database: database) {
            runRandomScrollInputs(seed: seed, count: 300, recorder: $0)
        }
        #expect(summary.inputs >= 300)
        #expect(plain.calls.contains { $0.hasSuffix("decelerating") })
        #expect(plain.calls.contains("s.shouldScrollToTop false"))
    }

    @Test func widgetAndDelegateLeaveNoRetainCycle() throws {
        weak var weakView: ScrollView?
        weak var weakDelegate: ScrollLogDelegate?
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        do {
            let view = scrollView()
            let delegate = ScrollLogDelegate()
            view.delegate = delegate
            try recorder.attach(to: view)
            view.beginDrag()
            view.endDrag(velocity: Point(x: 0, y: 1))
            weakView = view
            weakDelegate = delegate
            #expect(view.auditLink != nil)
        }
        #expect(weakView == nil)
        #expect(weakDelegate == nil)
        recorder.finish()
    }
}

/// One random input that is valid in the view's state: drags while dragging, otherwise a new drag,
/// a status-bar tap or an offset set in code.
func performRandomScrollInput(on view: ScrollView, using random: inout SeededGenerator) {
    let choice = Int.random(in: 0..<10, using: &random)
    if view.isDragging {
        switch choice {
        case 0..<6:
            view.drag(
                by: Point(
                    x: Double.random(in: -80...80, using: &random), y: Double.random(in: -200...200, using: &random)))
        case 6..<9:
            view.endDrag(
                velocity: Point(
                    x: Double.random(in: -1...1, using: &random), y: Double.random(in: -3...3, using: &random)))
        default:
            view.setContentOffset(Point(x: 0, y: Double.random(in: 0...1000, using: &random).rounded()))
        }
    } else {
        switch choice {
        case 0..<5: view.beginDrag()
        case 5..<8: view.tapStatusBar()
        default: view.setContentOffset(Point(x: 50, y: Double.random(in: 0...1000, using: &random).rounded()))
        }
    }
}

/// A scroll view driven by `count` random inputs from `seed`, with a delegate that snaps every
/// other flick to a multiple of 100, vetoes every third scroll to the top and moves the content in
/// code from `scrollViewDidScrollToTop` (a nested input). Returns the delegate's log and the final
/// state.
func runRandomScrollInputs(seed: UInt64, count: Int, recorder: Recorder?) -> (calls: [String], state: String) {
    let root = View(identifier: "root")
    let view = ScrollView(
        identifier: "s", frame: Rect(x: 0, y: 0, width: 100, height: 200),
        contentSize: Size(width: 300, height: 1000))
    root.addSubview(view)
    let delegate = ScrollLogDelegate()
    var flicks = 0
    delegate.retarget = { proposed in
        flicks += 1
        return flicks % 2 == 0 ? Point(x: proposed.x, y: (proposed.y / 100).rounded() * 100) : proposed
    }
    var tops = 0
    delegate.allowsScrollToTop = {
        tops += 1
        return tops % 3 != 0
    }
    delegate.onDidScrollToTop = { view in if tops % 2 == 0 { view.setContentOffset(Point(x: 0, y: 10)) } }
    view.delegate = delegate
    try! recorder?.attach(to: root)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<count { performRandomScrollInput(on: view, using: &random) }
    return (delegate.calls, "\(view.contentOffset.text) \(view.isDragging)")
}
