import AuditModel
import AuditStorage

/// The delegate of a `SegmentedControl`. Both methods are optional: the extension below supplies
/// UIKit-style defaults and marks them, so the audit records "not implemented, default used".
public protocol SegmentedControlDelegate: AnyObject {
    /// Return false to veto: the control reverts to the previous segment.
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool
    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool)
}

extension SegmentedControlDelegate {
    public func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        SegmentedControl.callbacks.shouldSelect.unimplemented(index)
    }

    public func segmentedControl(
        _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
    ) {
        SegmentedControl.callbacks.didSelect.unimplemented((index, userInteracted))
    }
}

/// The callback table of `SegmentedControlDelegate`: each callback declared once.
public struct SegmentedControlCallbacks: CallbackTable {
    public static let protocolName = "SegmentedControlDelegate"

    public let shouldSelect = Callback<any SegmentedControlDelegate, SegmentedControl, Int, Bool>(
        "segmentedControl(_:shouldSelectSegmentAt:)", arguments: .one("index", .int), answer: .veto(),
        invoke: { $0.segmentedControl($1, shouldSelectSegmentAt: $2) })

    public let didSelect = Callback<any SegmentedControlDelegate, SegmentedControl, (Int, Bool), Void>(
        "segmentedControl(_:didSelectSegmentAt:userInteracted:)",
        arguments: .two("index", .int, "userInteracted", .bool), answer: .void,
        invoke: { $0.segmentedControl($1, didSelectSegmentAt: $2.0, userInteracted: $2.1) })
}
