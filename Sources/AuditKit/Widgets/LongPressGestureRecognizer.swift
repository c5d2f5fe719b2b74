import AuditModel
import AuditStorage

/// A continuous recognizer of one finger held still.
///
/// It begins when the finger has been down for `minimumPressDuration` without moving more than
/// `allowableMovement`; then every move is a change, whatever its size, and lifting ends it. It
/// fails when the finger moves too far or lifts early, or a second finger touches down before it
/// begins (after, other fingers are ignored).
open class LongPressGestureRecognizer: GestureRecognizer {
    /// How long the finger must be down, in nanoseconds. Held exactly this long, it begins: the
    /// timer fires before a lift at the same instant.
    public var minimumPressDurationNanoseconds: Int64 = 500_000_000
    /// How far, in points, the finger may move before the press begins: a move of exactly this
    /// far is within it, measured in micro-points (`TouchDistance`).
    public var allowableMovement = 10.0
    /// The finger it follows, and where it touched down.
    private var finger: (id: Int, start: Point)?
    /// Whether it asked to begin.
    private var pressing = false

    /// `minimumPressDurationNanoseconds` in seconds (setting it rounds to the nearest nanosecond).
    public var minimumPressDuration: Double {
        get { VirtualTime.seconds(minimumPressDurationNanoseconds) }
        set { minimumPressDurationNanoseconds = VirtualTime.converting(newValue) }
    }

    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    open override var widgetKind: String { "LongPressGestureRecognizer" }

    open override var thresholds: GestureThresholds {
        GestureThresholds(distances: [allowableMovement], durations: [minimumPressDuration])
    }

    open override func touchBegan(_ touch: Touch) {
        guard finger == nil else {
            if !pressing { transition(to: .failed) }
            return
        }
        finger = (touch.id, touch.location)
        scheduleTimer("minimumPressDuration", after: minimumPressDurationNanoseconds, from: touch.timestampNanoseconds)
    }

    open override func touchMoved(_ touch: Touch) {
        guard let finger, finger.id == touch.id else { return }
        if pressing {
            transition(to: .changed)
        } else if TouchDistance.distance(from: finger.start, to: touch.location, exceeds: allowableMovement) {
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

    open override func timerFired(_ name: String, atNanoseconds time: Int64) {
        pressing = true
        transition(to: .began)
    }

    open override func reset() {
        super.reset()
        finger = nil
        pressing = false
    }
}
