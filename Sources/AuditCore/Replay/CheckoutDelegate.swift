/// The example checkout screen's delegate, in two versions.
///
/// `v1`: invoice payment is offered only with standard shipping (a veto otherwise); choosing store
/// pickup switches payment to card in code (a nested selection).
/// `v2`: the same, except store pickup is no longer offered: its selection is vetoed. That is the
/// regression the demo finds.
final class CheckoutDelegate: SegmentedControlDelegate {
    enum Version {
        case v1
        case v2
    }

    static let standard = 0
    static let pickup = 2
    static let card = 0
    static let invoice = 2

    let version: Version

    init(version: Version) {
        self.version = version
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        switch segmentedControl.identifier {
        case "payment" where index == Self.invoice:
            return sibling("shipping", of: segmentedControl)?.selectedSegmentIndex == Self.standard
        case "shipping" where index == Self.pickup:
            return version == .v1
        default:
            return true
        }
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        // Pickup is paid by card; express cannot be paid by invoice. Either switches payment in code.
        guard segmentedControl.identifier == "shipping", index != Self.standard,
            let payment = sibling("payment", of: segmentedControl), payment.selectedSegmentIndex != Self.card,
            index == Self.pickup || payment.selectedSegmentIndex == Self.invoice
        else { return }
        payment.setSelectedSegmentIndex(Self.card, notify: true)
    }

    private func sibling(_ identifier: String, of control: SegmentedControl) -> SegmentedControl? {
        control.superview?.subviews.first { $0.identifier == identifier } as? SegmentedControl
    }
}
