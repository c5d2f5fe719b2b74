import AuditModel
import AuditStorage

/// A row of segments, one of which is selected; its delegate may veto a selection.
///
/// Selecting (by a tap or in code) sets the new index first, then asks
/// `segmentedControl(_:shouldSelectSegmentAt:)`; a `false` answer reverts to the previous index and
/// no did-callback fires. Otherwise `segmentedControl(_:didSelectSegmentAt:userInteracted:)` fires
/// (`userInteracted` true for taps), unless the selection was made in code with `notify: false`.
/// Tapping the segment that is already selected does nothing, as in UIKit, and so does selecting it
/// in code: UIKit sends no action when `selectedSegmentIndex` is set (a programmatic change is not a
/// control event) and setting the same index changes nothing, so nothing here is asked or notified
/// either. That also ends the cascade of two delegates that each select the other's index.
open class SegmentedControl: View {
    public static let noSegment = -1

    public private(set) var segments: [String]
    public internal(set) var selectedSegmentIndex: Int

    /// The app's delegate, held weakly, and asked at each callback: assigning it while the control
    /// is audited retargets the audit at once.
    public weak var delegate: (any SegmentedControlDelegate)?

    /// The callbacks of `SegmentedControlDelegate`, each declared once.
    public static let callbacks = SegmentedControlCallbacks()

    public init(identifier: String, frame: Rect = .zero, segments: [String], selectedSegmentIndex: Int = noSegment) {
        precondition(selectedSegmentIndex == Self.noSegment || segments.indices.contains(selectedSegmentIndex))
        self.segments = segments
        self.selectedSegmentIndex = selectedSegmentIndex
        super.init(identifier: identifier, frame: frame)
    }

    open override var widgetKind: String { "SegmentedControl" }

    public var numberOfSegments: Int { segments.count }

    /// The user taps segment `index`.
    public func tapSegment(_ index: Int) {
        performInput(Inputs.tap, index) {
            if index != selectedSegmentIndex { select(index, userInteracted: true, notify: true) }
            return .object(["selected": .int(selectedSegmentIndex)])
        }
    }

    /// Selects segment `index` in code: the delegate may still veto it; `notify: false` suppresses
    /// the did-callback. `noSegment` clears the selection without asking; the index already
    /// selected asks and notifies nothing (the input is still recorded).
    public func setSelectedSegmentIndex(_ index: Int, notify: Bool) {
        performInput(Inputs.select, (index, notify)) {
            if index == Self.noSegment {
                selectedSegmentIndex = index
            } else if index != selectedSegmentIndex {
                select(index, userInteracted: false, notify: notify)
            }
            return .object(["selected": .int(selectedSegmentIndex)])
        }
    }

    private func select(_ index: Int, userInteracted: Bool, notify: Bool) {
        let previous = selectedSegmentIndex
        selectedSegmentIndex = index
        // The delegate is read at each call, audited or not: one reassigned from inside a callback
        // hears the rest either way.
        guard SegmentedControl.callbacks.shouldSelect.ask(delegate, self, index) else {
            selectedSegmentIndex = previous
            return
        }
        if notify { SegmentedControl.callbacks.didSelect.ask(delegate, self, (index, userInteracted)) }
    }

    /// The inputs that drive a segmented control, as recorded.
    public enum Inputs {
        public static let tap: Input<SegmentedControl, Int> = Input(
            "tapSegment", of: "SegmentedControl", arguments: .one("segment", .int),
            checkAsBuilt: { control, index in
                control.segments.indices.contains(index)
                    ? nil : "segment \(index) is out of range 0..<\(control.numberOfSegments)"
            }, perform: { $0.tapSegment($1) })
        public static let select: Input<SegmentedControl, (Int, Bool)> = Input(
            "selectSegment", of: "SegmentedControl", arguments: .two("segment", .int, "notify", .bool),
            defaults: ["notify": .bool(true)],
            checkAsBuilt: { control, arguments in
                control.segments.indices.contains(arguments.0) || arguments.0 == SegmentedControl.noSegment
                    ? nil
                    : StepProblem(
                        field: "segment",
                        "segment \(arguments.0) is out of range 0..<\(control.numberOfSegments) (or -1 for none)")
            }, perform: { $0.setSelectedSegmentIndex($1.0, notify: $1.1) })
        public static let all: [any WidgetInput] = [tap, select]
    }
}
