import AuditCore

/// What one change of a slider's value was: recorded with `didChange` as a JSON object.
public struct SliderChange: Codable, Sendable, Equatable {
    /// Why the value changed.
    public enum Reason: String, Codable, Sendable {
        case drag
        case reset
    }

    public var from: Double
    public var to: Double
    public var reason: Reason

    public init(from: Double, to: Double, reason: Reason) {
        self.from = from
        self.to = to
        self.reason = reason
    }
}

/// The slider's delegate: one callback of each answer kind, and a notification with a struct.
public protocol SliderDelegate: AnyObject {
    /// A veto: `false` refuses a drag to `value` (the slider's current value is `slider.value`).
    func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool
    /// An override: the value the slider takes for a proposed `value` (snapping, capping).
    func slider(_ slider: Slider, proposedValue value: Double) -> Double
    /// A plain answer: what VoiceOver reads for `value`.
    func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String?
    /// A notification: the value changed.
    func slider(_ slider: Slider, didChange change: SliderChange)
}

extension SliderDelegate {
    public func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool { delegateDefault(true) }
    public func slider(_ slider: Slider, proposedValue value: Double) -> Double { delegateDefault(value) }
    public func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String? { delegateDefault(nil) }
    public func slider(_ slider: Slider, didChange change: SliderChange) { delegateDefault() }
}
