import AuditCore
import Foundation

/// The example checkout screen's delegate — one object for every widget of the screen, like a
/// view controller — in two versions.
///
/// `v1`:
/// - shipping/payment: invoice only with standard shipping (a veto otherwise); choosing store pickup
///   (or express with invoice) switches payment to card in code, a nested selection;
/// - items table: the gift-card row (section 1) cannot be selected (will-select answers nil);
/// - coupon text view: codes are uppercase letters and digits, anything else is refused;
/// - note: reaching the character limit is noted;
/// - terms scroll view: a flick comes to rest on a multiple of 100 points;
/// - gestures: the back pan may run together with the items' reorder long press, and a double tap
///   on pay means quick pay.
///
/// `v2` changes one behaviour per delegate protocol — the regressions the demo finds: store pickup is
/// vetoed; the gift card row can be selected; lowercase coupon letters are accepted; the
/// character-limit callback is no longer implemented; flicks are not snapped; quick pay is gone
/// (its recognizer may not begin) and the back pan no longer runs with the reorder long press.
final class CheckoutDelegate: SegmentedControlDelegate, NoteTextViewDelegate, TableViewDelegate,
    GestureRecognizerDelegate
{
    enum Version {
        case v1
        case v2
    }

    static let standard = 0
    static let pickup = 2
    static let card = 0
    static let invoice = 2

    let version: Version
    private(set) var notes: [String] = []

    init(version: Version) {
        self.version = version
    }

    // MARK: Segmented controls

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

    private func sibling(_ identifier: String, of control: View) -> SegmentedControl? {
        control.superview?.subviews.first { $0.identifier == identifier } as? SegmentedControl
    }

    // MARK: Table

    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        version == .v1 && indexPath.section == 1 ? nil : indexPath
    }

    // MARK: Text

    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        guard textView.identifier == "coupon" else { return true }
        return text.allSatisfy { $0.isNumber || $0.isUppercase || (version == .v2 && $0.isLowercase) }
    }

    func noteTextView(_ noteTextView: NoteTextView, didReachCharacterLimit limit: Int) {
        if version == .v1 {
            notes.append("\(noteTextView.path) is full at \(limit) characters")
        } else {
            NoteTextView.noteCallbacks.didReachCharacterLimit.unimplemented(limit)  // v2 dropped it: as not implemented
        }
    }

    // MARK: Scrolling

    func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        guard version == .v1 else { return }
        targetContentOffset.pointee.y = (targetContentOffset.pointee.y / 100).rounded() * 100
    }

    // MARK: Gestures

    func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
        version == .v1 || gestureRecognizer.identifier != "quickPay"
    }

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        version == .v1
            && Set([gestureRecognizer.identifier, otherGestureRecognizer.identifier]) == ["back", "reorder"]
    }
}
