import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Text view: UIKit semantics")
struct TextViewTests {
    let delegate = LoggingTextDelegate()

    func textView(_ text: String = "", editing: Bool = false) -> TextView {
        let view = TextView(identifier: "t", text: text)
        if editing { view.beginEditing() }
        view.delegate = delegate
        return view
    }

    @Test func beginEditingAsksThenNotifies() {
        let view = textView()
        view.beginEditing()
        #expect(view.isEditing)
        expectEqual(delegate.calls, ["t.shouldBegin -> true", "t.didBegin editing=true"])
    }

    @Test func vetoedBeginEditingDoesNothingElse() {
        let view = textView("请在门口")
        delegate.allowsBegin = { _ in false }
        view.beginEditing()
        #expect(!view.isEditing)
        expectEqual(delegate.calls, ["t.shouldBegin -> false"])
    }

    @Test func beginningWhileEditingAsksNothing() {
        let view = textView(editing: true)
        view.beginEditing()
        #expect(delegate.calls.isEmpty)
    }

    @Test func typingReplacesTheSelectionMovesTheCaretThenNotifies() {
        let view = textView("请在门口", editing: true)
        view.select(TextRange(location: 1, length: 2))
        view.type("到")
        expectEqual(view.text, "请到口")
        expectEqual(view.selectedRange, .caret(at: 2))
        expectEqual(
            delegate.calls,
            [
                "t.didChangeSelection {1, 2}",
                #"t.shouldChange {1, 2} "到" in "请在门口" -> true"#,
                #"t.didChange "请到口" {2, 0}"#,
                "t.didChangeSelection {2, 0}",
            ])
    }

    @Test func vetoedChangeLeavesTextAndSelectionAndSkipsDidCallbacks() {
        let view = textView("abc", editing: true)
        delegate.allowsChange = { _, _, _ in false }
        view.type("d")
        view.replace(TextRange(location: 0, length: 1), with: "")
        expectEqual(view.text, "abc")
        expectEqual(view.selectedRange, .caret(at: 3))
        expectEqual(
            delegate.calls,
            [
                #"t.shouldChange {3, 0} "d" in "abc" -> false"#, #"t.shouldChange {0, 1} "" in "abc" -> false"#,
            ])
    }

    @Test func typingWhileNotEditingBeginsEditingFirst() {
        let view = textView("ab")
        view.type("c")
        #expect(view.isEditing)
        expectEqual(view.text, "abc")
        expectEqual(
            delegate.calls,
            [
                "t.shouldBegin -> true", "t.didBegin editing=true", #"t.shouldChange {2, 0} "c" in "ab" -> true"#,
                #"t.didChange "abc" {3, 0}"#, "t.didChangeSelection {3, 0}",
            ])
    }

    @Test func changeIsDroppedWhenEditingCannotBegin() {
        let view = textView("ab")
        delegate.allowsBegin = { _ in false }
        view.type("c")
        view.replace(TextRange(location: 0, length: 2), with: "")
        expectEqual(view.text, "ab")
        #expect(!view.isEditing)
        expectEqual(delegate.calls, ["t.shouldBegin -> false", "t.shouldBegin -> false"])
    }

    @Test func selectNotifiesOnlyWhenTheSelectionChanges() {
        let view = textView("abc")
        view.select(TextRange(location: 1, length: 1))
        view.select(TextRange(location: 1, length: 1))
        view.select(.caret(at: 3))
        #expect(!view.isEditing)
        expectEqual(delegate.calls, ["t.didChangeSelection {1, 1}", "t.didChangeSelection {3, 0}"])
    }

