import AuditModel
import AuditStorage

/// A discrete recognizer of one or more taps of one finger.
///
/// Each tap must lift within `maximumTapDuration` of touching down and stay within
/// `allowableMovement` of where it touched down; the next tap must touch down within
/// `maximumIntervalBetweenTaps` of the previous lift. It recognizes (`ended`) when the last
/// required tap lifts, and fails on a second finger, a cancelled touch, or any limit exceeded.
open class TapGestureRecognizer: GestureRecognizer {
    public var numberOfTapsRequired: Int {
        didSet { precondition(numberOfTapsRequired >= 1, "a tap recognizer needs at least one tap") }
    }
    /// How far, in points, a tap may move from where it touched down: 45, as UIKit's tap. UIKit
    /// documents no value and has no public property for it; its tap recognizer's archiving
    /// (`UITapRecognizer encodeWithCoder:` in UIKitCore, read from its disassembly) leaves out an
    /// `allowableMovement` equal to 45.0, its initial value (the Gestures article, "The built-in
    /// recognizers"). A long press's documented default stays 10. A move of exactly this far is
    /// within it, measured in micro-points (`TouchDistance`).
    public var allowableMovement = 45.0
    /// How long a tap may last, in nanoseconds: a finger still down when it is reached fails it.
    public var maximumTapDurationNanoseconds: Int64 = 750_000_000
    /// How long after a lift the next tap may touch down, in nanoseconds: a touch-down at the
    /// very instant it is reached is too late.
    public var maximumIntervalBetweenTapsNanoseconds: Int64 = 350_000_000

    /// `maximumTapDurationNanoseconds` in seconds (setting it rounds to the nearest nanosecond).
    public var maximumTapDuration: Double {
        get { VirtualTime.seconds(maximumTapDurationNanoseconds) }
        set { maximumTapDurationNanoseconds = VirtualTime.converting(newValue) }
    }

    /// `maximumIntervalBetweenTapsNanoseconds` in seconds (setting it rounds to the nearest
    /// nanosecond).
    public var maximumIntervalBetweenTaps: Double {
        get { VirtualTime.seconds(maximumIntervalBetweenTapsNanoseconds) }
        set { maximumIntervalBetweenTapsNanoseconds = VirtualTime.converting(newValue) }
    }
    /// Taps completed in the current touch sequence.
    public private(set) var tapsCompleted = 0
    /// Where the current tap touched down; nil between taps.
    private var start: Point?

    public init(identifier: String, numberOfTapsRequired: Int = 1) {
        precondition(numberOfTapsRequired >= 1, "a tap recognizer needs at least one tap")
        self.numberOfTapsRequired = numberOfTapsRequired
        super.init(identifier: identifier)
    }

    open override var widgetKind: String { "TapGestureRecognizer" }

    open override var thresholds: GestureThresholds {
        GestureThresholds(
            distances: [allowableMovement], durations: [maximumTapDuration], intervals: [maximumIntervalBetweenTaps])
    }

    open override func touchBegan(_ touch: Touch) {
        guard start == nil else { return transition(to: .failed) }
        start = touch.location
        scheduleTimer("maximumTapDuration", after: maximumTapDurationNanoseconds, from: touch.timestampNanoseconds)
    }

    open override func touchMoved(_ touch: Touch) {
        guard let start, TouchDistance.distance(from: start, to: touch.location, exceeds: allowableMovement) else {
            return
        }
        transition(to: .failed)
    }

    open override func touchEnded(_ touch: Touch) {
        guard let start else { return }
        if TouchDistance.distance(from: start, to: touch.location, exceeds: allowableMovement) {
            return transition(to: .failed)
        }
        self.start = nil
        tapsCompleted += 1
        if tapsCompleted >= numberOfTapsRequired {
            cancelTimer()
            transition(to: .recognized)
        } else {
            scheduleTimer(
                "maximumIntervalBetweenTaps", after: maximumIntervalBetweenTapsNanoseconds,
                from: touch.timestampNanoseconds)
        }
    }

    open override func touchCancelled(_ touch: Touch) {
        transition(to: .failed)
    }

    open override func timerFired(_ name: String, atNanoseconds time: Int64) {
        transition(to: .failed)
    }

    /// A tap never prevents a tap that needs more taps, so without a failure requirement a double
    /// tap still recognizes after a single tap did. `UIGestureRecognizerSubclass.h`: "for example, a
    /// UITapGestureRecognizer never prevents another UITapGestureRecognizer with a higher tap
    /// count"; Apple's `canPrevent(_:)` page says the same.
    open override func canPrevent(_ preventedGestureRecognizer: GestureRecognizer) -> Bool {
        guard let tap = preventedGestureRecognizer as? TapGestureRecognizer else { return true }
        return tap.numberOfTapsRequired <= numberOfTapsRequired
    }

    open override func reset() {
        super.reset()
        tapsCompleted = 0
        start = nil
    }
}
