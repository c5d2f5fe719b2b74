import AuditModel
import AuditStorage

/// A view whose content, larger than its bounds, moves under a dragging finger. Its delegate hears
/// every move, may change where a flick comes to rest, and may refuse a scroll to the top.
///
/// The model, driven by inputs rather than touches (all of it synchronous):
/// - `beginDrag()` sets `isDragging`, then calls `scrollViewWillBeginDragging`.
/// - `drag(by:)` moves the content against the finger (`contentOffset -= translation`); each move
///   that changes the offset calls `scrollViewDidScroll`.
/// - `endDrag(velocity:)` takes the velocity in points per millisecond, as UIKit reports it, and
///   projects where the flick comes to rest: `offset + velocity · projectionTime`, the distance
///   rounded to whole points. The speed keeps `decelerationRate` (r) of itself each millisecond,
///   so it travels `r / (1 − r)` ms' worth: 499 ms at UIKit's normal rate 0.998. It asks
///   `scrollViewWillEndDragging` with that target (the audit records the delegate's answer as
///   written; the view clamps it, and ignores one that is not finite), clears `isDragging`, calls
///   `scrollViewDidEndDragging` (`willDecelerate` when the final target differs from the offset),
///   then, when decelerating, sets `isDecelerating`, calls `scrollViewWillBeginDecelerating`, moves
///   to the target in `decelerationSteps` ease-out steps (the fraction `1 − (1 − k/n)²` of the way,
///   rounded to whole points, the last step exactly on the target), each a `scrollViewDidScroll`,
///   clears `isDecelerating` and calls `scrollViewDidEndDecelerating`.
/// - Touches drag it too: `panGestureRecognizer` takes part in the arbitration like the app's
///   recognizers and, once it begins, drives the same callbacks (`ScrollView+Pan.swift`).
/// - `tapStatusBar()` does nothing, and asks nothing, when `scrollsToTop` is false, when another
///   scroll view of the same tree has `scrollsToTop` set too, or when the content is already at the
///   top (Apple's documentation of `UIScrollView.scrollsToTop`: "the scroll-to-top gesture has no
///   effect if there is more than one scroll view on-screen that has scrollsToTop set to true";
///   "… or the content is already at the top, nothing happens"). Otherwise it asks
///   `scrollViewShouldScrollToTop`; unless vetoed it sets `contentOffset.y` to 0 in one step
///   (`scrollViewDidScroll`), then calls `scrollViewDidScrollToTop`.
/// - `setContentOffset(_:)` moves the content in code, wherever it is told, as UIKit does:
///   `scrollViewDidScroll` when it moved, no other callback.
///
/// The offsets a finger causes (a drag, a flick's target, the delegate's target included) are
/// clamped to `0...maximumContentOffset`: there is no content inset and no bounce. Offsets set in
/// code, at creation or with `setContentOffset(_:)`, are not clamped, as in UIKit.
open class ScrollView: View {
    /// UIKit's `UIScrollView.DecelerationRate.normal`: the speed keeps 0.998 of itself each ms.
    public static let normalDecelerationRate = 0.998
    /// UIKit's `UIScrollView.DecelerationRate.fast`.
    public static let fastDecelerationRate = 0.99
    /// The `scrollViewDidScroll` calls of one deceleration (fewer when a step does not move).
    public static let decelerationSteps = 4

    /// The point of the content shown at the top-left corner of the frame.
    public private(set) var contentOffset: Point
    public internal(set) var contentSize: Size
    public internal(set) var isDragging = false
    /// True only while the deceleration after `endDrag(velocity:)` runs its steps.
    public private(set) var isDecelerating = false
    /// The recognizer of the finger that drags the content, as UIKit's `UIScrollView.panGestureRecognizer`.
    /// It is the first recognizer of this view in every touch sequence, but not one of its
    /// `gestureRecognizers` (the app's); the scroll view answers for it, so it has no delegate of
    /// the app's and is not audited itself, while the app's recognizers are asked about it.
    public let panGestureRecognizer: PanGestureRecognizer
    /// Where a touch drag started: the content offset and the pan's translation when it began.
    var touchDrag: (offset: Point, translation: Point)?
    /// The fraction of its speed a flick keeps each millisecond, in (0, 1).
    public var decelerationRate = ScrollView.normalDecelerationRate {
        willSet { precondition(newValue > 0 && newValue < 1, "a deceleration rate is in (0, 1)") }
    }
    /// When false, a tap on the status bar does nothing and the delegate is not asked.
    public var scrollsToTop = true

    /// The app's delegate, held weakly, and asked at each callback: assigning it while the view is
    /// audited retargets the audit at once. A `TableView` keeps its `TableViewDelegate` here too.
    public weak var delegate: (any ScrollViewDelegate)?

    /// The callbacks of `ScrollViewDelegate`, each declared once.
    public static let callbacks = ScrollViewCallbacks()

