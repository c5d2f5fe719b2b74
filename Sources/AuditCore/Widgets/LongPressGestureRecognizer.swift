/// A continuous recognizer of one finger held still.
///
/// It begins when the finger has been down for `minimumPressDuration` without moving more than
/// `allowableMovement`; then every move is a change, whatever its size, and lifting ends it. It
/// fails when the finger moves too far or lifts early, or a second finger touches down before it
/// begins (after, other fingers are ignored).
open class LongPressGestureRecognizer: GestureRecognizer {
    public var minimumPressDuration = 0.5
    public var allowableMovement = 10.0
    /// The finger it follows, and where it touched down.
    private var finger: (id: Int, start: Point)?
    /// Whether it asked to begin.
    private var pressing = false

    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    open override var widgetKind: String { "LongPressGestureRecognizer" }

    open override func touchBegan(_ touch: Touch) {
        guard finger == nil else {
            if !pressing { transition(to: .failed) }
            return
        }
        finger = (touch.id, touch.location)
        scheduleTimer("minimumPressDuration", at: touch.timestamp + minimumPressDuration)
    }

    open override func touchMoved(_ touch: Touch) {
        guard let finger, finger.id == touch.id else { return }
        if pressing {
            transition(to: .changed)
        } else if distance(finger.start, touch.location) > allowableMovement {
            transition(to: .failed)
        }
    }

    open override func touchEnded(_ touch: Touch) {
        guard let finger, finger.id == touch.id else { return }
        transition(to: pressing ? .ended : .failed)
    }

    open override func touchCancelled(_ touch: Touch) {
        guard let finger, finger.id == touch.id else { return }
        transition(to: pressing ? .cancelled : .failed)
    }

    open override func timerFired(_ name: String, at time: Double) {
        pressing = true
        transition(to: .began)
    }

    open override func reset() {
        super.reset()
        finger = nil
        pressing = false
    }
}
