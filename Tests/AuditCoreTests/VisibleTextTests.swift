import Foundation
import Testing

@testable import AuditCore

/// The escaping and the display width that every text format and the HTML page use.
@Suite("Visible text: escapes and display width")
struct VisibleTextTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("a\nb", "a\\nb"),
        ("a\r\tb", "a\\r\\tb"),
        ("\u{0}\u{1}\u{1B}[2J", "\\u{0}\\u{1}\\u{1B}[2J"),
        ("del\u{7F} nel\u{85} csi\u{9B}", "del\\u{7F} nel\\u{85} csi\\u{9B}"),
        ("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}"),
        // Bidi: embeddings, overrides, isolates, marks.
        ("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}", "\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{202E}"),
        (
            "\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{61C}",
            "\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200E}\\u{200F}\\u{61C}"
        ),
        // Invisible: zero-width space, non-joiner, joiner (alone), word joiner, BOM, soft hyphen,
        // combining grapheme joiner, Hangul filler, a tag character.
        ("a\u{200B}b\u{200C}c\u{200D}d", "a\\u{200B}b\\u{200C}c\\u{200D}d"),
        ("\u{2060}\u{FEFF}\u{AD}\u{34F}\u{3164}\u{E0041}", "\\u{2060}\\u{FEFF}\\u{AD}\\u{34F}\\u{3164}\\u{E0041}"),
        // A backslash is doubled, so text that looks like an escape is told from one.
        ("a\\nb", "a\\\\nb"),
        // Shown as themselves: accents, CJK, emoji (a joiner between two emoji included), spaces.
        ("e\u{301} 价格 👨‍👩‍👧 👍🏽 ❤️", "e\u{301} 价格 👨‍👩‍👧 👍🏽 ❤️"),
        ("🏳️‍🌈 👩🏽‍💻", "🏳️‍🌈 👩🏽‍💻"),
    ])
    func escapesWhatATerminalWouldNotShow(text: String, escaped: String) {
        #expect(Array(text.visiblyEscaped().unicodeScalars) == Array(escaped.unicodeScalars))
    }

    @Test func twoTextsThatLookAlikeNeverEscapeAlike() {
        let lookalikes = [
            "pay", "pa\u{200B}y", "p\u{202E}ya", "pa\u{200D}y", "pay\u{FEFF}", "pa\\u{200B}y", "pa\\\\u{200B}y",
            "pa\ny", "pa\\ny",
        ]
        #expect(Set(lookalikes.map { $0.visiblyEscaped() }).count == lookalikes.count)
    }

    @Test func jsonTextKeepsItsEscapesAndStaysTheSameJSON() throws {
        let json = AuditValue.object(["text": .string("a\u{1}\"\\b\u{202E}c\u{200B}\u{E0041}")]).json
        let escaped = json.visiblyEscaped(json: true)
        #expect(escaped == #"{"text":"a\u0001\"\\b\u202ec\u200b\udb40\udc41"}"#)
        #expect(try AuditValue(json: escaped) == AuditValue(json: json))
        // Nothing to escape: the same string.
        #expect(#"{"a":"\\n"}"#.visiblyEscaped(json: true) == #"{"a":"\\n"}"#)
    }

    @Test(arguments: [
        ("", 0), ("abc", 3), ("价格表", 6), ("ｆｕｌｌ", 8), ("한국어", 6), ("カタカナ", 8),
        ("e\u{301}", 1), ("a\u{20DD}", 1), ("👍", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("❤️", 2), ("❤", 1),
        ("\u{1100}\u{1161}\u{11A8}", 2), ("𠀀", 2), ("a\\u{200B}b", 10),
    ])
    func measuresTerminalColumns(text: String, width: Int) {
        #expect(text.displayWidth == width)
    }

    @Test func padsToADisplayWidth() {
        #expect("价格".padded(toWidth: 6) == "价格  ")
        #expect("价格".leftPadded(toWidth: 5) == " 价格")
        #expect("价格表".padded(toWidth: 4) == "价格表")
    }
}