    @Test func deletingForwardKeepsTheCaretSoOnlyTheTextChangeIsNotified() {
        let view = textView("abc", editing: true)
        view.select(.caret(at: 1))
        delegate.calls.removeAll()
        view.replace(TextRange(location: 1, length: 1), with: "")
        expectEqual(view.text, "ac")
        expectEqual(delegate.calls, [#"t.shouldChange {1, 1} "" in "abc" -> true"#, #"t.didChange "ac" {1, 0}"#])
    }

    @Test func vetoedEndEditingKeepsEditing() {
        let view = textView(editing: true)
        delegate.allowsEnd = { _ in false }
        view.endEditing()
        #expect(view.isEditing)
        delegate.allowsEnd = { _ in true }
        view.endEditing()
        #expect(!view.isEditing)
        expectEqual(delegate.calls, ["t.shouldEnd -> false", "t.shouldEnd -> true", "t.didEnd editing=false"])
    }

    @Test func endingWhileNotEditingAsksNothing() {
        let view = textView()
        view.endEditing()
        #expect(delegate.calls.isEmpty)
    }

    @Test func aChangeMadeStaleByTheDelegateIsDropped() {
        let view = textView("abc", editing: true)
        delegate.allowsChange = { textView, _, text in
            if text == "!" { textView.replace(TextRange(location: 0, length: 3), with: "z") }
            return true
        }
        view.type("!")
        // The delegate's own edit happened; the "!" it allowed was proposed for the old text.
        expectEqual(view.text, "z")
        expectEqual(view.selectedRange, .caret(at: 1))
    }

    @Test func withoutDelegateEverythingIsAllowed() {
        let view = TextView(identifier: "t", text: "ab")
        view.type("c")
        view.select(TextRange(location: 0, length: 1))
        view.type("A")
        view.endEditing()
        expectEqual(view.text, "Abc")
        expectEqual(view.selectedRange, .caret(at: 1))
        #expect(!view.isEditing)
    }

    @Test func secureTextEntryIsStored() {
        let view = textView()
        #expect(!view.isSecureTextEntry)
        view.isSecureTextEntry = true
        #expect(view.isSecureTextEntry)
    }

    @Test func delegateIsHeldWeakly() {
        let view = TextView(identifier: "t")
        do {
            let delegate = LoggingTextDelegate()
            view.delegate = delegate
            #expect(view.delegate === delegate)
        }
        #expect(view.delegate == nil)
    }

    @Test func adoptsOnlyATextViewDelegate() {
        let view = TextView(identifier: "t")
        ScenarioRunner.adopt(LoggingDelegate(), in: view, catalog: .builtIn)
        #expect(view.delegate == nil)
        ScenarioRunner.adopt(delegate, in: view, catalog: .builtIn)
        #expect(view.delegate === delegate)
    }
}

@Suite("Text view: UTF-16 ranges")
struct TextRangeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let range: TextRange
        /// nil when the range is valid, else a phrase the reason contains.
        let problem: String?

        var testDescription: String { "\(text.debugDescription) \(range)" }
    }

    static let cases: [Case] = [
        Case(text: "请在门口", range: TextRange(location: 0, length: 4), problem: nil),
        Case(text: "请在门口", range: TextRange(location: 1, length: 2), problem: nil),
        Case(text: "请在门口", range: .caret(at: 4), problem: nil),
        Case(text: "请在门口", range: TextRange(location: 3, length: 2), problem: "outside the text"),
        Case(text: "请在门口", range: .caret(at: 5), problem: "outside the text"),
        Case(text: "请在门口", range: TextRange(location: -1, length: 1), problem: "negative"),
        Case(text: "请在门口", range: TextRange(location: 1, length: -1), problem: "negative"),
        Case(text: "👍🏽 ok", range: TextRange(location: 0, length: 4), problem: nil),
        Case(text: "👍🏽 ok", range: TextRange(location: 4, length: 3), problem: nil),
        Case(text: "👍🏽 ok", range: .caret(at: 7), problem: nil),
        Case(text: "👍🏽 ok", range: .caret(at: 1), problem: "splits a character at UTF-16 offset 1"),
        // Between the emoji and its modifier: a scalar boundary, but inside the one Character.
        Case(text: "👍🏽 ok", range: TextRange(location: 0, length: 2), problem: "splits a character at UTF-16 offset 2"),
        Case(text: "👍🏽 ok", range: TextRange(location: 3, length: 2), problem: "splits a character at UTF-16 offset 3"),
        Case(text: "👍🏽 ok", range: TextRange(location: 4, length: 4), problem: "outside the text"),
        Case(text: "👍🏽 ok", range: .caret(at: 8), problem: "outside the text"),
        Case(text: "e\u{301}", range: .caret(at: 1), problem: "splits a character at UTF-16 offset 1"),
    ]

