import AuditModel
import AuditStorage

/// A range of a text view's text, counted in UTF-16 code units like UIKit's `NSRange`.
///
/// `location` and `length` are UTF-16 offsets, not `Character` counts: in `"👍🏽 ok"` the emoji
/// with its skin tone is one `Character` but four units, so `" ok"` is `location: 4, length: 3`.
/// A value may hold any integers; `TextView.validate(_:)` says whether it fits a given text.
public struct TextRange: Sendable, Hashable, CustomStringConvertible {
    public var location: Int
    public var length: Int

    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }

    /// An empty range: the caret at `location`.
    public static func caret(at location: Int) -> TextRange { TextRange(location: location, length: 0) }

    /// The offset just past the range.
    public var end: Int { location + length }

    public var description: String { "{\(location), \(length)}" }
}

/// An editable text with a selection; its delegate may veto beginning, changing and ending editing.
///
/// The inputs follow UIKit's `UITextView`:
/// - `beginEditing()` asks `textViewShouldBeginEditing(_:)`; `false` and nothing else happens.
///   Otherwise editing begins and `textViewDidBeginEditing(_:)` fires. Already editing: nothing.
/// - `type(_:)` replaces the selection, `replace(_:with:)` a given range. Each asks
///   `textView(_:shouldChangeTextIn:replacementText:)` with the text as it was; `false` leaves text
///   and selection alone and no did-callback fires. Otherwise the change is applied, the caret moves
///   after the inserted text, `textViewDidChange(_:)` fires, then `textViewDidChangeSelection(_:)`
///   if the selection moved. An empty text over an empty range changes nothing: the delegate is
///   neither asked nor told. A view that is not editing begins editing first, as a tap into the
///   view would: if that is vetoed the text is not changed and not even offered to the delegate.
/// - `select(_:)` fires `textViewDidChangeSelection(_:)` only if the selection changes; it works
///   whether or not the view is editing, and does not begin editing.
/// - `endEditing()` asks `textViewShouldEndEditing(_:)`; `false` and editing continues. Otherwise
///   editing ends and `textViewDidEndEditing(_:)` fires. Not editing: nothing.
///
/// Ranges are UTF-16 offsets (see `TextRange`) and must fall on `Character` boundaries: an input
/// with a range that `validate(_:)` rejects is a programming error. The selection always falls on
/// boundaries too: when an edit merges characters (typing `"👍"` before a skin-tone modifier), the
/// caret moves to the end of the merged character.
///
/// A subclass in this module may put its own logic between the view and the app's delegate, as
/// `NoteTextView` does: it sets `relay` to an object that runs its logic around each callback and
/// asks the app's delegate itself (recorded there), while the view asks the relay unrecorded.
open class TextView: View {
    /// The text. Changed only by the inputs below, so every change is offered to the delegate.
    public private(set) var text: String
    /// The selection in UTF-16 units; an empty range is the caret. Starts at the end of the text.
    public private(set) var selectedRange: TextRange
    /// Whether the view is editing (UIKit: is the first responder).
    public private(set) var isEditing = false
    /// Whether the text is a secret (a password). It changes no behaviour; under audit, every text
    /// of a secure view — typed, offered to `shouldChangeTextIn`, or the view's text after an
    /// input — is recorded as a keyed hash (see `SecretHasher`), never as the text itself.
    public var isSecureTextEntry = false

    /// The app's delegate, held weakly, and asked at each callback: assigning it while the view is
    /// audited retargets the audit at once.
    public weak var delegate: (any TextViewDelegate)?
    /// What a subclass puts between the view and `delegate` (see the type's description); the view
    /// asks it unrecorded, and it asks `delegate` through the callbacks. Held weakly.
    weak var relay: (any TextViewDelegate)?

    /// The callbacks of `TextViewDelegate`, each declared once.
    public static let callbacks = TextViewCallbacks()
    /// Bumped by every applied change, so a change proposed before the delegate edited the text
    /// from inside a callback is recognised as stale.
    private var revision = 0
    /// The digest of `text` (see `TextDigest`), extended by what is typed at the end and made
    /// again on first use after any other change.
    private var digestOfText: TextDigest?
    var digest: TextDigest {
        if let digestOfText { return digestOfText }
        let digest = TextDigest(text)
        digestOfText = digest
        return digest
    }
    /// For a secure view under audit: the keyed hash of `text` under the key it was made with,
    /// extended and remade as `digestOfText` is (hashing the whole text at each of n edits would
    /// take time in n²).
    private var secureHashOfText: (key: [UInt8], hmac: SHA256.HMAC)?
    /// The bytes of text `secureHash(by:)` has hashed so far (for tests: it grows with the edits,
    /// not with the text at each edit).
    private(set) var secureBytesHashed = 0
    /// The value recorded in place of `text` by `hasher`.
    func secureHash(by hasher: SecretHasher) -> String {
        if let secureHashOfText, secureHashOfText.key == hasher.key {
            return SecretHasher.value(of: secureHashOfText.hmac)
        }
        let hmac = hasher.hmac(of: text)
        secureBytesHashed += text.utf8.count
        secureHashOfText = (hasher.key, hmac)
        return SecretHasher.value(of: hmac)
    }

