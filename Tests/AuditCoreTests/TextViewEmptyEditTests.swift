import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// An edit that changes nothing — an empty text over an empty range — is no change to UIKit:
/// `textViewDidChange(_:)` "tells the delegate when the user changes the text" (Apple,
/// UITextViewDelegate), and a delete at the start of an empty field is not offered to the
/// should-change callback either. So neither the should- nor the did-callback is sent.
@Suite("Text view: an edit that changes nothing")
struct TextViewEmptyEditTests {
    let delegate = LoggingTextDelegate()
    let folder = TemporaryDirectory()

    func textView(_ text: String, editing: Bool = true) -> TextView {
        let view = TextView(identifier: "t", text: text)
        if editing { view.beginEditing() }
        view.delegate = delegate
        return view
    }

    @Test(arguments: ["", "abc", "👍🏽 ok", "e\u{301}", "🇫🇷🇩🇪"])
    func typingNothingAtTheCaretAsksAndTellsNothing(text: String) {
        let view = textView(text)
        view.type("")
        expectEqual(view.text, text)
        expectEqual(view.selectedRange, .caret(at: text.utf16.count))
        #expect(delegate.calls.isEmpty)
    }

    @Test func replacingAnEmptyRangeWithNothingAsksAndTellsNothing() {
        let view = textView("请在门口")
        for location in view.characterBoundaries { view.replace(.caret(at: location), with: "") }
        expectEqual(view.text, "请在门口")
        expectEqual(view.selectedRange, .caret(at: 4))
        #expect(delegate.calls.isEmpty)
    }

    @Test func typingNothingIntoAViewNotEditingOnlyBeginsEditing() {
        let view = textView("abc", editing: false)
        view.type("")
        #expect(view.isEditing)
        expectEqual(delegate.calls, ["t.shouldBegin -> true", "t.didBegin editing=true"])
    }

    @Test func typingNothingOverASelectionDeletesIt() {
        let view = textView("abc")
        view.select(TextRange(location: 1, length: 1))
        view.type("")
        expectEqual(view.text, "ac")
        expectEqual(
            delegate.calls,
            [
                "t.didChangeSelection {1, 1}", #"t.shouldChange {1, 1} "" in "abc" -> true"#,
                #"t.didChange "ac" {1, 0}"#, "t.didChangeSelection {1, 0}",
            ])
    }

    @Test func insertingTextAtACaretIsStillAChange() {
        let view = textView("ac")
        view.replace(.caret(at: 1), with: "b")
        expectEqual(view.text, "abc")
        // The caret was at 2 and is after the "b", at 2 again: the selection did not change.
        expectEqual(delegate.calls, [#"t.shouldChange {1, 0} "b" in "ac" -> true"#, #"t.didChange "abc" {2, 0}"#])
    }

    /// Random texts, carets and edits: the callbacks of an edit follow from whether it changes
    /// anything, nothing else.
    @Test(arguments: [1, 7, 99] as [UInt64])
    func onlyEditsThatChangeSomethingAreOffered(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let pieces = ["", "", "a", "é", "e\u{301}", "👍🏽", "🇯🇵", "请"]
        let view = textView("")
        for _ in 0..<300 {
            let range = randomValidRange(in: view, using: &random)
            let replacement = pieces.randomElement(using: &random)!
            let before = delegate.calls.count
            view.replace(range, with: replacement)
            let changes = range.length > 0 || !replacement.isEmpty
            expectEqual((delegate.calls.count > before), changes, "\(range) \(replacement.debugDescription)")
        }
    }

    @Test func underAuditTheInputIsRecordedWithoutCallbacks() throws {
        let view = textView("ab")
        let recorder = try Recorder(
            databasePath: folder.path("audit.sqlite"), session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.type("")
        let summary = recorder.finish()
        expectEqual(summary.inputs, 1)
        expectEqual(summary.callbacks, 0)
    }
}
