import AuditCore

/// A horizontal slider whose `value` is in 0...1. Dragging asks the delegate whether to begin
/// tracking, lets it replace the proposed value, asks for the label VoiceOver announces, and
/// reports the change; `reset()` moves to 0 without asking. Reading `accessibilityLabel` asks the
/// delegate too: outside any input, whenever the app reads it.
public final class Slider: View {
    public static let callbacks = SliderCallbacks()
    public weak var delegate: (any SliderDelegate)?
    public private(set) var value: Double
    /// What VoiceOver announced at the last move.
    public private(set) var announcement: String?

    public init(identifier: String, frame: Rect = .zero, value: Double = 0.5) {
        self.value = value
        super.init(identifier: identifier, frame: frame)
    }

    /// What VoiceOver reads for the current value, asked of the delegate at each read.
    public var accessibilityLabel: String? { Self.callbacks.accessibilityLabel.ask(delegate, self, value) }

    /// The user drags the thumb to `proposed` (refused outside 0...1: see `Slider.drag`).
    public func drag(to proposed: Double) {
        performInput(Self.drag, proposed) {
            guard Self.callbacks.shouldBeginTracking.ask(delegate, self, proposed) else { return .double(value) }
            let answer = Self.callbacks.proposedValue.ask(delegate, self, proposed)
            return move(to: answer.isFinite ? min(1, max(0, answer)) : proposed, reason: .drag)
        }
    }

    /// The user double-taps the thumb: the value goes back to 0.
    public func reset() { performInput(Self.resetInput, ()) { move(to: 0, reason: .reset) } }

    /// Moves to `newValue`, tells the delegate if it changed, and returns the value as recorded.
    private func move(to newValue: Double, reason: SliderChange.Reason) -> AuditValue {
        announcement = Self.callbacks.accessibilityLabel.ask(delegate, self, newValue)
        if newValue != value {
            let change = SliderChange(from: value, to: newValue, reason: reason)
            value = newValue
            Self.callbacks.didChange.ask(delegate, self, change)
        }
        return .double(value)
    }
}

extension Slider {
    public static let drag: Input<Slider, Double> = Input(
        "drag", of: "Slider", arguments: .one("value", .double),
        check: { _, value in (0...1).contains(value) ? nil : "must be in 0...1, not \(value)" },
        perform: { slider, value in slider.drag(to: value) })
    public static let resetInput: Input<Slider, Void> = Input(
        "reset", of: "Slider", arguments: .none, perform: { slider, _ in slider.reset() })

    /// The slider's registration: `{"kind": "Slider", "id": "volume", "value": 0.3}` in a scenario.
    public static let kind: WidgetKind = WidgetKind(
        "Slider", properties: SliderProperties.self,
        make: { id, frame, properties in Slider(identifier: id, frame: frame, value: properties.value) },
        describe: { SliderProperties(value: $0.value) },
        check: { (0...1).contains($0.value) ? nil : PropertyProblem("value", "must be in 0...1") },
        delegate: \.delegate, callbacks: callbacks, inputs: [drag, resetInput])
}

/// A slider's scenario properties.
public struct SliderProperties: Codable, Sendable {
    public var value: Double
}