    public init(identifier: String, frame: Rect = .zero, contentSize: Size, contentOffset: Point = Point(x: 0, y: 0)) {
        precondition(
            contentSize.width >= 0 && contentSize.height >= 0 && contentSize.width.isFinite
                && contentSize.height.isFinite, "a content size is finite and not negative")
        precondition(contentOffset.x.isFinite && contentOffset.y.isFinite, "a content offset is finite")
        self.contentSize = contentSize
        self.contentOffset = contentOffset
        self.panGestureRecognizer = ScrollViewPanGestureRecognizer()
        super.init(identifier: identifier, frame: frame)
        installPanGestureRecognizer()
    }

    open override var widgetKind: String { "ScrollView" }

    /// Its own pan recognizer first, then the app's: the recognizers a touch on it is offered.
    override var touchRecognizers: [GestureRecognizer] { [panGestureRecognizer] + gestureRecognizers }

    /// The largest content offset: the content's size less the frame's, and never negative.
    public var maximumContentOffset: Point {
        Point(x: max(0, contentSize.width - frame.width), y: max(0, contentSize.height - frame.height))
    }

    /// How long a flick's initial speed would have to last to cover the distance it travels while
    /// decelerating, in milliseconds: `r / (1 − r)`, rounded to the microsecond so that the normal
    /// rate gives exactly 499.
    public var projectionTime: Double {
        (decelerationRate / (1 - decelerationRate) * 1000).rounded() / 1000
    }

    /// The visible part of the content, in the content's coordinates: its origin is the content
    /// offset, so hit-testing and `convert(_:to:)` see the subviews where the scroll put them.
    open override var bounds: Rect {
        Rect(x: contentOffset.x, y: contentOffset.y, width: frame.width, height: frame.height)
    }

    // MARK: Inputs

    // Each input runs its `Inputs` check first, as a user's widget's does: one the widget's state
    // refuses does nothing, and a recorder lists it in `refusedInputs`.

    /// A finger starts dragging the content.
    public func beginDrag() {
        performInput(Inputs.beginDrag, ()) {
            isDragging = true
            ScrollView.callbacks.willBeginDragging.ask(delegate, self, ())
            return .object(recordedState)
        }
    }

    /// The dragging finger moves by `translation`; the content moves the other way.
    public func drag(by translation: Point) {
        performInput(Inputs.drag, translation) {
            scroll(to: clamped(Point(x: contentOffset.x - translation.x, y: contentOffset.y - translation.y)))
            return .object(recordedState)
        }
    }

    /// The finger lifts, moving at `velocity` points per millisecond in the direction the content
    /// offset moves; the content decelerates to its target (see the type's description).
    public func endDrag(velocity: Point) {
        performInput(Inputs.endDrag, velocity) {
            endDragging(velocity: velocity)
            return .object(recordedState)
        }
    }

    /// The user taps the status bar: the content scrolls to the top unless the delegate vetoes it,
    /// or nothing happens at all (see the type's description).
    public func tapStatusBar() {
        performInput(Inputs.tapStatusBar, ()) {
            if scrollsToTop, !anotherScrollsToTop, contentOffset.y != 0,
                ScrollView.callbacks.shouldScrollToTop.ask(delegate, self, ())
            {
                scroll(to: Point(x: contentOffset.x, y: 0))
                ScrollView.callbacks.didScrollToTop.ask(delegate, self, ())
            }
            return .object(recordedState)
        }
    }

    /// Whether another scroll view of this view's tree has `scrollsToTop` set: then a tap on the
    /// status bar scrolls none of them, as on an iPhone.
    private var anotherScrollsToTop: Bool {
        var found = false
        root.visit { view in
            if !found, view !== self, let scroll = view as? ScrollView, scroll.scrollsToTop { found = true }
        }
        return found
    }

    /// Moves the content in code, wherever it is told (not clamped), without animation.
    public func setContentOffset(_ offset: Point) {
        performInput(Inputs.setContentOffset, offset) {
            scroll(to: offset)
            return .object(recordedState)
        }
    }

    // MARK: Validation

    /// Why `beginDrag()` cannot run now, or nil.
    public func validateBeginDrag() -> String? {
        isDragging ? "\(path) is already being dragged" : nil
    }

    /// Why `drag(by:)` cannot run now, or nil.
    public func validateDrag(by translation: Point) -> String? {
        if !isDragging { return "\(path) is not being dragged (begin a drag first)" }
        return Self.finite(translation, "a translation")
    }

    /// Why `endDrag(velocity:)` cannot run now, or nil.
    public func validateEndDrag(velocity: Point) -> String? {
        if !isDragging { return "\(path) is not being dragged (begin a drag first)" }
        return Self.finite(velocity, "a velocity")
    }

    /// Why `tapStatusBar()` cannot run now, or nil.
    public func validateTapStatusBar() -> String? {
        isDragging ? "\(path) is being dragged (end the drag first)" : nil
    }

