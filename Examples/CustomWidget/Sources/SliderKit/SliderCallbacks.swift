import AuditCore

/// Every callback of `SliderDelegate`, declared once: what the proxy records, the slider asks and
/// the replayer invokes by name.
public enum SliderCallbacks {
    public static let shouldBeginTracking = Callback<any SliderDelegate, Slider, Double, Bool>(
        "SliderDelegate", "slider(_:shouldBeginTrackingTo:)", arguments: .one("value", .double), answer: .veto(),
        invoke: { $0.slider($1, shouldBeginTrackingTo: $2) })
    public static let proposedValue = Callback<any SliderDelegate, Slider, Double, Double>(
        "SliderDelegate", "slider(_:proposedValue:)", arguments: .one("value", .double),
        answer: .override(proposal: { $0 }, coding: .double, described: "the proposed value"),
        invoke: { $0.slider($1, proposedValue: $2) })
    public static let accessibilityLabel = Callback<any SliderDelegate, Slider, Double, String?>(
        "SliderDelegate", "slider(_:accessibilityLabelFor:)", arguments: .one("value", .double),
        answer: .value(coding: .optional(.string), default: nil), invoke: { $0.slider($1, accessibilityLabelFor: $2) })
    public static let didChange = Callback<any SliderDelegate, Slider, SliderChange, Void>(
        "SliderDelegate", "slider(_:didChange:)", arguments: .one("change", .codable), answer: .void,
        invoke: { $0.slider($1, didChange: $2) })

    /// For `WidgetKind`: the callbacks the replayer can invoke by name.
    public static let invokers = [
        shouldBeginTracking.invoker, proposedValue.invoker, accessibilityLabel.invoker, didChange.invoker,
    ]
}

/// The forwarding proxy the slider puts in its delegate slot while audited: one line per callback.
final class SliderProxy: DelegateProxy, SliderDelegate {
    func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool {
        forward(SliderCallbacks.shouldBeginTracking, to: slider.delegate, slider, value)
    }
    func slider(_ slider: Slider, proposedValue value: Double) -> Double {
        forward(SliderCallbacks.proposedValue, to: slider.delegate, slider, value)
    }
    func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String? {
        forward(SliderCallbacks.accessibilityLabel, to: slider.delegate, slider, value)
    }
    func slider(_ slider: Slider, didChange change: SliderChange) {
        forward(SliderCallbacks.didChange, to: slider.delegate, slider, change)
    }
}
