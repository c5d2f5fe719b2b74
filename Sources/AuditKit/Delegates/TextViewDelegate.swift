import AuditModel
import AuditStorage

/// The delegate of a `TextView`. Every method is optional: the extension below supplies UIKit's
/// defaults and marks them, so the audit records "not implemented, default used".
///
/// Ranges are UTF-16 offsets into the text as it was before the change (see `TextRange`).
public protocol TextViewDelegate: AnyObject {
    /// Return false to veto: editing does not begin, and the input that asked goes no further.
    func textViewShouldBeginEditing(_ textView: TextView) -> Bool
    func textViewDidBeginEditing(_ textView: TextView)
    /// Return false to veto: the text and the selection stay as they are and no did-callback fires.
    /// `textView.text` is still the old text here.
    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool
    /// The text changed; the selection has already moved after the inserted text.
    func textViewDidChange(_ textView: TextView)
    func textViewDidChangeSelection(_ textView: TextView)
    /// Return false to veto: the view keeps editing.
    func textViewShouldEndEditing(_ textView: TextView) -> Bool
    func textViewDidEndEditing(_ textView: TextView)
}

extension TextViewDelegate {
    public func textViewShouldBeginEditing(_ textView: TextView) -> Bool {
        TextView.callbacks.shouldBeginEditing.unimplemented(())
    }

    public func textViewDidBeginEditing(_ textView: TextView) {
        TextView.callbacks.didBeginEditing.unimplemented(())
    }

    public func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String)
        -> Bool
    {
        TextView.callbacks.shouldChangeText.unimplemented((range, text))
    }

    public func textViewDidChange(_ textView: TextView) {
        TextView.callbacks.didChange.unimplemented(())
    }

    public func textViewDidChangeSelection(_ textView: TextView) {
        TextView.callbacks.didChangeSelection.unimplemented(())
    }

    public func textViewShouldEndEditing(_ textView: TextView) -> Bool {
        TextView.callbacks.shouldEndEditing.unimplemented(())
    }

    public func textViewDidEndEditing(_ textView: TextView) {
        TextView.callbacks.didEndEditing.unimplemented(())
    }
}

/// The callback table of `TextViewDelegate`: each callback declared once. A refined protocol
/// (`NoteTextViewDelegate`) records its inherited callbacks through this table too.
public struct TextViewCallbacks: CallbackTable {
    public static let protocolName = "TextViewDelegate"

    public let shouldBeginEditing = Callback<any TextViewDelegate, TextView, Void, Bool>(
        "textViewShouldBeginEditing(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, textView, _ in delegate.textViewShouldBeginEditing(textView) })

    public let didBeginEditing = Callback<any TextViewDelegate, TextView, Void, Void>(
        "textViewDidBeginEditing(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidBeginEditing(textView) })

    public let shouldChangeText = Callback<any TextViewDelegate, TextView, (TextRange, String), Bool>(
        "textView(_:shouldChangeTextIn:replacementText:)",
        arguments: .two("range", .textRange, "replacementText", .string), answer: .veto(),
        invoke: { $0.textView($1, shouldChangeTextIn: $2.0, replacementText: $2.1) })

    public let didChange = Callback<any TextViewDelegate, TextView, Void, Void>(
        "textViewDidChange(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidChange(textView) })

    public let didChangeSelection = Callback<any TextViewDelegate, TextView, Void, Void>(
        "textViewDidChangeSelection(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidChangeSelection(textView) })

    public let shouldEndEditing = Callback<any TextViewDelegate, TextView, Void, Bool>(
        "textViewShouldEndEditing(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, textView, _ in delegate.textViewShouldEndEditing(textView) })

    public let didEndEditing = Callback<any TextViewDelegate, TextView, Void, Void>(
        "textViewDidEndEditing(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidEndEditing(textView) })
}

extension ValueCoding where Value == TextRange {
    /// A range as `{"location":L,"length":N}` in UTF-16 units. Reads back only non-negative
    /// integers; whether the range fits a text is `TextView.validate(_:)`'s question.
    public static let textRange: ValueCoding = ValueCoding(
        encode: { .object(["location": .int($0.location), "length": .int($0.length)]) },
        decode: { value in
            guard case .object(let fields) = value, fields.count == 2, case .int(let location)? = fields["location"],
                case .int(let length)? = fields["length"], location >= 0, length >= 0
            else { return nil }
            return TextRange(location: location, length: length)
        }, expected: #"{"location": integer, "length": integer}"#, shape: .textRange)
}

extension TextViewCallbacks {
    /// `shouldChangeText` as `textView` asks it: for a secure view under audit, recording the
    /// replacement text as a keyed hash (see `SecretHasher`); the delegate still gets the text itself.
    func shouldChangeText(recordedFor textView: TextView)
        -> Callback<any TextViewDelegate, TextView, (TextRange, String), Bool>
    {
        guard textView.isSecureTextEntry, let link = textView.auditLink else { return shouldChangeText }
        let secrets = link.secrets
        return shouldChangeText.recording { [ValueCoding.textRange.encode($0.0), .string(secrets.hash($0.1))] }
    }
}
