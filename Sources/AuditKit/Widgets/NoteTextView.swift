import AuditModel
import AuditStorage

/// A text view for notes: it enforces a `characterLimit`, in UTF-16 code units, and tells its
/// delegate when the text reaches it.
///
/// Written the way iOS developers refine a widget's delegate by hand: the text view asks a private
/// relay the view owns (Swift has no private conformance, so the `TextViewDelegate` methods stay off
/// this class's API); the relay runs the note's own logic around each `TextViewDelegate` callback
/// and passes every one on to the app's `delegate`, exactly once. `delegate` takes any
/// `TextViewDelegate`; only a `NoteTextViewDelegate` hears the new callback.
///
/// Who wins:
/// - `textView(_:shouldChangeTextIn:replacementText:)`: the limit, first. A change that would leave
///   more than `characterLimit` UTF-16 units, and more than there are now, is refused and the app's
///   delegate is not asked: it could not allow the change anyway. Any other change is the app's to
///   decide; changes that add no units always reach it, so a text over the limit can be cut.
/// - `textViewDidChange(_:)`: the app hears it first. Then, if the change brought the length from
///   below the limit to the limit, `noteTextView(_:didReachCharacterLimit:)` fires, before
///   `textViewDidChangeSelection(_:)`.
/// - Every other callback: passed on unchanged; the app's answer is the view's answer.
///
/// The limit counts UTF-16 code units, the unit of ranges and of `NSString.length`, which is what
/// iOS code limits by (`textView.text.utf16.count`, `(text as NSString).length`): `"请"` and `"é"`
/// count 1, `"e\u{301}"` (a combining accent) 2, `"👍"` 2, `"👍🏽"` 4, the flag `"🇫🇷"` 4 — not the
/// `Character`s a reader sees. A skin-tone modifier typed after `"👍"` adds 2 units and no
/// `Character`, so it may reach the limit. The check is O(1) however long the text.
///
/// Under audit what the relay asks the app's delegate is recorded, so what is recorded is exactly
/// what the app's delegate sees: the inherited callbacks as `TextViewDelegate`, the new one as `NoteTextViewDelegate`, and a
/// change refused by the limit only as the input that proposed it.
open class NoteTextView: TextView {
    /// The most UTF-16 code units a change may leave (the text's `utf16.count`, not its
    /// `Character` count); nil for no limit. Lowering it below the current length cuts nothing: it
    /// only refuses changes that make the text longer.
    public var characterLimit: Int?

    /// The callbacks of `NoteTextViewDelegate`'s own (the inherited ones are `TextView.callbacks`).
    public static let noteCallbacks = NoteTextViewCallbacks()
    /// Owned here; `TextView` holds it weakly, so view and relay make no cycle.
    private lazy var noteRelay = Relay(note: self)
    /// The length in UTF-16 units after the last change, to tell when a change reaches the limit.
    private var lengthAfterLastChange: Int

    public init(identifier: String, frame: Rect = .zero, text: String = "", characterLimit: Int? = nil) {
        precondition((characterLimit ?? 0) >= 0, "a character limit is not negative")
        self.characterLimit = characterLimit
        lengthAfterLastChange = text.utf16.count
        super.init(identifier: identifier, frame: frame, text: text)
        relay = noteRelay
    }

    open override var widgetKind: String { "NoteTextView" }

    /// Whom the relay tells about the limit: the app's delegate if it adopts
    /// `NoteTextViewDelegate` (a plain `TextViewDelegate` gets the default). Cast at each call,
    /// which comes once per reaching the limit.
    private var noteDelegate: (any NoteTextViewDelegate)? { delegate as? any NoteTextViewDelegate }

    /// Whether the limit lets the change through: it may not make the text longer than the limit.
    /// (Characters merging across the range's ends change no UTF-16 length.)
    private func fitsLimit(_ range: TextRange, _ replacement: String) -> Bool {
        guard let characterLimit else { return true }
        let length = utf16Length - range.length + replacement.utf16.count
        return length <= characterLimit || length <= utf16Length
    }

    private func reportLimitIfReached() {
        let (before, length) = (lengthAfterLastChange, utf16Length)
        lengthAfterLastChange = length
        if let characterLimit, before < characterLimit, length >= characterLimit {
            Self.noteCallbacks.didReachCharacterLimit.ask(noteDelegate, self, characterLimit)
        }
    }

    /// Sits in `TextView`'s delegate slot: the note's logic around each callback, then the app's.
    private final class Relay: TextViewDelegate {
        unowned let note: NoteTextView

        init(note: NoteTextView) {
            self.note = note
        }

        func textViewShouldBeginEditing(_ textView: TextView) -> Bool {
            TextView.callbacks.shouldBeginEditing.ask(note.delegate, note, ())
        }

        func textViewDidBeginEditing(_ textView: TextView) {
            TextView.callbacks.didBeginEditing.ask(note.delegate, note, ())
        }

        func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
            guard note.fitsLimit(range, text) else { return false }
            return TextView.callbacks.shouldChangeText(recordedFor: note).ask(note.delegate, note, (range, text))
        }

        func textViewDidChange(_ textView: TextView) {
            TextView.callbacks.didChange.ask(note.delegate, note, ())
            note.reportLimitIfReached()
        }

        func textViewDidChangeSelection(_ textView: TextView) {
            TextView.callbacks.didChangeSelection.ask(note.delegate, note, ())
        }

        func textViewShouldEndEditing(_ textView: TextView) -> Bool {
            TextView.callbacks.shouldEndEditing.ask(note.delegate, note, ())
        }

        func textViewDidEndEditing(_ textView: TextView) {
            TextView.callbacks.didEndEditing.ask(note.delegate, note, ())
        }
    }
}
