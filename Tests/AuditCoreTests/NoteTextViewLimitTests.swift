import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A note's `characterLimit` counts UTF-16 code units, the unit of its ranges and of
/// `NSString.length`, by which iOS code limits a text view (`text.utf16.count`): not the
/// `Character`s a reader sees.
@Suite("Note text view: the limit's unit")
struct NoteTextViewLimitTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let typed: String
        let limit: Int
        let accepted: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a flag is 4 units, at the limit", text: "", typed: "🇫🇷", limit: 4, accepted: true),
        Case(name: "a flag is 4 units, over the limit", text: "", typed: "🇫🇷", limit: 3, accepted: false),
        Case(name: "two flags are 8 units", text: "🇫🇷", typed: "🇩🇪", limit: 7, accepted: false),
        Case(name: "a skin tone makes 4 units", text: "", typed: "👍🏽", limit: 4, accepted: true),
        Case(name: "a skin tone over the limit", text: "ok", typed: "👍🏽", limit: 5, accepted: false),
        Case(name: "a modifier merging into a character", text: "👍", typed: "🏽", limit: 3, accepted: false),
        Case(name: "a combining accent is a unit", text: "e", typed: "\u{301}", limit: 2, accepted: true),
        Case(name: "e and a combining accent are 2 units", text: "", typed: "e\u{301}", limit: 1, accepted: false),
        Case(name: "a precomposed é is 1 unit", text: "", typed: "é", limit: 1, accepted: true),
        Case(name: "a ZWJ family is 8 units", text: "", typed: "👨‍👩‍👧", limit: 7, accepted: false),
        Case(name: "CJK is a unit each", text: "请在", typed: "门口", limit: 4, accepted: true),
    ]

    @Test(arguments: cases)
    func theLimitCountsUTF16Units(_ example: Case) {
        let delegate = LoggingTextDelegate()
        let note = NoteTextView(identifier: "n", text: example.text, characterLimit: example.limit)
        note.beginEditing()
        note.delegate = delegate
        note.type(example.typed)
        expectEqual(note.text, (example.accepted ? example.text + example.typed : example.text))
        // A refused change never reaches the app; an accepted one that reaches the limit says so.
        expectEqual(delegate.calls.isEmpty, !example.accepted)
        let reached = (example.text + example.typed).utf16.count == example.limit
        expectEqual(delegate.calls.contains("n.didReachLimit \(example.limit)"), (example.accepted && reached))
    }

    /// Random edits of emoji, flags and combining marks: a change is refused exactly when it would
    /// leave more units than the limit and than the text has, and the limit is reported exactly
    /// when the length reaches it from below.
    @Test(arguments: [5, 6, 7] as [UInt64])
    func theLimitHoldsInUnitsWhateverIsTyped(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let pieces = ["a", "é", "e\u{301}", "\u{301}", "👍", "🏽", "👍🏽", "🇫", "🇷", "🇫🇷", "请", "", "👨‍👩‍👧"]
        let limit = 12
        let delegate = LoggingTextDelegate()
        let note = NoteTextView(identifier: "n", text: "", characterLimit: limit)
        note.beginEditing()
        note.delegate = delegate
        for _ in 0..<400 {
            let range = randomValidRange(in: note, using: &random)
            let piece = pieces.randomElement(using: &random)!
            let before = note.text.utf16.count
            let proposed = before - range.length + piece.utf16.count
            let reports = delegate.calls.filter { $0.hasPrefix("n.didReachLimit") }.count
            note.replace(range, with: piece)
            let refused = proposed > limit && proposed > before
            let changes = range.length > 0 || !piece.isEmpty
            expectEqual(note.text.utf16.count, (refused || !changes ? before : proposed))
            expectEqual(note.utf16Length, note.text.utf16.count)
            let reported = delegate.calls.filter { $0.hasPrefix("n.didReachLimit") }.count - reports
            expectEqual(reported, (!refused && changes && before < limit && proposed >= limit ? 1 : 0))
        }
    }

    /// A scenario's `characterLimit` is in UTF-16 units too: files written when it counted
    /// `Character`s mean the same for text of ASCII or CJK, and stop sooner for emoji and accents.
    @Test func aScenariosLimitIsInUnits() throws {
        let source = """
            {"format": 1, "name": "limit", "delegate": "none", "root": {"kind": "View", "id": "r", "children": [
              {"kind": "NoteTextView", "id": "n", "characterLimit": 5}]},
             "steps": [{"action": "typeText", "widget": "r/n", "text": "🇫🇷"},
                       {"action": "typeText", "widget": "r/n", "text": "a"},
                       {"action": "typeText", "widget": "r/n", "text": "b"}]}
            """
        let scenario = try Scenario(data: Data(source.utf8), catalog: .builtIn)
        let root = scenario.root.build()
        for step in scenario.steps { step.perform(in: root) }
        let note = try #require(root.view(atPath: "r/n") as? NoteTextView)
        expectEqual(note.text, "🇫🇷a")
    }
}
