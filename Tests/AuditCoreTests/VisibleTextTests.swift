import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

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
        expectEqual(Array(text.visiblyEscaped().unicodeScalars), Array(escaped.unicodeScalars))
    }

    @Test func twoTextsThatLookAlikeNeverEscapeAlike() {
        let lookalikes = [
            "pay", "pa\u{200B}y", "p\u{202E}ya", "pa\u{200D}y", "pay\u{FEFF}", "pa\\u{200B}y", "pa\\\\u{200B}y",
            "pa\ny", "pa\\ny",
        ]
        expectEqual(Set(lookalikes.map { $0.visiblyEscaped() }).count, lookalikes.count)
    }

    /// Every code point Unicode calls default-ignorable or a variation selector (a font shows nothing
    /// for it), and every control, format, line or paragraph separator: generated from the
    /// properties over all of Unicode, not listed by hand.
    static let invisibleScalars: [Unicode.Scalar] = (0...UInt32(0x10FFFF)).compactMap { Unicode.Scalar($0) }.filter {
        scalar in
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return properties.isDefaultIgnorableCodePoint || properties.isVariationSelector
        }
    }

    @Test func everyInvisibleCodePointIsEscapedWhereverItStands() {
        let scalars = Self.invisibleScalars
        // Control 65, format 170, the ignorable letters and marks, 256 + 16 variation selectors,
        // the unassigned ignorables of plane 14: some thousands.
        #expect(scalars.count > 4_000, "\(scalars.count) scalars")
        #expect(scalars.contains("\u{FE0F}") && scalars.contains("\u{E0100}") && scalars.contains("\u{180B}"))
        let named: [Unicode.Scalar: String] = ["\n": "\\n", "\r": "\\r", "\t": "\\t"]
        var shownRaw: [String] = []
        for scalar in scalars {
            let escape = named[scalar] ?? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            let character = String(scalar)
            // After a letter, at the start, at the end, twice, and after an emoji (where only the
            // selector that changes its presentation may stay, tested below).
            for (text, expected) in [
                ("x" + character, "x" + escape), (character + "x", escape + "x"), ("é" + character, "é" + escape),
                (character + character, escape + escape),
            ] where text.visiblyEscaped() != expected {
                shownRaw.append(text.debugDescription)
            }
        }
        expectEqual(shownRaw.count, 0, "not escaped: \(shownRaw.prefix(20))")
    }

    @Test(arguments: [
        // A selector that changes what an emoji looks like stays: text style to emoji, emoji to text.
        ("❤\u{FE0F}", "❤\u{FE0F}"), ("👍\u{FE0E}", "👍\u{FE0E}"), ("🏳\u{FE0F}\u{200D}🌈", "🏳\u{FE0F}\u{200D}🌈"),
        // One that repeats the default, or repeats itself, or follows no emoji, shows nothing: escaped.
        ("❤\u{FE0E}", "❤\\u{FE0E}"), ("👍\u{FE0F}", "👍\\u{FE0F}"), ("❤\u{FE0F}\u{FE0F}", "❤\u{FE0F}\\u{FE0F}"),
        ("1\u{FE0F}", "1\\u{FE0F}"), ("葛\u{E0100}", "葛\\u{E0100}"), ("❤\u{FE00}", "❤\\u{FE00}"),
    ])
    func aVariationSelectorStaysOnlyWhereItShows(text: String, escaped: String) {
        expectEqual(Array(text.visiblyEscaped().unicodeScalars), Array(escaped.unicodeScalars))
    }

    @Test func siblingIdsWithVariationSelectorsEscapeApart() {
        let ids = ["x", "x\u{FE0F}", "x\u{FE0E}", "x\u{FE00}", "x\u{E0100}", "\u{FE0E}x", "x\u{180B}", "x\u{115F}"]
        expectEqual(Set(ids.map { $0.visiblyEscaped() }).count, ids.count)
        #expect(ids.dropFirst().allSatisfy { $0.visiblyEscaped().contains("\\u{") })
    }

    @Test func jsonTextKeepsItsEscapesAndStaysTheSameJSON() throws {
        let json = AuditValue.object(["text": .string("a\u{1}\"\\b\u{202E}c\u{200B}\u{E0041}")]).json
        let escaped = json.visiblyEscaped(json: true)
        expectEqual(escaped, #"{"text":"a\u0001\"\\b\u202ec\u200b\udb40\udc41"}"#)
        try expectEqual(AuditValue(json: escaped), AuditValue(json: json))
        // Nothing to escape: the same string.
        expectEqual(#"{"a":"\\n"}"#.visiblyEscaped(json: true), #"{"a":"\\n"}"#)
    }

    @Test(arguments: [
        ("", 0), ("abc", 3), ("价格表", 6), ("ｆｕｌｌ", 8), ("한국어", 6), ("カタカナ", 8),
        ("e\u{301}", 1), ("a\u{20DD}", 1), ("👍", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("❤️", 2), ("❤", 1),
        ("\u{1100}\u{1161}\u{11A8}", 2), ("𠀀", 2), ("a\\u{200B}b", 10),
    ])
    func measuresTerminalColumns(text: String, width: Int) {
        expectEqual(text.displayWidth, width)
    }

    /// The ranges taken as shown without a look-up are what the property tables say of every
    /// scalar in them: assigned, not a format or separator, not default-ignorable.
    @Test func theScriptsTakenAsShownAreShownByTheTables() {
        let ranges: [ClosedRange<UInt32>] = [0x4DFF...0xA000, 0xABFF...0xD7A4]
        var taken = 0
        for value in ranges.joined() {
            let scalar = Unicode.Scalar(value)!
            guard String.isLetterOfALargeScript(value) else { continue }
            taken += 1
            let properties = scalar.properties
            #expect(
                properties.generalCategory == .otherLetter && !properties.isDefaultIgnorableCodePoint
                    && !properties.isVariationSelector, "U+\(String(value, radix: 16, uppercase: true))")
        }
        expectEqual(taken, 0x9FFF - 0x4E00 + 1 + 0xD7A3 - 0xAC00 + 1)
        // Just outside them, the tables decide.
        #expect(String.isHidden("\u{D7A4}"))  // unassigned
        #expect(!String.isHidden("\u{4DFF}"))  // a hexagram symbol
    }

    @Test func padsToADisplayWidth() {
        expectEqual("价格".padded(toWidth: 6), "价格  ")
        expectEqual("价格".leftPadded(toWidth: 5), " 价格")
        expectEqual("价格表".padded(toWidth: 4), "价格表")
    }
}