    @Test(arguments: cases)
    func validateAcceptsOnlyRangesOnCharacterBoundariesWithinTheText(_ example: Case) {
        let reason = TextView(identifier: "t", text: example.text).validate(example.range)
        if let problem = example.problem {
            expectEqual(reason?.contains(problem), true, "\(reason ?? "nil")")
        } else {
            #expect(reason == nil)
        }
    }

    @Test func boundariesAreUTF16OffsetsOfCharacters() {
        expectEqual(TextView(identifier: "t", text: "请在门口").characterBoundaries, [0, 1, 2, 3, 4])
        expectEqual(TextView(identifier: "t", text: "👍🏽 ok").characterBoundaries, [0, 4, 5, 6, 7])
        expectEqual(TextView(identifier: "t").characterBoundaries, [0])
    }

    @Test func selectionStartsAtTheEndInUTF16Units() {
        expectEqual(TextView(identifier: "t", text: "👍🏽 ok").selectedRange, .caret(at: 7))
        expectEqual(TextView(identifier: "t", text: "请在门口").selectedRange, .caret(at: 4))
    }

    @Test func replacingTheEmojiCountsUTF16Units() {
        let view = TextView(identifier: "t", text: "👍🏽 ok")
        view.replace(TextRange(location: 0, length: 4), with: "👎")
        expectEqual(view.text, "👎 ok")
        expectEqual(view.selectedRange, .caret(at: 2))
        view.replace(TextRange(location: 3, length: 2), with: "请在门口")
        expectEqual(view.text, "👎 请在门口")
        expectEqual(view.selectedRange, .caret(at: 7))
    }

    @Test func typingAModifierAfterTheEmojiMergesThemIntoOneCharacter() {
        let view = TextView(identifier: "t", text: "👍 ok")
        view.select(.caret(at: 2))
        view.type("🏽")
        expectEqual(view.text, "👍🏽 ok")
        expectEqual(view.text.count, 4)
        expectEqual(view.selectedRange, .caret(at: 4))
    }

    @Test func aCaretThatWouldSplitAMergedCharacterMovesToItsEnd() {
        // A lone modifier is a character of its own; typing the emoji before it merges the two.
        let view = TextView(identifier: "t", text: "🏽 ok")
        view.select(.caret(at: 0))
        view.type("👍")
        expectEqual(view.text, "👍🏽 ok")
        expectEqual(view.selectedRange, .caret(at: 4))
        #expect(view.validate(view.selectedRange) == nil)
    }

    @Test func rangesAreRecordedAsLocationAndLength() {
        let coding = ValueCoding<TextRange>.textRange
        expectEqual(coding.encode(TextRange(location: 4, length: 3)).json, #"{"length":3,"location":4}"#)
        expectEqual(coding.decode(coding.encode(TextRange(location: 4, length: 3))), TextRange(location: 4, length: 3))
        #expect(coding.decode(.object(["location": .int(-1), "length": .int(0)])) == nil)
        #expect(coding.decode(.object(["location": .int(1)])) == nil)
        #expect(coding.decode(.int(1)) == nil)
    }

    /// A range the text cannot take is refused, as any input whose check fails: nothing changes.
    @Test func selectingARangeThatSplitsACharacterIsRefused() {
        let view = TextView(identifier: "t", text: "👍🏽 ok")
        let before = view.selectedRange
        view.select(.caret(at: 2))
        #expect(view.selectedRange == before && view.text == "👍🏽 ok")
    }

    @Test func replacingARangeOutsideTheTextIsRefused() {
        let view = TextView(identifier: "t", text: "请在门口")
        view.replace(TextRange(location: 4, length: 1), with: "")
        #expect(view.text == "请在门口" && !view.isEditing)
    }
}
