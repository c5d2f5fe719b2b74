import AuditCore

/// A delegate that drives other widgets from its callbacks: when a segment of a segmented control
/// is selected, it selects, in code, the next segment of the next segmented control among the
/// control's siblings. A row of N controls makes a chain of inputs N deep, each inside the one
/// before: what the nesting limit (`InputNesting`) is about. `my-auditctl` registers it as `linked`.
public final class LinkedControlsDelegate: SegmentedControlDelegate {
    public init() {}

    public func segmentedControl(
        _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
    ) {
        guard let siblings = segmentedControl.superview?.subviews,
            let position = siblings.firstIndex(where: { $0 === segmentedControl })
        else { return }
        guard let next = siblings[(position + 1)...].lazy.compactMap({ $0 as? SegmentedControl }).first,
            next.numberOfSegments > 0
        else { return }
        // The segment after the one selected, so the selection always changes.
        next.setSelectedSegmentIndex((next.selectedSegmentIndex + 1) % next.numberOfSegments, notify: true)
    }
}
