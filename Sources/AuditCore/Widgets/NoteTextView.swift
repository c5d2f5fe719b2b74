/// A text view for notes: it enforces a `characterLimit`, in UTF-16 code units, and tells its
/// delegate when the text reaches it.
///
/// Written the way iOS developers refine a widget's delegate by hand: it takes `TextView`'s delegate
/// slot for itself and keeps the app's delegate in a second weak slot, which `delegate` reads and
/// writes. The slot holds a private relay the view owns (Swift has no private conformance, so the
/// `TextViewDelegate` methods stay off this class's API); the relay runs the note's own logic around
/// each `TextViewDelegate` callback and passes every one on to the app's delegate, exactly once.
/// `delegate` takes any `TextViewDelegate`; only a `NoteTextViewDelegate` hears the new callback.
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
/// Under audit the proxy sits between the relay and the app's delegate, so what is recorded is
/// exactly what the app's delegate sees: the inherited callbacks as `TextViewDelegate`, the new one as `NoteTextViewDelegate`, and a
/// change refused by the limit only as the input that proposed it.
open class NoteTextView: TextView {
    /// The most UTF-16 code units a change may leave (the text's `utf16.count`, not its
    /// `Character` count); nil for no limit. Lowering it below the current length cuts nothing: it
    /// only refuses changes that make the text longer.
    public var characterLimit: Int?

    /// The app's delegate, held weakly in the note's own slot. `TextView`'s slot holds the relay.
    open override var delegate: (any TextViewDelegate)? {
        get { noteSlot.delegate }
        set { noteSlot.delegate = newValue }
    }
    /// The app's delegate and, while audited, the proxy between the relay and it.
    private var noteSlot = DelegateSlot<WeakTextViewDelegate>()
    /// The audit proxy when one is installed (for tests).
    var noteProxy: NoteTextViewDelegateProxy? { noteSlot.proxy as? NoteTextViewDelegateProxy }
    /// Owned here; `TextView` holds it weakly, so view and relay make no cycle.
    private lazy var relay = Relay(note: self)
    /// The length in UTF-16 units after the last change, to tell when a change reaches the limit.
    private var lengthAfterLastChange: Int

    public init(identifier: String, frame: Rect = .zero, text: String = "", characterLimit: Int? = nil) {
        precondition((characterLimit ?? 0) >= 0, "a character limit is not negative")
        self.characterLimit = characterLimit
        lengthAfterLastChange = text.utf16.count
        super.init(identifier: identifier, frame: frame, text: text)
        super.delegate = relay
    }

    open override var widgetKind: String { "NoteTextView" }

    /// Installs the proxy between the relay and the app's delegate. `super` is not called: its proxy
    /// would sit in front of the relay and record the note's own calls, not the app's.
    open override func auditLinkDidChange(_ link: AuditLink?) {
        noteSlot.audit(link, with: NoteTextViewDelegateProxy.init(link:))
    }

    /// Whom the relay passes inherited callbacks to, read at every call.
    private var callee: (any TextViewDelegate)? { noteSlot.callee }
    /// Whom the relay tells about the limit: the proxy, or the app's delegate if it adopts
    /// `NoteTextViewDelegate` (a plain `TextViewDelegate` gets the default). Cast at each call,
    /// which comes once per reaching the limit.
    private var noteCallee: (any NoteTextViewDelegate)? { noteSlot.callee as? any NoteTextViewDelegate }

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
            NoteTextViewCallbacks.didReachCharacterLimit.ask(noteCallee, self, characterLimit)
        }
    }

    /// Sits in `TextView`'s delegate slot: the note's logic around each callback, then the app's.
    private final class Relay: TextViewDelegate {
        unowned let note: NoteTextView

        init(note: NoteTextView) {
            self.note = note
        }

        func textViewShouldBeginEditing(_ textView: TextView) -> Bool {
            TextViewCallbacks.shouldBeginEditing.ask(note.callee, note, ())
        }

        func textViewDidBeginEditing(_ textView: TextView) {
            TextViewCallbacks.didBeginEditing.ask(note.callee, note, ())
        }

        func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
            guard note.fitsLimit(range, text) else { return false }
            return TextViewCallbacks.shouldChangeText.ask(note.callee, note, (range, text))
        }

        func textViewDidChange(_ textView: TextView) {
            TextViewCallbacks.didChange.ask(note.callee, note, ())
            note.reportLimitIfReached()
        }

        func textViewDidChangeSelection(_ textView: TextView) {
            TextViewCallbacks.didChangeSelection.ask(note.callee, note, ())
        }

        func textViewShouldEndEditing(_ textView: TextView) -> Bool {
            TextViewCallbacks.shouldEndEditing.ask(note.callee, note, ())
        }

        func textViewDidEndEditing(_ textView: TextView) {
            TextViewCallbacks.didEndEditing.ask(note.callee, note, ())
        }
    }
}
