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
        var text = ""
        appendJSON(to: &text)
        return text
    }

    func appendJSON(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value):
            if value.isFinite {
                text += value == value.rounded() && abs(value) < 1e15 ? String(format: value) : "\(value)"
            } else {
                let name = value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity"
                text += "{\"\(Self.nonFiniteTag)\":\"\(name)\"}"
            }
        case .string(let value): Self.appendQuoted(value, to: &text)
        case .array(let values):
            Self.appendArray(values, to: &text)
        case .object(let fields):
            text += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.appendQuoted(fields.count == 1 && Self.isTagLike(key) ? "$" + key : key, to: &text)
                text += ":"
                fields[key]!.appendJSON(to: &text)
            }
            text += "}"
        }
    }

    /// Writes a JSON array of `values`.
    static func appendArray(_ values: [AuditValue], to text: inout String) {
        text += "["
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            value.appendJSON(to: &text)
        }
        text += "]"
    }

    /// Writes a JSON object whose keys are given in order (argument labels), without sorting.
    static func appendObject(labels: [String], values: [AuditValue], to text: inout String) {
        text += "{"
        for index in 0..<min(labels.count, values.count) {
            if index > 0 { text += "," }
            appendQuoted(labels[index], to: &text)
            text += ":"
            values[index].appendJSON(to: &text)
        }
        text += "}"
    }

    static func appendQuoted(_ value: String, to text: inout String) {
        text += "\""
        // Most strings need no escape: they go across whole.
        if !value.utf8.contains(where: needsEscape) {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension AuditValue {
    /// Whether a byte of UTF-8 may start what `appendQuoted` escapes: a control character, a
    /// quote, a backslash, or the first byte of U+2028 and U+2029 (and of other characters,
    /// which `appendQuoted` then looks at one by one).
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2
    }

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

extension String {
    /// A double that is a whole number, written with one decimal so it reads back as a double.
    fileprivate init(format value: Double) { self = String(Int64(value)) + ".0" }
}