    /// The text's length in UTF-16 units, kept as the text changes: counting the units of a long
    /// text that is not ASCII reads all of it.
    public private(set) var utf16Length: Int

    public init(identifier: String, frame: Rect = .zero, text: String = "") {
        self.text = text
        utf16Length = text.utf16.count
        selectedRange = .caret(at: utf16Length)
        super.init(identifier: identifier, frame: frame)
    }

    open override var widgetKind: String { "TextView" }

    /// Asks `callback` of the relay when there is one (unrecorded: it records what it asks the app's
    /// delegate), else of the app's delegate (recorded while audited).
    private func ask<Arguments, Result>(
        _ callback: Callback<any TextViewDelegate, TextView, Arguments, Result>, _ arguments: Arguments
    ) -> Result {
        if let relay { return callback.unaudited(relay, self, arguments) }
        return callback.ask(delegate, self, arguments)
    }

    // MARK: Ranges

    /// Why `range` cannot be used with the current text, or nil when it can.
    ///
    /// A range is usable when it is not negative, ends within the text's UTF-16 length, and both
    /// ends fall on `Character` boundaries (it splits neither a surrogate pair nor a grapheme
    /// cluster such as `👍🏽`). A scenario runner calls this before performing a step. Its cost is
    /// that of reaching the range's ends from the nearer end of the text.
    public func validate(_ range: TextRange) -> String? {
        let length = utf16Length
        if range.location < 0 || range.length < 0 {
            return "range \(range) has a negative location or length"
        }
        if range.location > length || range.length > length - range.location {
            return "range \(range) lies outside the text, which is \(length) UTF-16 units long"
        }
        if let offset = [range.location, range.end].first(where: { !isCharacterBoundary($0) }) {
            return "range \(range) splits a character at UTF-16 offset \(offset)"
        }
        return nil
    }

    /// The UTF-16 offsets at which a `Character` starts, and the text's end: the offsets a valid
    /// range may begin or end at.
    var characterBoundaries: [Int] {
        var offsets = [0]
        for character in text { offsets.append(offsets[offsets.count - 1] + character.utf16.count) }
        return offsets
    }

    private func isCharacterBoundary(_ offset: Int) -> Bool {
        boundary(atOrAfter: offset) == offset
    }

    /// The first character boundary at or after `offset` (which is within the text).
    ///
    /// Looks only at the characters around `offset`, so typing at the end of a long text does not
    /// walk it: `String.Index(_:within:)` tells whether an index starts a `Character`, and
    /// `index(after:)` rounds an index inside one down to its start before stepping past it.
    private func boundary(atOrAfter offset: Int) -> Int {
        let index = index(atUTF16: offset)
        if index == text.endIndex || String.Index(index, within: text) != nil { return offset }
        return offset + text.utf16.distance(from: index, to: text.index(after: index))
    }

    /// The index at UTF-16 offset `offset` (within the text), reached from the nearer end, so an
    /// offset near the end, where typing goes, costs only what lies after it.
    private func index(atUTF16 offset: Int) -> String.Index {
        let units = text.utf16
        return offset <= utf16Length / 2
            ? units.index(units.startIndex, offsetBy: offset)
            : units.index(units.endIndex, offsetBy: offset - utf16Length)
    }

    // MARK: Inputs

    // Each input runs its `Inputs` check first, as a user's widget's does: arguments it refuses
    // (a range outside the text) do nothing, and a recorder lists them in `refusedInputs`.

    /// The user (or code) makes the view the first responder.
    public func beginEditing() {
        performInput(Inputs.beginEditing, ()) {
            _ = beginEditingIfNeeded()
            return recordedState
        }
    }

    /// The user types `text` over the selection (an empty string deletes it). Begins editing first
    /// when the view is not editing.
    public func type(_ text: String) {
        performInput(Inputs.type, text, recording: [recorded(text)]) {
            if beginEditingIfNeeded() { change(selectedRange, to: text) }
            return recordedState
        }
    }

