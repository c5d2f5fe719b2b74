import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

extension FidelityPropertyTests {
    // MARK: Item 12: terminal escaping

    /// Pieces of text a terminal shows wrongly or alike, and some it shows as they are.
    static let pool: [String] = [
        "a", "Z", "0", " ", "-", "\"", "\\", "\\n", "\\u{200B}", "u", "{", "}", "n",
        "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1B}", "\u{1B}[2J", "\u{7F}", "\u{85}", "\u{9B}", "\u{2028}", "\u{2029}",
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
        "\u{200E}", "\u{200F}", "\u{61C}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{AD}",
        "\u{34F}", "\u{3164}", "\u{E0041}", "\u{E007F}", "\u{0378}", "\u{FFFF}",
        "价", "格", "한", "カ", "ｆ", "𠀀", "e\u{301}", "\u{301}", "a\u{20DD}",
        "👍", "👍🏽", "👨‍👩‍👧", "❤️", "❤", "🏳️‍🌈", "\u{1F3FD}", "\u{FE0F}", "\u{FE0E}", "\u{FE00}", "\u{E0100}", "é", "ß",
    ]

    static func randomText(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...8, using: &random)).map { _ in pool.randomElement(using: &random)! }.joined()
    }

    /// The escape of every scalar a terminal would not show as itself: what is left is shown as
    /// is, never a line break, never a control, bidi or other format character — except a
    /// zero-width joiner between two emoji, which only joins them into one picture, and a variation
    /// selector that changes how the emoji before it looks.
    @Test func escapedTextHasNothingATerminalWouldNotShow() {
        var random = SeededGenerator(seed: 0xE5C_0012)
        // Keyed by scalars: `String` equality is canonical equivalence, so "é" and "e\u{301}",
        // shown alike by design (accents are shown as themselves), would be one key.
        var seen: [[Unicode.Scalar]: String] = [:]
        for _ in 0..<3000 {
            let text = Self.randomText(&random)
            let escaped = text.visiblyEscaped()
            let scalars = Array(escaped.unicodeScalars)
            for (index, scalar) in scalars.enumerated() where String.isHidden(scalar) {
                let joinsEmoji =
                    scalar == "\u{200D}" && index > 0 && index + 1 < scalars.count
                    && scalars[index + 1].properties.isEmoji
                // A variation selector that turns the emoji before it from text style to emoji
                // style (U+FE0F) or back (U+FE0E): the two look different.
                let base = index > 0 ? scalars[index - 1].properties : nil
                let changesPresentation =
                    base?.isEmoji == true && scalars[index - 1].value > 0xFF
                    && ((scalar == "\u{FE0F}" && base?.isEmojiPresentation == false)
                        || (scalar == "\u{FE0E}" && base?.isEmojiPresentation == true))
                #expect(
                    joinsEmoji || changesPresentation,
                    "\(Array(text.unicodeScalars)) → \(escaped) keeps U+\(String(scalar.value, radix: 16))")
            }
            #expect(!escaped.contains("\n") && !escaped.contains("\r"))
            #expect(!escaped.unicodeScalars.contains { $0.properties.generalCategory == .control })
            for bidi in [
                "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}",
                "\u{2069}", "\u{200E}", "\u{200F}", "\u{61C}",
            ] {
                #expect(!escaped.unicodeScalars.contains(Unicode.Scalar(bidi.unicodeScalars.first!)))
            }
            // Injective on the sample: two different texts never escape alike.
            if let other = seen[scalars] {
                expectEqual(
                    Array(other.unicodeScalars), Array(text.unicodeScalars),
                    "\(Array(other.unicodeScalars)) and \(Array(text.unicodeScalars)) both → \(escaped)")
            }
            seen[scalars] = text
            // Width: at most two columns a character (an emoji sequence is one picture of two, not
            // two per scalar), at least one for each that does not start with a combining mark, and
            // ASCII text (a control escaped) one column a character.
            let marks: Set<Unicode.GeneralCategory> = [.nonspacingMark, .spacingMark, .enclosingMark]
            let spacing = escaped.filter { !marks.contains($0.unicodeScalars.first!.properties.generalCategory) }
            #expect(escaped.displayWidth <= 2 * escaped.count, "\(Array(escaped.unicodeScalars))")
            #expect(escaped.displayWidth >= spacing.count, "\(Array(escaped.unicodeScalars))")
            if escaped.unicodeScalars.allSatisfy(\.isASCII) {
                expectEqual(escaped.displayWidth, escaped.unicodeScalars.count)
            }
            expectEqual(escaped.padded(toWidth: 40).displayWidth, max(40, escaped.displayWidth))
        }
        #expect(seen.count > 2000)
    }

    /// The width of ASCII, CJK and emoji pieces put together is the sum of theirs: 1 an ASCII
    /// character (an escape included), 2 a wide or emoji one.
    @Test func displayWidthAddsUpOverPiecesThatStandAlone() {
        let pieces: [(String, Int)] = [
            ("a", 1), (" ", 1), ("\\", 2), ("价", 2), ("한", 2), ("ｆ", 2), ("𠀀", 2), ("👍", 2), ("👍🏽", 2),
            ("👨‍👩‍👧", 2), ("❤️", 2), ("❤", 1), ("e\u{301}", 1), ("\u{200B}", 8), ("\u{202E}", 8), ("\n", 2),
        ]
        var random = SeededGenerator(seed: 0x71D7)
        for _ in 0..<1000 {
            let chosen = (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            // Each piece escaped alone, joined by an ASCII letter so no two pieces join.
            let escaped = chosen.map { $0.0.visiblyEscaped() }.joined(separator: "x")
            let width = chosen.reduce(0) { $0 + $1.1 } + max(0, chosen.count - 1)
            expectEqual(escaped.displayWidth, width, "\(chosen.map(\.0))")
        }
    }

    // MARK: Item 13: one number, one spelling; non-finite doubles round-trip

    /// Doubles of every kind: random bit patterns (NaNs with payloads, subnormals, huge and tiny
    /// values), whole numbers near 1e15, short decimals, and the special values.
    static func randomDouble(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return Double(bitPattern: random.next())
        case 1: return Double(bitPattern: UInt64.random(in: 0..<(1 << 52), using: &random))  // subnormal
        case 2: return Double(Int64.random(in: -2_000_000_000_000_000...2_000_000_000_000_000, using: &random))
        case 3: return Double(Int.random(in: -100_000...100_000, using: &random)) / 1000
        case 4: return Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &random)) / 8
        default:
            let special: [Double] = [
                0.0, -0.0, .nan, -.nan, .signalingNaN, .infinity, -.infinity, .greatestFiniteMagnitude,
                -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude, 1e15, -1e15, 1e15 - 1,
                999_999_999_999_999.5, 0.1, 1.05, 1.0499999999999998,
            ]
            return special.randomElement(using: &random)!
        }
    }

    /// Every double, alone or inside an array or an object (tag-like keys included), reads back
    /// from its JSON equal to itself — bit for bit when finite and not zero — and two doubles have
    /// the same JSON exactly when `AuditValue` calls them equal (all NaNs; 0 and -0).
    @Test func everyDoubleRoundTripsThroughItsJSONWithOneSpelling() throws {
        var random = SeededGenerator(seed: 0xD0_0013)
        var spellings: [String: Double] = [:]
        for _ in 0..<20_000 {
            let number = Self.randomDouble(&random)
            let value = AuditValue.double(number)
            let text = value.json
            let back = try AuditValue(json: text)
            expectEqual(back, value, "\(number) → \(text)")
            if case .double(let read) = back, number.isFinite, number != 0 {
                expectEqual(read.bitPattern, number.bitPattern, "\(number) → \(text) → \(read)")
            }
            if let other = spellings[text] {
                expectEqual(AuditValue.double(other), value, "\(other) and \(number) are both spelled \(text)")
            }
            spellings[text] = number
            expectEqual(value.json, text)  // the same every time
        }
        for _ in 0..<2_000 {
            let keys = ["$double", "$$double", "double", "a", "$", "$$$double"]
            let fields = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                (keys.randomElement(using: &random)!, AuditValue.double(Self.randomDouble(&random)))
            }
            let object = AuditValue.object(Dictionary(fields, uniquingKeysWith: { a, _ in a }))
            let nested = AuditValue.array([object, .double(Self.randomDouble(&random)), .object(["x": object])])
            try expectEqual(AuditValue(json: nested.json), nested, "\(nested.json)")
        }
    }

    /// The HTML page's times: one spelling for each microsecond, however the double was reached.
    @Test func theHTMLPageSpellsEachTimeOnce() {
        var random = SeededGenerator(seed: 0x7_13)
        for _ in 0..<5_000 {
            let microseconds = Int.random(in: 0..<999_999_999, using: &random)
            let part = Int.random(in: 0...microseconds, using: &random)
            let direct = Double(microseconds) / 1000
            let summed = Double(part) / 1000 + Double(microseconds - part) / 1000
            expectEqual(HTMLPage.milliseconds(direct), HTMLPage.milliseconds(summed), "\(direct) \(summed)")
        }
    }
}
