import AuditCore

/// What one change of a slider's value was: recorded with `didChange` as a JSON object.
public struct SliderChange: Codable, Sendable, Equatable {
    /// Why the value changed.
    public enum Reason: String, Codable, Sendable { case drag, reset }

    public var from, to: Double
    public var reason: Reason
}

/// The slider's delegate: one callback of each answer kind, and a notification with a struct.
public protocol SliderDelegate: AnyObject {
    /// A veto: `false` refuses a drag to `value` (the slider's current value is `slider.value`).
    func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool
    /// An override: the value the slider takes for a proposed `value` (snapping, capping).
    func slider(_ slider: Slider, proposedValue value: Double) -> Double
    /// A plain, optional answer: what VoiceOver reads for `value`. Asked whenever the app reads
    /// `slider.accessibilityLabel`, which is outside any input.
    func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String?
    /// A notification: the value changed.
    func slider(_ slider: Slider, didChange change: SliderChange)
}

// Each default is the one its callback declares (`unimplemented` also marks "not implemented").
extension SliderDelegate {
    public func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool {
        Slider.callbacks.shouldBeginTracking.unimplemented(value)
    }
    public func slider(_ slider: Slider, proposedValue value: Double) -> Double {
        Slider.callbacks.proposedValue.unimplemented(value)
    }
    public func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String? {
        Slider.callbacks.accessibilityLabel.unimplemented(value)
    }
    public func slider(_ slider: Slider, didChange change: SliderChange) {
        Slider.callbacks.didChange.unimplemented(change)
    }
}

/// Every callback of `SliderDelegate`, declared once: how it is recorded, its answer and default,
/// and how it is called.
public struct SliderCallbacks: CallbackTable {
    public let shouldBeginTracking = Callback<any SliderDelegate, Slider, Double, Bool>(
        "slider(_:shouldBeginTrackingTo:)", arguments: .one("value", .double), answer: .veto(),
        invoke: { $0.slider($1, shouldBeginTrackingTo: $2) })
    public let proposedValue = Callback<any SliderDelegate, Slider, Double, Double>(
        "slider(_:proposedValue:)", arguments: .one("value", .double),
        answer: .override(proposal: { $0 }, coding: .double, described: "the proposed value"),
        invoke: { $0.slider($1, proposedValue: $2) })
    public let accessibilityLabel = Callback<any SliderDelegate, Slider, Double, String?>(
        "slider(_:accessibilityLabelFor:)", arguments: .one("value", .double),
        answer: .value(coding: .optional(.string), default: nil), invoke: { $0.slider($1, accessibilityLabelFor: $2) })
    public let didChange = Callback<any SliderDelegate, Slider, SliderChange, Void>(
        "slider(_:didChange:)", arguments: .one("change", .codable), answer: .void,
        invoke: { $0.slider($1, didChange: $2) })
}
