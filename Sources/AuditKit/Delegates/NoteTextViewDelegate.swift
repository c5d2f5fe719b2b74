import AuditModel
import AuditStorage

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
        NoteTextView.noteCallbacks.didReachCharacterLimit.unimplemented(limit)
    }
}

/// The callback table of `NoteTextViewDelegate`'s own callbacks. The inherited ones are declared
/// once, in `TextViewCallbacks`, and recorded under `TextViewDelegate`.
public struct NoteTextViewCallbacks: CallbackTable {
    public static let protocolName = "NoteTextViewDelegate"

    public let didReachCharacterLimit = Callback<any NoteTextViewDelegate, NoteTextView, Int, Void>(
        "noteTextView(_:didReachCharacterLimit:)", arguments: .one("limit", .int), answer: .void,
        invoke: { $0.noteTextView($1, didReachCharacterLimit: $2) })
}
