import AuditModel
import AuditStorage

/// A continuous recognizer of a dragging finger.
///
/// It follows the first finger that touches down (others are ignored) and begins once that
/// finger has moved `minimumTranslation` along either axis from where it touched down; every later
/// move is a change, and lifting ends it. Lifting before it began fails it. `translation` is measured from the
/// touch-down point; `velocity` is the last move's, in points per second.
open class PanGestureRecognizer: GestureRecognizer {
    /// How far, in points, the finger must move along one axis for the pan to begin: a move of
    /// exactly this far does, measured in micro-points (`TouchDistance`).
    public var minimumTranslation = 10.0
    public private(set) var translation = Point(x: 0, y: 0)
    public private(set) var velocity = Point(x: 0, y: 0)
    /// The finger it follows, where it touched down, and its last event.
    private var finger: (start: Point, last: Touch)?
    /// Whether it asked to begin.
    private var panning = false

    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    open override var widgetKind: String { "PanGestureRecognizer" }

    open override var thresholds: GestureThresholds { GestureThresholds(distances: [minimumTranslation]) }

    /// The translation in `view`'s coordinates: the same in every view, as views are not scaled or
    /// rotated.
    public func translation(in view: View?) -> Point { translation }

    /// The velocity in `view`'s coordinates, in points per second.
    public func velocity(in view: View?) -> Point { velocity }

    open override func touchBegan(_ touch: Touch) {
        if finger == nil { finger = (touch.location, touch) }
    }

    open override func touchMoved(_ touch: Touch) {
        guard let start = finger?.start, follow(touch) else { return }
        if panning {
            transition(to: .changed)
        } else if TouchDistance.translation(from: start, to: touch.location, reaches: minimumTranslation) {
            // Per axis, not the straight-line length: a move of (8, 8) does not begin a 10 pt pan.
            // Observed UIKit behaviour (issue #13, item 9); Apple documents neither the threshold
            // nor how it is measured (the Gestures article, "The built-in recognizers"). Measured in
            // micro-points, not from `translation`'s rounded `Double`s (`TouchDistance`).
            panning = true
            transition(to: .began)
        }
    }

    open override func touchEnded(_ touch: Touch) {
        guard follow(touch) else { return }
        transition(to: panning ? .ended : .failed)
    }

    open override func touchCancelled(_ touch: Touch) {
        guard follow(touch) else { return }
        transition(to: panning ? .cancelled : .failed)
    }

    open override func reset() {
        super.reset()
        finger = nil
        panning = false
        translation = Point(x: 0, y: 0)
        velocity = Point(x: 0, y: 0)
    }

    /// Updates translation and velocity from the followed finger's event; false for other fingers.
    private func follow(_ touch: Touch) -> Bool {
        guard let followed = finger, followed.last.id == touch.id else { return false }
        let (start, last) = followed
        let elapsed = VirtualTime.seconds(touch.timestampNanoseconds - last.timestampNanoseconds)
        if elapsed > 0, touch.location != last.location {
            velocity = Point(
                x: (touch.location.x - last.location.x) / elapsed, y: (touch.location.y - last.location.y) / elapsed)
        }
        translation = Point(x: touch.location.x - start.x, y: touch.location.y - start.y)
        finger = (start, touch)
        return true
    }
}
