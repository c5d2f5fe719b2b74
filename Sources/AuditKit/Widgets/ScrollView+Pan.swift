import AuditModel
import AuditStorage

/// Touches drag a scroll view through its own pan recognizer, as UIKit's
/// `UIScrollView.panGestureRecognizer`: it takes part in the arbitration with the app's
/// recognizers (the Gestures article), and while it runs the scroll view calls the same delegate
/// methods as the `beginDrag`/`drag`/`endDrag` inputs.
///
/// - began: `isDragging` is set, `scrollViewWillBeginDragging`. The content follows the finger
///   from here: the distance the pan needed to begin is not scrolled.
/// - changed: the content moves against the finger's translation since the pan began, clamped to
///   the content (`scrollViewDidScroll` when it moved).
/// - ended: the finger's last velocity, in points per second, becomes the flick's velocity in
///   points per millisecond in the direction the offset moves (`−velocity / 1000`; zero when that
///   is not finite, a move over a vanishing time), and the drag
///   ends as `endDrag(velocity:)` does: `scrollViewWillEndDragging` with the projected target,
///   `scrollViewDidEndDragging`, and the deceleration with its callbacks.
/// - cancelled (another recognizer prevented it once it had begun): the drag ends at velocity
///   zero, so the content stays where it is.
///
/// It does not begin while the view is being dragged by the inputs; an `endDrag` input during a
/// touch drag ends that drag, and the finger moves nothing more.
extension ScrollView {
    /// The identifier of every scroll view's own pan recognizer: its path is the view's path and
    /// `#panGestureRecognizer`.
    public static let panGestureRecognizerIdentifier = "panGestureRecognizer"

    /// Called once, from the initializer.
    func installPanGestureRecognizer() {
        panGestureRecognizer.view = self
        panGestureRecognizer.addAction { [weak self] recognizer in
            guard let pan = recognizer as? PanGestureRecognizer else { return }
            self?.panDidChange(pan)
        }
    }

    private func panDidChange(_ pan: PanGestureRecognizer) {
        switch pan.state {
        case .began:
            guard !isDragging else { return }
            touchDrag = (contentOffset, pan.translation)
            isDragging = true
            ScrollView.callbacks.willBeginDragging.ask(delegate, self, ())
        case .changed:
            guard isDragging, let start = touchDrag else { return }
            scroll(
                to: clamped(
                    Point(
                        x: start.offset.x - (pan.translation.x - start.translation.x),
                        y: start.offset.y - (pan.translation.y - start.translation.y))))
        case .ended, .cancelled:
            guard isDragging, touchDrag != nil else { return }
            let velocity = pan.state == .ended ? pan.velocity : Point(x: 0, y: 0)
            endDragging(velocity: Point(x: Self.flickSpeed(velocity.x), y: Self.flickSpeed(velocity.y)))
        case .possible, .failed:
            return
        }
    }

    /// A finger's speed in points per second as a flick's in points per ms, in the direction the
    /// offset moves. A speed that is not finite (a move over a vanishing time) counts as zero.
    private static func flickSpeed(_ fingerSpeed: Double) -> Double {
        let speed = 0 - fingerSpeed / 1000
        return speed.isFinite ? speed : 0
    }
}

/// A scroll view's own pan recognizer. The scroll view answers for it, as UIKit's does: it takes
/// no delegate from a scenario, and is not audited itself.
final class ScrollViewPanGestureRecognizer: PanGestureRecognizer {
    init() {
        super.init(identifier: ScrollView.panGestureRecognizerIdentifier)
    }

    override var widgetKind: String { "ScrollViewPanGestureRecognizer" }

    override func adoptDelegate(_ candidate: AnyObject) -> Bool { false }

    override func touchMoved(_ touch: Touch) {
        if state == .possible, let scrollView = view as? ScrollView, scrollView.isDragging, scrollView.touchDrag == nil
        {
            return transition(to: .failed)
        }
        super.touchMoved(touch)
    }
}
