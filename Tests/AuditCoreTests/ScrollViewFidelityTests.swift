import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Scroll view rules taken from Apple's documentation of `UIScrollView` and `UIScrollViewDelegate`.
@Suite("Scroll view: offsets in code, scroll to top, deceleration callbacks")
struct ScrollViewFidelityTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// 100×100 points showing content 100×1000: a finger scrolls it vertically up to y = 900.
    func scrollView(_ identifier: String = "s", offset: Point = Point(x: 0, y: 0)) -> ScrollView {
        ScrollView(
            identifier: identifier, frame: Rect(x: 0, y: 0, width: 100, height: 100),
            contentSize: Size(width: 100, height: 1000), contentOffset: offset)
    }

    // MARK: A reference model

    /// Random offsets set in code, `scrollsToTop` switched on and off, and status-bar taps on two
    /// scroll views of one tree, each checked against a model of the documented rules: an offset
    /// set in code is kept as given, whatever it is, with `didScroll` when it moved; a tap on the
    /// status bar asks `scrollViewShouldScrollToTop` only when this view scrolls to top, no other
    /// view of the tree does, and the content is not at the top, and scrolls to the top only when
    /// the delegate agrees. Audited and not, the same.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomOffsetsAndStatusBarTapsFollowTheModel(seed: UInt64) throws {
        for audited in [false, true] {
            var random = SeededGenerator(seed: seed)
            let root = View(identifier: "r", frame: Rect(x: 0, y: 0, width: 200, height: 100))
            let views = [scrollView("a"), scrollView("b")]
            views[1].frame = Rect(x: 100, y: 0, width: 100, height: 100)
            let delegate = ScrollLogDelegate()
            var answers: [Bool] = []
            delegate.allowsScrollToTop = {
                let answer = Bool.random(using: &random)
                answers.append(answer)
                return answer
            }
            for view in views {
                root.addSubview(view)
                view.delegate = delegate
            }
            let recorder =
                audited ? try Recorder(databasePath: database, session: newSession(), catalog: .builtIn) : nil
            try recorder?.attach(to: root)
            // The model: each view's offset and scrollsToTop.
            var offsets = views.map(\.contentOffset)
            var scrollsToTop = [true, true]
            var inputs = 0
            for step in 0..<400 {
                let index = Int.random(in: 0..<2, using: &random)
                let view = views[index]
                let name = view.identifier
                delegate.calls.removeAll()
                answers.removeAll()
                var expected: [String] = []
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    // Anywhere, often out of the content's range, and now and then where it is.
                    let offset =
                        Bool.random(using: &random)
                        ? offsets[index]
                        : Point(
                            x: Double(Int.random(in: -50...150, using: &random)),
                            y: Double(Int.random(in: -100...1100, using: &random)) / 2)
                    view.setContentOffset(offset)
                    inputs += 1
                    if offset != offsets[index] { expected = ["\(name).didScroll \(offset.text)"] }
                    offsets[index] = offset
                case 1:
                    scrollsToTop[index].toggle()
                    view.scrollsToTop = scrollsToTop[index]
                default:
                    view.tapStatusBar()
                    inputs += 1
                    let asked = scrollsToTop[index] && !scrollsToTop[1 - index] && offsets[index].y != 0
                    if asked {
                        let agreed = try #require(answers.first)
                        expected = ["\(name).shouldScrollToTop \(agreed)"]
                        if agreed {
                            offsets[index].y = 0
                            expected += [
                                "\(name).didScroll \(offsets[index].text)",
                                "\(name).didScrollToTop \(offsets[index].text)",
                            ]
                        }
                    }
                    expectEqual(answers.count, (asked ? 1 : 0), "seed \(seed) step \(step)")
                }
                expectEqual(delegate.calls, expected, "seed \(seed) step \(step), audited: \(audited)")
                expectEqual(views.map(\.contentOffset), offsets, "seed \(seed) step \(step)")
            }
            if let recorder { expectEqual(recorder.finish().inputs, inputs) }
        }
    }

    // MARK: Offsets set in code

    // UIKit's `contentOffset` and `setContentOffset(_:animated:)` take any point: nothing clamps an
    // offset set in code (a pull-to-refresh sets a negative one); only a finger is kept in range.
    @Test(arguments: [Point(x: 0, y: -50), Point(x: 0, y: 2000), Point(x: -10, y: 950), Point(x: 40, y: 0)])
    func anOffsetSetInCodeIsKeptAsGiven(offset: Point) {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.setContentOffset(offset)
        expectEqual(view.contentOffset, offset)
        expectEqual(delegate.calls, ["s.didScroll \(offset.text)"])
        expectEqual(scrollView(offset: offset).contentOffset, offset)
    }

    @Test func aTableKeepsItsInitialOffsetToo() {
        let table = TableView(
            identifier: "t", frame: Rect(x: 0, y: 0, width: 320, height: 100), rowsPerSection: [2],
            contentOffset: Point(x: 0, y: -60))
        expectEqual(table.contentOffset, Point(x: 0, y: -60))
    }

    @Test func aFingerBringsAnOffsetSetInCodeBackIntoRange() {
        let view = scrollView(offset: Point(x: 0, y: -50))
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.beginDrag()
        view.drag(by: Point(x: 0, y: -10))  // -40 lies outside the content: clamped to 0
        view.endDrag(velocity: Point(x: 0, y: 0))
        expectEqual(view.contentOffset, Point(x: 0, y: 0))
        expectEqual(
            delegate.calls,
            [
                "s.willBeginDragging dragging", "s.didScroll (0, 0) dragging",
                "s.willEndDragging (0, 0) (0, 0)->(0, 0) dragging", "s.didEndDragging false",
            ])
    }

    /// From an offset set in code at the far negative end to a target at the far positive end, the
    /// distance overflows a Double; every step of the deceleration stays finite all the same.
    @Test func aFlickFromAnOffsetFarOutsideTheContentStaysFinite() {
        let view = ScrollView(
            identifier: "s", frame: Rect(x: 0, y: 0, width: 100, height: 100),
            contentSize: Size(width: 100, height: .greatestFiniteMagnitude))
        final class Offsets: ScrollViewDelegate {
            var seen: [Double] = []
            var decelerations = 0
            func scrollViewDidScroll(_ scrollView: ScrollView) { seen.append(scrollView.contentOffset.y) }
            func scrollViewWillEndDragging(
                _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
            ) {
                targetContentOffset.pointee = Point(x: 0, y: .greatestFiniteMagnitude)
            }
            func scrollViewDidEndDecelerating(_ scrollView: ScrollView) { decelerations += 1 }
        }
        let delegate = Offsets()
        view.delegate = delegate
        view.setContentOffset(Point(x: 0, y: -.greatestFiniteMagnitude))
        view.beginDrag()
        view.endDrag(velocity: Point(x: 0, y: 1))
        #expect(delegate.seen.count == 5 && delegate.seen.allSatisfy(\.isFinite))
        expectEqual(view.contentOffset.y, view.maximumContentOffset.y)
        expectEqual(delegate.decelerations, 1)
    }

    @Test func aScenarioKeepsItsInitialOffsetAndDescribesIt() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"name": "s", "delegate": "d", "root": {"kind": "View", "id": "root", "frame": [0, 0, 100, 100],
                  "children": [{"kind": "ScrollView", "id": "s", "frame": [0, 0, 100, 100],
                    "contentSize": [100, 1000], "contentOffset": [0, -40], "scrollsToTop": false}]},
                 "steps": []}
                """#.utf8), catalog: .builtIn)
        let root = scenario.root.build()
        let view = try #require(root.view(atPath: "root/s") as? ScrollView)
        expectEqual(view.contentOffset, Point(x: 0, y: -40))
        #expect(!view.scrollsToTop)
        let described = WidgetKind.scrollView.describe(view)
        // Described through the kind's `Codable` properties: whole numbers are written as integers.
        expectEqual(described["contentOffset"], .array([.int(0), .int(-40)]))
        expectEqual(described["scrollsToTop"], .bool(false))
        #expect(WidgetKind.scrollView.describe(scrollView())["scrollsToTop"] == nil)
    }

    // MARK: Scroll to top

    // Apple, `UIScrollView.scrollsToTop`: "On iPhone, the scroll-to-top gesture has no effect if
    // there is more than one scroll view on-screen that has scrollsToTop set to true."
    @Test func withTwoScrollToTopViewsOnScreenNeitherScrollsNorIsAsked() {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let first = scrollView("a", offset: Point(x: 0, y: 300))
        let second = scrollView("b", offset: Point(x: 0, y: 200))
        root.addSubview(first)
        root.addSubview(second)
        let delegate = ScrollLogDelegate()
        first.delegate = delegate
        second.delegate = delegate
        first.tapStatusBar()
        second.tapStatusBar()
        #expect(delegate.calls.isEmpty)
        #expect(first.contentOffset == Point(x: 0, y: 300) && second.contentOffset == Point(x: 0, y: 200))
        second.scrollsToTop = false
        first.tapStatusBar()
        expectEqual(delegate.calls, ["a.shouldScrollToTop true", "a.didScroll (0, 0)", "a.didScrollToTop (0, 0)"])
    }

    /// The tree has no window: a scroll view outside the root's frame is still on-screen for a
    /// status-bar tap.
    @Test func aScrollViewOutOfSightStillCountsAsOnScreen() {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let visible = scrollView("a", offset: Point(x: 0, y: 300))
        let away = scrollView("b")
        away.frame = Rect(x: 5_000, y: 5_000, width: 100, height: 100)
        root.addSubview(visible)
        root.addSubview(away)
        let delegate = ScrollLogDelegate()
        visible.delegate = delegate
        visible.tapStatusBar()
        #expect(delegate.calls.isEmpty)
        expectEqual(visible.contentOffset, Point(x: 0, y: 300))
    }

    @Test func aNestedTableCountsAsAnotherScrollToTopView() {
        let outer = scrollView("outer", offset: Point(x: 0, y: 300))
        let table = TableView(identifier: "t", frame: Rect(x: 0, y: 0, width: 100, height: 100), rowsPerSection: [9])
        outer.addSubview(table)
        let delegate = ScrollLogDelegate()
        outer.delegate = delegate
        outer.tapStatusBar()
        #expect(delegate.calls.isEmpty && outer.contentOffset == Point(x: 0, y: 300))
        table.scrollsToTop = false
        outer.tapStatusBar()
        expectEqual(outer.contentOffset, Point(x: 0, y: 0))
    }

    // Apple, `UIScrollView.scrollsToTop`: "If that scroll view has scrollsToTop set to false, its
    // delegate returns false from scrollViewShouldScrollToTop(_:), or the content is already at the
    // top, nothing happens."
    @Test func atTheTopATapOnTheStatusBarAsksAndTellsNothing() {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.tapStatusBar()
        view.setContentOffset(Point(x: 30, y: 0))  // scrolled sideways only: still at the top
        view.tapStatusBar()
        expectEqual(delegate.calls, ["s.didScroll (30, 0)"])
    }

    @Test func aboveTheTopATapOnTheStatusBarScrollsDownToIt() {
        let view = scrollView(offset: Point(x: 0, y: -50))
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.tapStatusBar()
        expectEqual(view.contentOffset, Point(x: 0, y: 0))
        expectEqual(delegate.calls, ["s.shouldScrollToTop true", "s.didScroll (0, 0)", "s.didScrollToTop (0, 0)"])
    }

    // MARK: Deceleration

    // Apple, `UIScrollViewDelegate.scrollViewWillBeginDecelerating(_:)`: "The scroll view calls this
    // method as the user's finger touch-up as it's moving during a scrolling operation";
    // `scrollViewDidEndDecelerating(_:)`: "when the scrolling movement comes to a halt". Both come
    // after `scrollViewDidEndDragging(_:willDecelerate: true)`, and only then.
    @Test func aFlickTellsWhenDecelerationBeginsAndEnds() {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.beginDrag()
        view.endDrag(velocity: Point(x: 0, y: 0.2))  // 0.2 × 499 = 99.8, rounded to 100
        expectEqual(
            delegate.calls,
            [
                "s.willBeginDragging dragging", "s.willEndDragging (0, 0.2) (0, 100)->(0, 100) dragging",
                "s.didEndDragging true", "s.willBeginDecelerating decelerating", "s.didScroll (0, 44) decelerating",
                "s.didScroll (0, 75) decelerating", "s.didScroll (0, 94) decelerating",
                "s.didScroll (0, 100) decelerating", "s.didEndDecelerating (0, 100)",
            ])
    }

    @Test func withoutDecelerationNeitherIsCalled() {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        view.beginDrag()
        view.drag(by: Point(x: 0, y: -20))
        view.endDrag(velocity: Point(x: 0, y: 0))
        #expect(!delegate.calls.contains { $0.contains("Decelerating") })
        expectEqual(delegate.calls.last, "s.didEndDragging false")
    }

    @Test func theDecelerationCallbacksAreAuditedAndReplayedByName() throws {
        let view = scrollView()
        let delegate = ScrollLogDelegate()
        view.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.beginDrag()
        view.endDrag(velocity: Point(x: 0, y: 0.2))
        let summary = recorder.finish()
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let names = events.filter { $0.kind == .callback }.map(\.callback)
        expectEqual(names.first { $0.contains("Decelerating") }, "scrollViewWillBeginDecelerating(_:)")
        expectEqual(names.last, "scrollViewDidEndDecelerating(_:)")
        #expect(events.filter { $0.callback.contains("Decelerating") }.allSatisfy { $0.implemented == true })
        let listed = WidgetCatalog.builtIn.callbacks.map(\.name)
        #expect(listed.contains("scrollViewWillBeginDecelerating(_:)"))
        #expect(listed.contains("scrollViewDidEndDecelerating(_:)"))
        let invoker = try #require(
            ScrollView.callbacks.invokers.first { $0.descriptor.name.contains("EndDecelerating") })
        expectEqual(invoker.descriptor.protocolName, "ScrollViewDelegate")
    }
}