    /// Replaces `range` (UTF-16 units; refused unless valid for the current text) with `text`, as an edit the
    /// delegate may veto. Begins editing first when the view is not editing.
    public func replace(_ range: TextRange, with text: String) {
        performInput(Inputs.replace, (range, text), recording: [ValueCoding.textRange.encode(range), recorded(text)]) {
            let proposed = revision
            // A delegate that edited the text while editing began leaves `range` stale: dropped.
            if beginEditingIfNeeded(), proposed == revision { change(range, to: text) }
            return recordedState
        }
    }

    /// Selects `range` (UTF-16 units; refused unless valid for the current text).
    public func select(_ range: TextRange) {
        performInput(Inputs.select, range) {
            if range != selectedRange {
                selectedRange = range
                ask(Self.callbacks.didChangeSelection, ())
            }
            return recordedState
        }
    }

    /// The view resigns first responder, unless the delegate vetoes it.
    public func endEditing() {
        performInput(Inputs.endEditing, ()) {
            if isEditing, ask(Self.callbacks.shouldEndEditing, ()) {
                isEditing = false
                ask(Self.callbacks.didEndEditing, ())
            }
            return recordedState
        }
    }

    /// Begins editing unless already editing or vetoed; returns whether the view is now editing.
    private func beginEditingIfNeeded() -> Bool {
        if isEditing { return true }
        guard ask(Self.callbacks.shouldBeginEditing, ()) else { return false }
        isEditing = true
        ask(Self.callbacks.didBeginEditing, ())
        return true
    }

    /// Offers one change to the delegate and applies it unless vetoed (or made stale by an edit the
    /// delegate made from inside its answer).
    private func change(_ range: TextRange, to replacement: String) {
        // Nothing over nothing changes nothing: UIKit sends `textViewDidChange(_:)` only for a
        // change to the text (UITextViewDelegate, "Tells the delegate when the user changes the
        // text"), and does not offer such an edit, a delete at an empty text's start, to
        // `shouldChangeTextIn` either. The input is still recorded.
        if range.length == 0, replacement.isEmpty { return }
        let proposed = revision
        guard ask(Self.callbacks.shouldChangeText(recordedFor: self), (range, replacement)), proposed == revision
        else { return }
        let appends = range.length == 0 && range.location == utf16Length
        let start = index(atUTF16: range.location)
        // In place: a text typed into is not copied at each change.
        text.replaceSubrange(start..<text.utf16.index(start, offsetBy: range.length), with: replacement)
        utf16Length += replacement.utf16.count - range.length
        revision += 1
        if appends {
            digestOfText?.append(replacement)
            if secureHashOfText != nil {
                secureHashOfText?.hmac.update(replacement.utf8)
                secureBytesHashed += replacement.utf8.count
            }
        } else {
            digestOfText = nil
            secureHashOfText = nil
        }
        let caret = TextRange.caret(at: boundary(atOrAfter: range.location + replacement.utf16.count))
        let selectionMoved = caret != selectedRange
        selectedRange = caret
        ask(Self.callbacks.didChange, ())
        if selectionMoved { ask(Self.callbacks.didChangeSelection, ()) }
    }

    /// `text` as it is recorded: itself, or a keyed hash when the view is secure and audited.
    private func recorded(_ text: String) -> AuditValue {
        guard isSecureTextEntry, let link = auditLink else { return .string(text) }
        return .string(link.secrets.hash(text))
    }

    /// The inputs that drive a text view (and its subclasses), as recorded.
    public enum Inputs {
        public static let beginEditing: Input<TextView, Void> = Input(
            "beginEditing", of: "TextView", arguments: .none, perform: { view, _ in view.beginEditing() })
        public static let type: Input<TextView, String> = Input(
            "typeText", of: "TextView", arguments: .one("text", .string), perform: { $0.type($1) })
        public static let replace: Input<TextView, (TextRange, String)> = Input(
            "replaceText", of: "TextView", arguments: .two("range", .textRange, "text", .string),
            check: { view, arguments in view.validate(arguments.0).map { StepProblem(field: "range", $0) } },
            perform: { $0.replace($1.0, with: $1.1) })
        public static let select: Input<TextView, TextRange> = Input(
            "selectText", of: "TextView", arguments: .one("range", .textRange),
            check: { view, range in view.validate(range).map { StepProblem($0) } }, perform: { $0.select($1) })
        public static let endEditing: Input<TextView, Void> = Input(
            "endEditing", of: "TextView", arguments: .none, perform: { view, _ in view.endEditing() })
        public static let all: [any WidgetInput] = [beginEditing, type, replace, select, endEditing]
    }
}
