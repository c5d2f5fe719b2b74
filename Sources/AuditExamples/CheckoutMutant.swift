import AuditCore
import Foundation

/// A mutant of the example's `checkout.v1`: the shipped delegate with one small, plausible change,
/// for the mutation check of `explore` (`MutationCheckTests`) and the mutant benchmark
/// (`auditbench --only mutants`). It implements exactly the callbacks `checkout.v1` does (so an
/// unchanged one audits alike) and hands each to a `checkout.v1` it holds, except where its
/// mutation says otherwise. Package access: a test hook, not public API.
package final class CheckoutMutant: SegmentedControlDelegate, NoteTextViewDelegate, TableViewDelegate,
    GestureRecognizerDelegate
{
    package enum Mutation: String, CaseIterable, Sendable {
        /// Invoice is allowed with any shipping (a veto flipped).
        case invoiceAlwaysAllowed
        /// Store pickup is refused (`checkout.v2`'s change).
        case pickupVetoed
        /// Express shipping is refused.
        case expressVetoed
        /// Choosing pickup no longer switches payment to card (a side effect skipped).
        case noPaymentSwitch
        /// Pickup is handled as express: payment switches only from invoice (reacts to another segment).
        case pickupTreatedAsExpress
        /// The gift-card row can be selected (`checkout.v2`'s change).
        case giftCardSelectable
        /// The gift-card row selects the first row instead (another override).
        case giftCardRedirected
        /// The first row cannot be selected either.
        case firstRowVetoed
        /// Lowercase coupon letters are accepted (`checkout.v2`'s change).
        case lowercaseCoupons
        /// Digits are refused in coupons.
        case couponDigitsRefused
        /// The note refuses line breaks.
        case noteRefusesNewlines
        /// The character-limit callback is no longer implemented (`checkout.v2`'s change).
        case characterLimitDropped
        /// Flicks snap to 50 points, not 100.
        case snapToFifty
        /// Flicks are not snapped.
        case noSnap
        /// Quick pay's recognizer may not begin.
        case quickPayDisabled
        /// The back pan may not begin.
        case backPanDisabled
        /// No two recognizers run together, not even the back pan and the reorder long press.
        case neverSimultaneous
        /// Every two recognizers may run together.
        case alwaysSimultaneous
        /// Equivalent: the note is told twice of the character limit (notes are not audited).
        case limitNotedTwice
        /// Equivalent: allowed rows are answered with an equal, newly made index path.
        case rowCopied

        /// Whether the mutant audits like `checkout.v1` on every input sequence.
        package var isEquivalent: Bool { self == .limitNotedTwice || self == .rowCopied }

        /// The delegate name the mutant is registered under.
        package var delegateName: String { "mutant." + rawValue }
    }

    package let mutation: Mutation
    private let original = CheckoutDelegate(version: .v1)

    package init(_ mutation: Mutation) {
        self.mutation = mutation
    }

    /// `checkout.v1` and every mutant, by `Mutation.delegateName`.
    package static let registry: DelegateRegistry = {
        var registry = DelegateRegistry.examples
        for mutation in Mutation.allCases {
            registry.register(mutation.delegateName, summary: mutation.rawValue) { CheckoutMutant(mutation) }
        }
        return registry
    }()

    package func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        switch (mutation, segmentedControl.identifier, index) {
        case (.invoiceAlwaysAllowed, "payment", 2): true
        case (.pickupVetoed, "shipping", 2), (.expressVetoed, "shipping", 1): false
        default: original.segmentedControl(segmentedControl, shouldSelectSegmentAt: index)
        }
    }

    package func segmentedControl(
        _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
    ) {
        switch (mutation, segmentedControl.identifier, index) {
        case (.noPaymentSwitch, "shipping", 2): return
        case (.pickupTreatedAsExpress, "shipping", 2):
            original.segmentedControl(segmentedControl, didSelectSegmentAt: 1, userInteracted: userInteracted)
        default: original.segmentedControl(segmentedControl, didSelectSegmentAt: index, userInteracted: userInteracted)
        }
    }

    package func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        let answer = original.tableView(tableView, willSelectRowAt: indexPath)
        switch mutation {
        case .giftCardSelectable: return indexPath
        case .giftCardRedirected where answer == nil: return IndexPath(row: 0, section: 0)
        case .firstRowVetoed where indexPath == IndexPath(row: 0, section: 0): return nil
        case .rowCopied: return answer.map { IndexPath(row: $0.row, section: $0.section) }
        default: return answer
        }
    }

    package func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String)
        -> Bool
    {
        let answer = original.textView(textView, shouldChangeTextIn: range, replacementText: text)
        switch (mutation, textView.identifier) {
        case (.lowercaseCoupons, "coupon"):
            return answer || text.allSatisfy { $0.isNumber || $0.isUppercase || $0.isLowercase }
        case (.couponDigitsRefused, "coupon"): return answer && !text.contains { $0.isNumber }
        case (.noteRefusesNewlines, "note"): return answer && !text.contains("\n")
        default: return answer
        }
    }

    package func noteTextView(_ noteTextView: NoteTextView, didReachCharacterLimit limit: Int) {
        switch mutation {
        case .characterLimitDropped: NoteTextView.noteCallbacks.didReachCharacterLimit.unimplemented(limit)
        case .limitNotedTwice:
            original.noteTextView(noteTextView, didReachCharacterLimit: limit)
            original.noteTextView(noteTextView, didReachCharacterLimit: limit)
        default: original.noteTextView(noteTextView, didReachCharacterLimit: limit)
        }
    }

    package func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        switch mutation {
        case .snapToFifty: targetContentOffset.pointee.y = (targetContentOffset.pointee.y / 50).rounded() * 50
        case .noSnap: return
        default:
            original.scrollViewWillEndDragging(
                scrollView, withVelocity: velocity, targetContentOffset: targetContentOffset)
        }
    }

    package func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
        switch (mutation, gestureRecognizer.identifier) {
        case (.quickPayDisabled, "quickPay"), (.backPanDisabled, "back"): false
        default: original.gestureRecognizerShouldBegin(gestureRecognizer)
        }
    }

    package func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        switch mutation {
        case .neverSimultaneous: false
        case .alwaysSimultaneous: true
        default:
            original.gestureRecognizer(gestureRecognizer, shouldRecognizeSimultaneouslyWith: otherGestureRecognizer)
        }
    }
}
