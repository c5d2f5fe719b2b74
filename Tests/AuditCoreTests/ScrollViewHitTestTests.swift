import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A touch reaches a scroll view's subviews through its bounds origin, the content offset, as in
/// UIKit: `UIView.hitTest(_:with:)` and `point(inside:with:)` work in the receiver's bounds, and
/// `convert(_:to:)` goes through each view's frame and bounds origin (Apple's documentation of
/// `UIView.bounds`: "changing the bounds origin … moves the subviews").
@Suite("Scroll view: hit-testing through the content offset")
struct ScrollViewHitTestTests {
    /// A 320×480 root; the scroll view shows 320×200 of a 320×1000 content from window y = 100;
    /// `top` covers content y 0..<50, `far` content y 600..<650.
    struct Screen {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let scroll = ScrollView(
            identifier: "scroll", frame: Rect(x: 0, y: 100, width: 320, height: 200),
            contentSize: Size(width: 320, height: 1000))
        let top = View(identifier: "top", frame: Rect(x: 0, y: 0, width: 320, height: 50))
        let far = View(identifier: "far", frame: Rect(x: 0, y: 600, width: 320, height: 50))

        init() {
            root.addSubview(scroll)
            scroll.addSubview(top)
            scroll.addSubview(far)
        }

        /// The path of the view a touch at window point (x, y) lands on.
        func hit(_ x: Double, _ y: Double) -> String? {
            root.hitTest(root.convert(Point(x: x, y: y), from: nil))?.path
        }
    }

    @Test(arguments: [
        // offset y, window y → the view hit
        (0.0, 120.0, "root/scroll/top"), (0, 149, "root/scroll/top"), (0, 150, "root/scroll"),
        (0, 290, "root/scroll"), (30, 100, "root/scroll/top"), (30, 119, "root/scroll/top"),
        (30, 120, "root/scroll"), (580, 100, "root/scroll"), (580, 120, "root/scroll/far"),
        (580, 169, "root/scroll/far"), (580, 170, "root/scroll"), (500, 249, "root/scroll/far"),
        (500, 250, "root/scroll"), (450, 299, "root/scroll/far"), (400, 299, "root/scroll"), (580, 99, "root"),
        (580, 300, "root"),
    ])
    func aTouchHitsTheContentShownWhereItLands(offset: Double, windowY: Double, expected: String) {
        let screen = Screen()
        screen.scroll.setContentOffset(Point(x: 0, y: offset))
        expectEqual(screen.hit(10, windowY), expected)
    }

    @Test func contentScrolledOutOfTheBoundsCannotBeHitAnywhere() {
        let screen = Screen()
        screen.scroll.setContentOffset(Point(x: 0, y: 580))
        for y in stride(from: 0.0, to: 480, by: 1) {
            #expect(screen.hit(10, y) != "root/scroll/top")
        }
    }

    @Test func aHorizontalOffsetShiftsTheContentToo() {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let scroll = ScrollView(
            identifier: "pages", frame: Rect(x: 0, y: 0, width: 320, height: 100),
            contentSize: Size(width: 960, height: 100))
        let second = View(identifier: "second", frame: Rect(x: 320, y: 0, width: 320, height: 100))
        root.addSubview(scroll)
        scroll.addSubview(second)
        expectEqual(root.hitTest(Point(x: 10, y: 10))?.path, "root/pages")
        scroll.setContentOffset(Point(x: 320, y: 0))
        expectEqual(root.hitTest(Point(x: 10, y: 10))?.path, "root/pages/second")
        scroll.setContentOffset(Point(x: 315, y: 0))
        expectEqual(root.hitTest(Point(x: 4, y: 10))?.path, "root/pages")
        expectEqual(root.hitTest(Point(x: 5, y: 10))?.path, "root/pages/second")
    }

    @Test func pointsConvertThroughTheContentOffset() {
        let screen = Screen()
        screen.scroll.setContentOffset(Point(x: 0, y: 580))
        expectEqual(screen.far.convert(Point(x: 0, y: 0), to: nil), Point(x: 0, y: 120))
        expectEqual(screen.far.convert(Point(x: 0, y: 120), from: nil), Point(x: 0, y: 0))
        expectEqual(screen.scroll.convert(Point(x: 0, y: 100), from: nil), Point(x: 0, y: 580))
        expectEqual(screen.far.convert(Point(x: 0, y: 0), to: screen.scroll), Point(x: 0, y: 600))
        expectEqual(screen.top.convert(Point(x: 0, y: 0), to: screen.root), Point(x: 0, y: -480))
        expectEqual(
            Touch(id: 1, x: 7, y: 130, phase: .began, timestamp: 0).location(in: screen.far), Point(x: 7, y: 10))
    }

    @Test func nestedScrollViewsAddTheirOffsets() {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let outer = ScrollView(
            identifier: "outer", frame: Rect(x: 0, y: 0, width: 320, height: 480),
            contentSize: Size(width: 320, height: 2000))
        let inner = ScrollView(
            identifier: "inner", frame: Rect(x: 0, y: 1000, width: 320, height: 200),
            contentSize: Size(width: 320, height: 1000))
        let cell = View(identifier: "cell", frame: Rect(x: 0, y: 300, width: 320, height: 40))
        root.addSubview(outer)
        outer.addSubview(inner)
        inner.addSubview(cell)
        outer.setContentOffset(Point(x: 0, y: 900))  // inner shows from window y = 100
        inner.setContentOffset(Point(x: 0, y: 250))  // cell shows from window y = 150
        expectEqual(root.hitTest(Point(x: 10, y: 149))?.path, "root/outer/inner")
        expectEqual(root.hitTest(Point(x: 10, y: 150))?.path, "root/outer/inner/cell")
        expectEqual(root.hitTest(Point(x: 10, y: 189))?.path, "root/outer/inner/cell")
        expectEqual(cell.convert(Point(x: 0, y: 0), to: nil), Point(x: 0, y: 150))
    }

    @Test func aTouchReachesTheRecognizerOfTheContentScrolledIntoView() {
        let screen = Screen()
        let tap = TapGestureRecognizer(identifier: "tap")
        var taps = 0
        tap.addAction { _ in taps += 1 }
        screen.far.addGestureRecognizer(tap)
        let dispatcher = screen.root.touchDispatcher
        dispatcher.perform([
            Touch(id: 1, x: 10, y: 130, phase: .began, timestamp: 0),
            Touch(id: 1, x: 10, y: 130, phase: .ended, timestamp: 0.1),
        ])
        expectEqual(taps, 0)  // far is scrolled out of view: the touch lands on the scroll view
        screen.scroll.setContentOffset(Point(x: 0, y: 580))
        dispatcher.perform([
            Touch(id: 2, x: 10, y: 130, phase: .began, timestamp: 0),
            Touch(id: 2, x: 10, y: 130, phase: .ended, timestamp: 0.1),
        ])
        expectEqual(taps, 1)
    }
}
