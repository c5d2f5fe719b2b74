/// A recorded value: an argument, a result, or a scenario field. It is JSON's data model with
/// integers kept apart from doubles, so `1` and `1.0` stay distinct when compared.
///
/// Two doubles are equal when `==` says so or when both are NaN: a recorded NaN answer compares
/// equal to the same answer given again, as its stored text does.
public enum AuditValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([AuditValue])
    case object([String: AuditValue])

    public subscript(key: String) -> AuditValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public static func == (lhs: AuditValue, rhs: AuditValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3)
            hasher.combine(value.isNaN ? .nan : value)  // one NaN, as `==` has it
        case .string(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .array(let values):
            hasher.combine(5)
            hasher.combine(values)
        case .object(let fields):
            hasher.combine(6)
            hasher.combine(fields)
        }
    }
}

// MARK: JSON text

extension AuditValue {
    /// Compact JSON with object keys sorted, so equal values always have equal text.
    ///
    /// Every string is valid JSON text (RFC 8259): U+0000 to U+001F are escaped, and so are U+2028
    /// and U+2029, which older JavaScript does not take raw in a string. A double JSON cannot
    /// write (NaN, ±infinity) is the object `{"$double":"NaN"}`, `{"$double":"Infinity"}` or
    /// `{"$double":"-Infinity"}`; so that no recorded object reads back as one, an object whose only
    /// key is `$double`, `$$double`, … is written with one more `$`. ``init(json:)`` undoes both.
    public var json: String {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``json``'s UTF-8 to `bytes`: written as bytes, not as a `String`, whose every
    /// append checks its storage and encoding; every argument and result recorded or replayed
    /// goes through here.
    func appendJSON(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append("null")
        case .bool(let value): bytes.append(value ? "true" : "false")
        case .int(let value): bytes.append(decimal: Int64(value))
        case .double(let value):
            if !value.isFinite {
                let name = value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity"
                bytes.append(contentsOf: "{\"\(Self.nonFiniteTag)\":\"\(name)\"}".utf8)
            } else if value == value.rounded() && abs(value) < 1e15 {
                // A whole number, with one decimal so that it reads back as a double.
                bytes.append(decimal: Int64(value))
                bytes.append(".0")
            } else {
                bytes.append(contentsOf: value.description.utf8)
            }
        case .string(let value): Self.appendQuoted(value, to: &bytes)
        case .array(let values): Self.appendArray(values, to: &bytes)
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                let key = fields.count == 1 && Self.isTagLike(field.key) ? "$" + field.key : field.key
                Self.appendQuoted(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                field.value.appendJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a JSON array of `values`.
    static func appendArray(_ values: [AuditValue], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            value.appendJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        // Most strings need no escape: they go across whole.
        if plainInJSON.containsEveryByte(of: value) {
            value.withUTF8 { bytes.append(contentsOf: $0) }
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": bytes.append(#"\""#)
                case "\\": bytes.append(#"\\"#)
                case "\n": bytes.append(#"\n"#)
                case "\r": bytes.append(#"\r"#)
                case "\t": bytes.append(#"\t"#)
                case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                    bytes.append(contentsOf: jsonEscape(UInt16(scalar.value)).utf8)
                default: UTF8.encode(scalar) { bytes.append($0) }
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension AuditValue {
    /// Whether a byte of UTF-8 may start what `appendQuoted` escapes: a control character, a
    /// quote, a backslash, or the first byte of U+2028 and U+2029 (and of other characters,
    /// which `appendQuoted` then looks at one by one).
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2
    }

    /// The bytes of a string `appendQuoted` writes as they are.
    private static let plainInJSON = ByteSet { !needsEscape($0) }

    /// The key of the object that stands for a double JSON cannot write.
    static let nonFiniteTag = "$double"

    /// Whether `key` is `$double` with one or more `$`: the only key of such an object is
    /// written with one more `$` and read with one less, so it is never taken for the tag.
    static func isTagLike(_ key: String) -> Bool {
        key.hasSuffix("double") && key.utf8.count > 6 && key.utf8.dropLast(6).allSatisfy { $0 == UInt8(ascii: "$") }
    }

    /// The value an object of one field stands for, when read back from ``json``: a non-finite
    /// double for the tag, the object with one `$` less for a tag-like key, the object otherwise.
    static func untagged(key: String, value: AuditValue) -> AuditValue {
        guard isTagLike(key) else { return .object([key: value]) }
        guard key == nonFiniteTag else { return .object([String(key.dropFirst()): value]) }
        switch value {
        case .string("NaN"): return .double(.nan)
        case .string("Infinity"): return .double(.infinity)
        case .string("-Infinity"): return .double(-.infinity)
        default: return .object([key: value])
        }
    }
}

extension AuditValue {
    /// JSON's escape of one UTF-16 code unit: `\u` and four lowercase hexadecimal digits.
    package static func jsonEscape(_ unit: UInt16) -> String {
        let hex = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

extension [UInt8] {
    /// Appends a literal's UTF-8 at once (a `String`'s `utf8` view would go byte by byte).
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    mutating func append(decimal value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        let start = count
        repeat {
            append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        self[start...].reverse()
    }
}
