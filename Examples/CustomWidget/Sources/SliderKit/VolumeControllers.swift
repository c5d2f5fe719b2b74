import AuditCore

/// Every widget kind the slider's tools know: the package's own and the slider, which `explore`
/// drives with `Slider.generators`.
public let catalog = WidgetCatalog.builtIn.adding(Slider.kind.exploring(Slider.generators))

/// A volume control's delegate: refuses jumps of more than half the range, snaps to tenths,
/// labels the value as a percentage ("muted" at 0), and keeps the history of changes.
public final class VolumeControllerV1: SliderDelegate {
    public private(set) var changes: [SliderChange] = []

    public init() {}

    public func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool {
        abs(value - slider.value) <= 0.5  // reads the widget's state
    }
    public func slider(_ slider: Slider, proposedValue value: Double) -> Double { (value * 10).rounded() / 10 }
    public func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String? {
        value == 0 ? "muted" : "\(Int((value * 100).rounded()))%"
    }
    public func slider(_ slider: Slider, didChange change: SliderChange) { changes.append(change) }
}

/// The same control after a "refactoring", with two planted behaviour changes: it snaps to
/// quarters instead of tenths, and has no accessibility label at 0.
public final class VolumeControllerV2: SliderDelegate {
    public private(set) var changes: [SliderChange] = []

    public init() {}

    public func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool {
        abs(value - slider.value) <= 0.5
    }
    public func slider(_ slider: Slider, proposedValue value: Double) -> Double { (value * 4).rounded() / 4 }
    public func slider(_ slider: Slider, accessibilityLabelFor value: Double) -> String? {
        value == 0 ? nil : "\(Int((value * 100).rounded()))%"
    }
    public func slider(_ slider: Slider, didChange change: SliderChange) { changes.append(change) }
}

extension DelegateRegistry {
    /// The volume controls, by name: what `slider-audit --delegate` and the replayer look up.
    public static let volume: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("volume.v1", summary: "snaps to tenths, labels 0 as muted") { VolumeControllerV1() }
        registry.register("volume.v2", summary: "snaps to quarters, no label at 0 (a regression)") {
            VolumeControllerV2()
        }
        return registry
    }()
}
