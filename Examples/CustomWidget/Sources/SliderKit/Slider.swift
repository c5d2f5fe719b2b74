import AuditCore

struct WeakSliderDelegate: WeakDelegateReference {
    weak var delegate: (any SliderDelegate)?
}

/// A horizontal slider whose `value` is in 0...1. Dragging asks the delegate whether to begin
/// tracking, lets it replace the proposed value, then asks for the accessibility label and
/// reports the change; `reset()` moves to 0 without asking.
public final class Slider: View {
    private var slot = DelegateSlot<WeakSliderDelegate>()  // the app's delegate (weak) and the proxy
    public var delegate: (any SliderDelegate)? {
        get { slot.delegate }
        set { slot.delegate = newValue }
    }
    public private(set) var value: Double
    public private(set) var accessibilityLabel: String?

    public init(identifier: String, frame: Rect = .zero, value: Double = 0.5) {
        precondition((0...1).contains(value), "a slider's value is in 0...1")
        self.value = value
        super.init(identifier: identifier, frame: frame)
    }

    public override var widgetKind: String { "Slider" }
    public override func auditLinkDidChange(_ link: AuditLink?) { slot.audit(link, with: SliderProxy.init(link:)) }
    public override func adoptDelegate(_ candidate: AnyObject) {
        if let delegate = candidate as? any SliderDelegate { self.delegate = delegate }
    }

    /// The user drags the thumb to `proposed`.
    public func drag(to proposed: Double) {
        performInput(Self.drag, proposed) {
            if SliderCallbacks.shouldBeginTracking.ask(slot.callee, self, proposed) {
                let answer = SliderCallbacks.proposedValue.ask(slot.callee, self, proposed)
                move(to: answer.isFinite ? min(1, max(0, answer)) : proposed, reason: .drag)
            }
            return .double(value)
        }
    }

    /// The user double-taps the thumb: the value goes back to 0.
    public func reset() {
        performInput(Self.resetInput, ()) {
            move(to: 0, reason: .reset)
            return .double(value)
        }
    }

    private func move(to newValue: Double, reason: SliderChange.Reason) {
        accessibilityLabel = SliderCallbacks.accessibilityLabel.ask(slot.callee, self, newValue)
        guard newValue != value else { return }
        let change = SliderChange(from: value, to: newValue, reason: reason)
        value = newValue
        SliderCallbacks.didChange.ask(slot.callee, self, change)
    }
}

extension Slider {
    public static let drag = Input<Slider, Double>(
        "drag", of: "Slider", arguments: .one("value", .double),
        check: { _, value in (0...1).contains(value) ? nil : "value \(value) is outside 0...1" },
        perform: { slider, value in slider.drag(to: value) })
    public static let resetInput = Input<Slider, Void>(
        "reset", of: "Slider", arguments: .none, perform: { slider, _ in slider.reset() })

    /// The slider's registration: `{"kind": "Slider", "id": "volume", "value": 0.3}` in a scenario.
    public static let kind = WidgetKind(
        "Slider", properties: SliderProperties.self,
        make: { id, frame, properties in Slider(identifier: id, frame: frame, value: properties.value) },
        describe: { SliderProperties(value: $0.value) }, inputs: [Slider.drag, Slider.resetInput],
        callbacks: SliderCallbacks.invokers)
}

/// A slider's scenario properties.
public struct SliderProperties: Codable, Sendable {
    public var value: Double
}
