/// Why a JSON text could not be read, and the byte offset where reading stopped.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
    /// Where the parser stopped, in bytes from the start of the text.
    package let offset: Int
    package let message: String

    public var description: String { "\(message) at byte \(offset + 1)" }
}

extension AuditValue {
    /// Parses JSON text, such as a recorded `args` or `result` column: the inverse of ``json``,
    /// non-finite doubles included (`{"$double":"NaN"}` reads as NaN).
    ///
    /// - Complexity: O(*n*) for *n* bytes of text.
    public init(json text: String) throws {
        self = try Self.parse(json: Array(text.utf8), readingTags: true)
    }

    /// The deepest nesting of arrays and objects a parsed document may have.
    static let maximumDepth = 256

    /// Parses one JSON document (RFC 8259) from UTF-8 bytes.
    ///
    /// Integers without fraction or exponent that fit in `Int` stay integers; other numbers are
    /// doubles. Errors carry the byte offset, which callers turn into a line and column.
    ///
    /// `skipping` names a member of the top-level object whose value is stepped over, not built
    /// (read as an empty array): strings and brackets are matched, nothing inside is checked. For
    /// a part of a document already checked once that the caller does not need (a stored
    /// scenario's steps, when only its tree is needed).
    ///
    /// `readingTags` reads what ``json`` writes for a non-finite double as that double (for
    /// recorded values; a scenario file is read without).
    package static func parse(
        json bytes: some Collection<UInt8>, skipping member: String? = nil, readingTags: Bool = false
    ) throws(JSONSyntaxError) -> AuditValue {
        let buffer = Array(bytes)
        var parser = JSONParser(bytes: buffer)
        parser.skippedMember = member
        parser.readsTags = readingTags
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }
}

/// A recursive-descent reader over the document's bytes.
///
/// The loops that touch every byte (whitespace, the runs of a string without escapes, digits)
/// compare bytes with plain integers and slice whole runs at once: the package's tests and the
/// apps that record in theirs run unoptimized builds, where each `UInt8(ascii:)`, range pattern
/// or generic `contains` on a byte is a call of its own.
private struct JSONParser {
    let bytes: [UInt8]
    /// `bytes.count`, read once.
    let end: Int
    var index = 0
    /// A member of the top-level object to step over (see `AuditValue.parse(json:skipping:)`).
    var skippedMember: String?
    /// Whether an object of one tag-like field is read as ``AuditValue/untagged(key:value:)`` says.
    var readsTags = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
        self.end = bytes.count
    }

    func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, message: message) }

    mutating func skipWhitespace() {
        while index < end {
            let byte = bytes[index]
            guard byte == .space || byte == .newline || byte == .tab || byte == .carriageReturn else { return }
            index += 1
        }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> AuditValue {
        guard index < end else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character \(describeCharacter(at: index))")
        }
    }

    /// The character at `offset` for a message: `'x'` when printable ASCII, else its code point
    /// (`U+0000`, `U+00E9`), or the byte (`byte 0xFF`) when it does not start valid UTF-8.
    func describeCharacter(at offset: Int) -> String {
        let byte = bytes[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Unicode.Scalar(byte))'" }
        var decoder = UTF8()
        var iterator = bytes[offset...].makeIterator()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private mutating func literal(_ word: StaticString, _ value: AuditValue) throws(JSONSyntaxError) -> AuditValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= end,
            bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw error("invalid literal") }
        index += count
        return value
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> AuditValue {
        guard depth <= AuditValue.maximumDepth else {
            throw error("nested deeper than \(AuditValue.maximumDepth) levels")
        }
        index += 1
        var fields: [String: AuditValue] = [:]
        skipWhitespace()
        if index < end, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard index < end else { throw error("unexpected end of input in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a field name in quotes") }
            let keyOffset = index
            let key = try string()
            guard fields[key] == nil else {
                throw JSONSyntaxError(offset: keyOffset, message: "duplicate field '\(key)'")
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after a field name")
            skipWhitespace()
            if depth == 1, key == skippedMember {
                try skipValue()
                fields[key] = .array([])
            } else {
                fields[key] = try value(depth: depth)
            }
            skipWhitespace()
            guard index < end else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                if readsTags, fields.count == 1, let (key, value) = fields.first {
                    return AuditValue.untagged(key: key, value: value)
                }
                return .object(fields)
            }
            try expect(UInt8(ascii: ","), "expected ',' or '}' in an object")
        }
    }

    /// Steps over one value without building it, up to the `,` or closing bracket after it.
    private mutating func skipValue() throws(JSONSyntaxError) {
        var depth = 0
        while index < end {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < end, bytes[index] != .quote {
                    index += bytes[index] == .backslash ? 2 : 1
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 0 { return }
            default:
                break
            }
            index += 1
        }
        throw error("unexpected end of input")
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> AuditValue {
        guard depth <= AuditValue.maximumDepth else {
            throw error("nested deeper than \(AuditValue.maximumDepth) levels")
        }
        index += 1
        var values: [AuditValue] = []
        skipWhitespace()
        if index < end, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try value(depth: depth))
            skipWhitespace()
            guard index < end else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            try expect(UInt8(ascii: ","), "expected ',' or ']' in an array")
        }
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(JSONSyntaxError) {
        guard index < end, bytes[index] == byte else { throw error(message) }
        index += 1
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1  // the opening quote
        var scalars: [UInt8] = []
        while true {
            let run = index
            while index < end {
                let byte = bytes[index]
                if byte == .quote || byte == .backslash || byte < .space { break }
                index += 1
            }
            guard index < end else { throw error("unterminated string") }
            if scalars.isEmpty, bytes[index] == .quote {  // no escape: the text is one slice
                index += 1
                guard let text = String(validating: bytes[run..<index - 1], as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return text
            }
            scalars.append(contentsOf: bytes[run..<index])
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < end else { throw error("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: String(try unicodeEscape()).utf8)
                default:
                    index -= 1
                    throw error("invalid escape: \\ followed by \(describeCharacter(at: index))")
                }
            default:
                throw error("control character in a string (escape it)")
            }
        }
    }

    /// The scalar of `\uXXXX`, or of a `\uD8xx\uDCxx` surrogate pair.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Character {
        let high = try hex4()
        if (0xD800..<0xDC00).contains(high) {
            guard index + 1 < end, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else {
                throw error("unpaired surrogate in \\u escape")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
            return Character(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!)
        }
        guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate in \\u escape") }
        return Character(scalar)
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= end else { throw error("\\u needs four hex digits") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = UInt32(String(Unicode.Scalar(byte)), radix: 16) else {
                throw error("\\u needs four hex digits")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private mutating func number() throws(JSONSyntaxError) -> AuditValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < end, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < end, isDigit(bytes[index]) else {
                throw error("invalid number: digits must follow '.'")
            }
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < end, isDigit(bytes[index]) else {
                throw error("invalid number: digits must follow the exponent")
            }
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(offset: start, message: "number out of range")
        }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- .digitZero < 10 }
}

extension UInt8 {
    fileprivate static var space: UInt8 { 0x20 }
    fileprivate static var tab: UInt8 { 0x09 }
    fileprivate static var newline: UInt8 { 0x0A }
    fileprivate static var carriageReturn: UInt8 { 0x0D }
    fileprivate static var quote: UInt8 { 0x22 }
    fileprivate static var backslash: UInt8 { 0x5C }
    fileprivate static var digitZero: UInt8 { 0x30 }
}
