import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// Text from the database made safe to show to a person: in a terminal (`auditctl`'s text formats)
/// or on the HTML page. Control, bidirectional and invisible characters are replaced by visible
/// escapes, so a recorded name cannot start a new line, move the cursor, reorder what follows, or
/// look like another name; and text is measured in terminal columns, so tables line up.
extension String {
    /// The text with every character that is not shown as itself escaped:
    ///
    /// - `\n`, `\r`, `\t` for those three, and `\u{7}`-style escapes (hexadecimal code point) for
    ///   the other control characters (U+0000–U+001F, U+007F–U+009F), the line and paragraph
    ///   separators, format characters (general category Cf: bidi embeddings, overrides and
    ///   isolates, zero-width space and joiners, word joiner, byte order mark, tags…), unassigned
    ///   code points, and every other code point Unicode calls default-ignorable (a font shows
    ///   nothing for it: variation selectors, Hangul fillers, the combining grapheme joiner…);
    /// - a backslash as `\\`, so an escape in the text is never taken for one made here.
    ///
    /// A zero-width joiner between two emoji (the first may end in U+FE0F) stays, since it only
    /// joins them into one picture; so does a variation selector right after an emoji that it turns
    /// from text to emoji style (U+FE0F, as in ❤️) or back (U+FE0E), since the two look different.
    /// With `json: true` the text is JSON (a recorded `args` or `result`): its backslashes are
    /// its own escapes and stay, and characters are escaped as JSON does (`\u202e`), so the text
    /// is still the same JSON. With `doublingBackslashes: false` (a diagnostic, whose own text
    /// names escapes such as `\u`) backslashes stay as they are.
    package func visiblyEscaped(json: Bool = false, doublingBackslashes: Bool = true) -> String {
        let doubling = !json && doublingBackslashes
        // Printable ASCII (a blob's hex, most names and values) is shown as itself.
        if (doubling ? Self.printableButBackslash : Self.printable).containsEveryByte(of: self) { return self }
        guard unicodeScalars.contains(where: { (doubling && $0 == "\\") || Self.isHidden($0) }) else { return self }
        let scalars = Array(unicodeScalars)
        var text = ""
        text.reserveCapacity(utf8.count + 16)
        for (index, scalar) in scalars.enumerated() {
            if scalar == "\\" && doubling {
                text += "\\\\"
                continue
            }
            guard Self.isHidden(scalar) else {
                text.unicodeScalars.append(scalar)
                continue
            }
            if scalar == "\u{200D}", index + 1 < scalars.count, Self.isEmoji(scalars[index + 1]),
                let before = scalars[..<index].last(where: { $0 != "\u{FE0F}" }), Self.isEmoji(before)
            {
                text.unicodeScalars.append(scalar)
                continue
            }
            if index > 0, Self.changesPresentation(scalar, of: scalars[index - 1]) {
                text.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                guard json else {
                    text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                    continue
                }
                for unit in String(scalar).utf16 { text += AuditValue.jsonEscape(unit) }
            }
        }
        return text
    }

    private static let printable = ByteSet { (0x20...0x7E).contains($0) }
    private static let printableButBackslash = ByteSet { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "\\") }
    private static let ascii = ByteSet { $0 < 0x80 }

    /// Whether a terminal would not show `scalar` as itself: a control character, a line or
    /// paragraph separator, a format character, a code point that is unassigned or a surrogate, or
    /// one Unicode calls default-ignorable (`isDefaultIgnorableCodePoint`: variation selectors,
    /// Hangul fillers, the combining grapheme joiner, Mongolian free variation selectors…).
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        if value < 0xA0 || isLetterOfALargeScript(value) { return false }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate: return true
        default: return properties.isDefaultIgnorableCodePoint || properties.isVariationSelector
        }
    }

    /// The CJK unified ideographs (U+4E00–U+9FFF) and the Hangul syllables (U+AC00–U+D7A3):
    /// every one assigned, a letter, and shown as itself, so the text of a Chinese, Japanese or
    /// Korean app is not looked up in Unicode's property tables scalar by scalar (three look-ups
    /// each). `VisibleTextTests` checks every one of them against the tables.
    static func isLetterOfALargeScript(_ value: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(value) || (0xAC00...0xD7A3).contains(value)
    }

    /// Whether the variation selector `selector`, right after `base`, changes how `base` looks: U+FE0F
    /// after an emoji shown as text by default (❤ to ❤️), U+FE0E after one shown as a picture.
    /// Any other variation selector, or one that repeats the default, shows nothing.
    private static func changesPresentation(_ selector: Unicode.Scalar, of base: Unicode.Scalar) -> Bool {
        guard isEmoji(base) else { return false }
        switch selector {
        case "\u{FE0F}": return !base.properties.isEmojiPresentation
        case "\u{FE0E}": return base.properties.isEmojiPresentation
        default: return false
        }
    }

    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0xFF && scalar.properties.isEmoji
    }
}

// MARK: Display width

extension String {
    /// The columns a terminal gives the text: 2 for East Asian wide and fullwidth characters and
    /// emoji, 0 for combining marks and other characters that join the one before, 1 otherwise.
    /// Meant for text already `visiblyEscaped()` (a control character has no width to measure).
    package var displayWidth: Int {
        if Self.ascii.containsEveryByte(of: self) { return utf8.count }  // ASCII, escaped: one column each
        var width = 0
        for character in self { width += Self.width(of: character) }
        return width
    }

    /// The text followed by spaces up to `columns` display columns (unchanged when wider).
    package func padded(toWidth columns: Int) -> String {
        let width = displayWidth
        return width >= columns ? self : self + String(repeating: " ", count: columns - width)
    }

    /// Spaces, then the text, up to `columns` display columns (unchanged when wider).
    package func leftPadded(toWidth columns: Int) -> String {
        let width = displayWidth
        return width >= columns ? self : String(repeating: " ", count: columns - width) + self
    }

    private static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if isWide(first.value) || first.properties.isEmojiPresentation { return 2 }
        // A text-style emoji made a picture by VS16 (U+FE0F), as ❤️.
        if first.value > 0xFF, first.properties.isEmoji, character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        if character.unicodeScalars.allSatisfy(isZeroWidth) { return 0 }
        return 1
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, by block: Hangul Jamo leading consonants,
    /// angle brackets, CJK radicals to CJK compatibility (with kana and Hangul compatibility
    /// jamo), CJK extension A, CJK unified ideographs, Yi, Hangul Jamo extended A, Hangul
    /// syllables, CJK compatibility ideographs, vertical forms, CJK compatibility forms and small
    /// forms, fullwidth forms, fullwidth signs, Tangut and Khitan, kana supplements, enclosed
    /// ideographic supplement, and the ideographic planes 2 and 3.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF,
        0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wide.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if value < wide[middle].lowerBound {
                high = middle - 1
            } else if value > wide[middle].upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Nonspacing and enclosing marks, format characters, and Hangul medial vowels and final
    /// consonants (U+1160–U+11FF), which join the syllable before them.
    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return (0x1160...0x11FF).contains(scalar.value) || scalar == "\u{200B}"
        }
    }
}
