/// The delegate of a `SegmentedControl`. Both methods are optional: the extension below supplies
/// UIKit-style defaults and marks them, so the audit records "not implemented, default used".
public protocol SegmentedControlDelegate: AnyObject {
    /// Return false to veto: the control reverts to the previous segment.
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool
    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool)
}

extension SegmentedControlDelegate {
    public func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        delegateDefault(SegmentedControlCallbacks.shouldSelect.defaultResult(index))
    }

    public func segmentedControl(
        _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
    ) {
        delegateDefault()
    }
}

/// The callback table of `SegmentedControlDelegate`: each callback declared once.
public enum SegmentedControlCallbacks {
    public static let protocolName = "SegmentedControlDelegate"

    public static let shouldSelect = Callback<any SegmentedControlDelegate, SegmentedControl, Int, Bool>(
        protocolName, "segmentedControl(_:shouldSelectSegmentAt:)", arguments: .one("index", .int), answer: .veto(),
        invoke: { $0.segmentedControl($1, shouldSelectSegmentAt: $2) })

    public static let didSelect = Callback<any SegmentedControlDelegate, SegmentedControl, (Int, Bool), Void>(
        protocolName, "segmentedControl(_:didSelectSegmentAt:userInteracted:)",
        arguments: .two("index", .int, "userInteracted", .bool), answer: .void,
        invoke: { $0.segmentedControl($1, didSelectSegmentAt: $2.0, userInteracted: $2.1) })

    /// Every callback of the protocol, invocable by name (replay) and listed by `auditctl callbacks`.
    public static let invokers: [CallbackInvoker] = [shouldSelect.invoker, didSelect.invoker]
    public static let all = invokers.map(\.descriptor)
}

/// Forwards `SegmentedControlDelegate` to the control's app delegate and records each call.
final class SegmentedControlDelegateProxy: DelegateProxy, SegmentedControlDelegate {
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        forward(SegmentedControlCallbacks.shouldSelect, to: segmentedControl.delegate, segmentedControl, index)
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        forward(
            SegmentedControlCallbacks.didSelect, to: segmentedControl.delegate, segmentedControl,
            (index, userInteracted))
    }
}
