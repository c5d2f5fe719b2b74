import SharedTestSupport

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A text-view delegate that logs every call with what the view shows at that moment, and answers
/// the should-calls as told. Also a `NoteTextViewDelegate`, logging the limit callback.
final class LoggingTextDelegate: NoteTextViewDelegate {
    var calls: [String] = []
    /// `path selector` per call, in the form the recorded timeline gives.
    var selectors: [String] = []
    var allowsBegin: (TextView) -> Bool = { _ in true }
    var allowsChange: (TextView, TextRange, String) -> Bool = { _, _, _ in true }
    var allowsEnd: (TextView) -> Bool = { _ in true }
    /// Called from textViewDidChange, to make nested inputs.
    var onDidChange: ((TextView) -> Void)?

    private func log(_ textView: TextView, _ selector: String, _ call: String) {
        calls.append("\(textView.identifier).\(call)")
        selectors.append("\(textView.path) \(selector)")
    }

    func textViewShouldBeginEditing(_ textView: TextView) -> Bool {
        let answer = allowsBegin(textView)
        log(textView, "textViewShouldBeginEditing(_:)", "shouldBegin -> \(answer)")
        return answer
    }

    func textViewDidBeginEditing(_ textView: TextView) {
        log(textView, "textViewDidBeginEditing(_:)", "didBegin editing=\(textView.isEditing)")
    }

    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        let answer = allowsChange(textView, range, text)
        log(
            textView, "textView(_:shouldChangeTextIn:replacementText:)",
            "shouldChange \(range) \(text.debugDescription) in \(textView.text.debugDescription) -> \(answer)")
        return answer
    }

    func textViewDidChange(_ textView: TextView) {
        log(textView, "textViewDidChange(_:)", "didChange \(textView.text.debugDescription) \(textView.selectedRange)")
        onDidChange?(textView)
    }

    func textViewDidChangeSelection(_ textView: TextView) {
        log(textView, "textViewDidChangeSelection(_:)", "didChangeSelection \(textView.selectedRange)")
    }

    func textViewShouldEndEditing(_ textView: TextView) -> Bool {
        let answer = allowsEnd(textView)
        log(textView, "textViewShouldEndEditing(_:)", "shouldEnd -> \(answer)")
        return answer
    }

    func textViewDidEndEditing(_ textView: TextView) {
        log(textView, "textViewDidEndEditing(_:)", "didEnd editing=\(textView.isEditing)")
    }

    func noteTextView(_ noteTextView: NoteTextView, didReachCharacterLimit limit: Int) {
        log(noteTextView, "noteTextView(_:didReachCharacterLimit:)", "didReachLimit \(limit)")
    }
}

/// Implements only textViewDidChange: every other callback falls to the protocol's default.
final class DidChangeOnlyTextDelegate: TextViewDelegate {
    var texts: [String] = []

    func textViewDidChange(_ textView: TextView) { texts.append(textView.text) }
}

/// The timeline as one line per event: seq, parent, kind, widget, (with `protocols`, the protocol,)
/// callback, arguments, result, vetoed (with `overrides`, for an override: overridden or kept),
/// implemented. Built field by field: an array literal of these optionals took the type checker
/// seconds.
func timelineLines(_ events: [TimelineEvent], protocols: Bool = false, overrides: Bool = false) -> [String] {
    events.map { event in
        var fields: [String] = [String(event.seq), event.parentSeq.map { String($0) } ?? "-"]
        fields.append(event.kind.rawValue)
        fields.append(event.widget ?? "-")
        if protocols { fields.append(event.protocolName ?? "-") }
        fields += [event.callback, event.arguments, event.result ?? "void"]
        fields.append(overrides ? answerEffect(event) : event.vetoed.map { String($0) } ?? "-")
        fields.append(event.implemented.map { String($0) } ?? "-")
        return fields.joined(separator: " ")
    }
}

/// A stateful delegate for random runs: vetoes by count and by content, and clears a long text
/// from inside textViewDidChange, so runs exercise all three vetoes and nested inputs.
func statefulTextDelegate() -> LoggingTextDelegate {
    let delegate = LoggingTextDelegate()
    var asked = (begin: 0, change: 0, end: 0)
    delegate.allowsBegin = { _ in
        asked.begin += 1
        return asked.begin % 4 != 0
    }
    delegate.allowsChange = { _, _, text in
        asked.change += 1
        return asked.change % 5 != 0 && !text.contains("x")
    }
    delegate.allowsEnd = { _ in
        asked.end += 1
        return asked.end % 3 != 0
    }
    delegate.onDidChange = { textView in
        let length = textView.text.utf16.count
        if length > 12 { textView.replace(TextRange(location: 0, length: length), with: "") }
    }
    return delegate
}

/// Pieces typed in random runs: CJK, an emoji and a lone skin-tone modifier (which merge), a
/// combining accent, an empty string (a deletion), and "x", which the stateful delegate vetoes.
let randomPieces = ["a", "ok ", "请", "在门口", "👍", "🏽", "👍🏽", "e", "\u{301}", "", "x"]

/// A random range whose ends are character boundaries of `textView`'s text.
func randomValidRange(in textView: TextView, using random: inout SeededGenerator) -> TextRange {
    let boundaries = textView.characterBoundaries
    let start = Int.random(in: boundaries.indices, using: &random)
    let end = Int.random(in: start..<boundaries.count, using: &random)
    return TextRange(location: boundaries[start], length: boundaries[end] - boundaries[start])
}

/// A tree with a `TextView` and a `NoteTextView` (limit 6) driven by `count` random inputs from
/// `seed`. Returns the delegate (its log) and each view's final text, selection and editing state.
func runRandomTextInputs(seed: UInt64, count: Int, recorder: Recorder?) -> (
    delegate: LoggingTextDelegate, state: [String]
) {
    let root = View(identifier: "root")
    let body = TextView(identifier: "body", text: "请在门口")
    let note = NoteTextView(identifier: "note", text: "👍🏽 ok", characterLimit: 6)
    root.addSubview(body)
    root.addSubview(note)
    let delegate = statefulTextDelegate()
    body.delegate = delegate
    note.delegate = delegate
    try! recorder?.attach(to: root)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<count {
        let view: TextView = Bool.random(using: &random) ? body : note
        switch Int.random(in: 0..<6, using: &random) {
        case 0: view.beginEditing()
        case 1, 2: view.type(randomPieces.randomElement(using: &random)!)
        case 3:
            let range = randomValidRange(in: view, using: &random)
            view.replace(range, with: randomPieces.randomElement(using: &random)!)
        case 4: view.select(randomValidRange(in: view, using: &random))
        default: view.endEditing()
        }
    }
    let state = [body, note].map { "\($0.text.debugDescription) \($0.selectedRange) editing=\($0.isEditing)" }
    return (delegate, state)
}