    /// Why `setContentOffset(_:)` cannot run, or nil.
    public func validateSetContentOffset(_ offset: Point) -> String? {
        Self.finite(offset, "a content offset")
    }

    private static func finite(_ point: Point, _ what: String) -> String? {
        point.x.isFinite && point.y.isFinite ? nil : "\(what) must be finite"
    }

    // MARK: Moving

    /// The fields an input records as its result: the state after it. Subclasses add theirs.
    var recordedState: [String: AuditValue] {
        ["contentOffset": ValueCoding.point.encode(contentOffset), "dragging": .bool(isDragging)]
    }

    func clamped(_ offset: Point) -> Point {
        let maximum = maximumContentOffset
        return Point(x: min(max(offset.x, 0), maximum.x), y: min(max(offset.y, 0), maximum.y))
    }

    /// Sets the offset and calls `scrollViewDidScroll` when it changed. The callers clamp what a
    /// finger causes; code sets any finite offset.
    func scroll(to offset: Point) {
        guard offset != contentOffset else { return }
        contentOffset = offset
        ScrollView.callbacks.didScroll.ask(delegate, self, ())
    }

    /// The finger lifts at `velocity` (points per ms, in the direction the offset moves): the
    /// target is projected and offered to the delegate, the drag ends, and the content decelerates
    /// to the target. What `endDrag(velocity:)` and a touch drag that ends both do.
    func endDragging(velocity: Point) {
        let proposed = clamped(
            Point(
                x: contentOffset.x + (velocity.x * projectionTime).rounded(),
                y: contentOffset.y + (velocity.y * projectionTime).rounded()))
        let answer = ScrollView.callbacks.willEndDragging.ask(delegate, self, (velocity, proposed))
        let target = answer.x.isFinite && answer.y.isFinite ? clamped(answer) : proposed
        isDragging = false
        touchDrag = nil
        let willDecelerate = target != contentOffset
        ScrollView.callbacks.didEndDragging.ask(delegate, self, willDecelerate)
        if willDecelerate { decelerate(to: target) }
    }

    private func decelerate(to target: Point) {
        isDecelerating = true
        ScrollView.callbacks.willBeginDecelerating.ask(delegate, self, ())
        let start = contentOffset
        let steps = Self.decelerationSteps
        for step in 1...steps {
            let remaining = 1 - Double(step) / Double(steps)
            let fraction = 1 - remaining * remaining
            scroll(
                to: step == steps
                    ? target
                    : Point(
                        x: Self.interpolate(start.x, target.x, fraction),
                        y: Self.interpolate(start.y, target.y, fraction)))
        }
        isDecelerating = false
        ScrollView.callbacks.didEndDecelerating.ask(delegate, self, ())
    }

    /// The point `fraction` of the way from `start` to `end`: the distance rounded to whole points.
    /// An offset set in code may lie so far outside the content that the distance overflows; the
    /// weighted mean, rounded, is then used, which stays finite.
    private static func interpolate(_ start: Double, _ end: Double, _ fraction: Double) -> Double {
        let distance = end - start
        guard distance.isFinite else { return (start * (1 - fraction) + end * fraction).rounded() }
        return start + (distance * fraction).rounded()
    }

    /// The inputs that drive a scroll view (and a table view), as recorded.
    public enum Inputs {
        public static let beginDrag: Input<ScrollView, Void> = Input(
            "beginDrag", of: "ScrollView", arguments: .none,
            check: { view, _ in view.validateBeginDrag().map { StepProblem($0) } },
            perform: { view, _ in view.beginDrag() })
        public static let drag: Input<ScrollView, Point> = Input(
            "drag", of: "ScrollView", arguments: .one("translation", .point),
            check: { view, translation in view.validateDrag(by: translation).map { StepProblem($0) } },
            perform: { $0.drag(by: $1) })
        public static let endDrag: Input<ScrollView, Point> = Input(
            "endDrag", of: "ScrollView", arguments: .one("velocity", .point),
            check: { view, velocity in view.validateEndDrag(velocity: velocity).map { StepProblem($0) } },
            perform: { $0.endDrag(velocity: $1) })
        public static let tapStatusBar: Input<ScrollView, Void> = Input(
            "tapStatusBar", of: "ScrollView", arguments: .none,
            check: { view, _ in view.validateTapStatusBar().map { StepProblem($0) } },
            perform: { view, _ in view.tapStatusBar() })
        public static let setContentOffset: Input<ScrollView, Point> = Input(
            "setContentOffset", of: "ScrollView", arguments: .one("contentOffset", .point),
            check: { view, offset in view.validateSetContentOffset(offset).map { StepProblem($0) } },
            perform: { $0.setContentOffset($1) })
        public static let all: [any WidgetInput] = [beginDrag, drag, endDrag, tapStatusBar, setContentOffset]
    }
}
