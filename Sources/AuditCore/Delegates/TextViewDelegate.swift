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
        delegateDefault(TextViewCallbacks.shouldBeginEditing.defaultResult(()))
    }

    public func textViewDidBeginEditing(_ textView: TextView) {
        delegateDefault()
    }

    public func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String)
        -> Bool
    {
        delegateDefault(TextViewCallbacks.shouldChangeText.defaultResult((range, text)))
    }

    public func textViewDidChange(_ textView: TextView) {
        delegateDefault()
    }

    public func textViewDidChangeSelection(_ textView: TextView) {
        delegateDefault()
    }

    public func textViewShouldEndEditing(_ textView: TextView) -> Bool {
        delegateDefault(TextViewCallbacks.shouldEndEditing.defaultResult(()))
    }

    public func textViewDidEndEditing(_ textView: TextView) {
        delegateDefault()
    }
}

/// The callback table of `TextViewDelegate`: each callback declared once. A refined protocol
/// (`NoteTextViewDelegate`) records its inherited callbacks through this table too.
public enum TextViewCallbacks {
    public static let protocolName = "TextViewDelegate"

    public static let shouldBeginEditing = Callback<any TextViewDelegate, TextView, Void, Bool>(
        protocolName, "textViewShouldBeginEditing(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, textView, _ in delegate.textViewShouldBeginEditing(textView) })

    public static let didBeginEditing = Callback<any TextViewDelegate, TextView, Void, Void>(
        protocolName, "textViewDidBeginEditing(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidBeginEditing(textView) })

    public static let shouldChangeText = Callback<any TextViewDelegate, TextView, (TextRange, String), Bool>(
        protocolName, "textView(_:shouldChangeTextIn:replacementText:)",
        arguments: .two("range", .textRange, "replacementText", .string), answer: .veto(),
        invoke: { $0.textView($1, shouldChangeTextIn: $2.0, replacementText: $2.1) })

    public static let didChange = Callback<any TextViewDelegate, TextView, Void, Void>(
        protocolName, "textViewDidChange(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidChange(textView) })

    public static let didChangeSelection = Callback<any TextViewDelegate, TextView, Void, Void>(
        protocolName, "textViewDidChangeSelection(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidChangeSelection(textView) })

    public static let shouldEndEditing = Callback<any TextViewDelegate, TextView, Void, Bool>(
        protocolName, "textViewShouldEndEditing(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, textView, _ in delegate.textViewShouldEndEditing(textView) })

    public static let didEndEditing = Callback<any TextViewDelegate, TextView, Void, Void>(
        protocolName, "textViewDidEndEditing(_:)", arguments: .none, answer: .void,
        invoke: { delegate, textView, _ in delegate.textViewDidEndEditing(textView) })

    /// Every callback of the protocol, invocable by name (replay) and listed by `auditctl callbacks`.
    public static let invokers: [CallbackInvoker] = [
        shouldBeginEditing.invoker, didBeginEditing.invoker, shouldChangeText.invoker, didChange.invoker,
        didChangeSelection.invoker, shouldEndEditing.invoker, didEndEditing.invoker,
    ]
    public static let all = invokers.map(\.descriptor)
}

extension ValueCoding where Value == TextRange {
    /// A range as `{"location":L,"length":N}` in UTF-16 units. Reads back only non-negative
    /// integers; whether the range fits a text is `TextView.validate(_:)`'s question.
    public static let textRange = ValueCoding(
        encode: { .object(["location": .int($0.location), "length": .int($0.length)]) },
        decode: { value in
            guard case .object(let fields) = value, fields.count == 2, case .int(let location)? = fields["location"],
                case .int(let length)? = fields["length"], location >= 0, length >= 0
            else { return nil }
            return TextRange(location: location, length: length)
        })
}

extension TextViewCallbacks {
    /// `shouldChangeText` as `textView`'s proxy records it: for a secure view, the replacement
    /// text as a keyed hash (see `SecretHasher`); the delegate still gets the text itself.
    static func shouldChangeText(recordedFor textView: TextView, by link: AuditLink)
        -> Callback<any TextViewDelegate, TextView, (TextRange, String), Bool>
    {
        guard textView.isSecureTextEntry else { return shouldChangeText }
        let secrets = link.secrets
        return shouldChangeText.recording { [ValueCoding.textRange.encode($0.0), .string(secrets.hash($0.1))] }
    }
}

/// Forwards `TextViewDelegate` to the text view's app delegate and records each call; the text a
/// secure view is offered is recorded as a keyed hash. Not final: `NoteTextViewDelegateProxy`
/// inherits these methods and adds the note's own.
class TextViewDelegateProxy: DelegateProxy, TextViewDelegate {
    func textViewShouldBeginEditing(_ textView: TextView) -> Bool {
        forward(TextViewCallbacks.shouldBeginEditing, to: textView.delegate, textView, ())
    }

    func textViewDidBeginEditing(_ textView: TextView) {
        forward(TextViewCallbacks.didBeginEditing, to: textView.delegate, textView, ())
    }

    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        forward(
            TextViewCallbacks.shouldChangeText(recordedFor: textView, by: link), to: textView.delegate, textView,
            (range, text))
    }

    func textViewDidChange(_ textView: TextView) {
        forward(TextViewCallbacks.didChange, to: textView.delegate, textView, ())
    }

    func textViewDidChangeSelection(_ textView: TextView) {
        forward(TextViewCallbacks.didChangeSelection, to: textView.delegate, textView, ())
    }

    func textViewShouldEndEditing(_ textView: TextView) -> Bool {
        forward(TextViewCallbacks.shouldEndEditing, to: textView.delegate, textView, ())
    }

    func textViewDidEndEditing(_ textView: TextView) {
        forward(TextViewCallbacks.didEndEditing, to: textView.delegate, textView, ())
    }
}
