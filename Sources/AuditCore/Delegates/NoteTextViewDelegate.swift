/// The delegate of a `NoteTextView`: every `TextViewDelegate` callback, and one of its own. Every
/// method is optional; the default is marked so the audit records "not implemented, default used".
public protocol NoteTextViewDelegate: TextViewDelegate {
    /// A change brought the note's length in UTF-16 units (see `NoteTextView.characterLimit`) from
    /// below `limit` up to it. Fires after
    /// `textViewDidChange(_:)` and before `textViewDidChangeSelection(_:)`, once per crossing.
    func noteTextView(_ noteTextView: NoteTextView, didReachCharacterLimit limit: Int)
}

extension NoteTextViewDelegate {
    public func noteTextView(_ noteTextView: NoteTextView, didReachCharacterLimit limit: Int) {
        delegateDefault()
    }
}

/// The callback table of `NoteTextViewDelegate`'s own callbacks. The inherited ones are declared
/// once, in `TextViewCallbacks`, and recorded under `TextViewDelegate`.
public enum NoteTextViewCallbacks {
    public static let protocolName = "NoteTextViewDelegate"

    public static let didReachCharacterLimit = Callback<any NoteTextViewDelegate, NoteTextView, Int, Void>(
        protocolName, "noteTextView(_:didReachCharacterLimit:)", arguments: .one("limit", .int), answer: .void,
        invoke: { $0.noteTextView($1, didReachCharacterLimit: $2) })

    /// Every callback of the protocol, invocable by name (replay) and listed by `auditctl callbacks`.
    public static let invokers: [CallbackInvoker] = [didReachCharacterLimit.invoker]
    public static let all = invokers.map(\.descriptor)
}

/// Forwards `NoteTextViewDelegate`, inherited callbacks included, to the note's app delegate and
/// records each call: the inherited ones through `TextViewCallbacks`, the new one through
/// `NoteTextViewCallbacks`. An app delegate that is only a `TextViewDelegate` gets the new
/// callback's default, recorded as not implemented. A secure note's offered text is recorded as a
/// keyed hash (by the inherited methods).
final class NoteTextViewDelegateProxy: TextViewDelegateProxy, NoteTextViewDelegate {
    func noteTextView(_ noteTextView: NoteTextView, didReachCharacterLimit limit: Int) {
        forward(
            NoteTextViewCallbacks.didReachCharacterLimit, to: noteTextView.delegate as? any NoteTextViewDelegate,
            noteTextView, limit)
    }
}
