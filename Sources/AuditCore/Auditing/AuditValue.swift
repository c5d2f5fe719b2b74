/// A recorded value: an argument, a result, or a scenario field. It is JSON's data model with
/// integers kept apart from doubles, so `1` and `1.0` stay distinct when compared.
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
}

// MARK: JSON text

extension AuditValue {
    /// Compact JSON with object keys sorted, so equal values always have equal text.
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
                text += "null"  // JSON has no infinities or NaN
            }
        case .string(let value): Self.appendQuoted(value, to: &text)
        case .array(let values):
            Self.appendArray(values, to: &text)
        case .object(let fields):
            text += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.appendQuoted(key, to: &text)
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
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension String {
    /// A double that is a whole number, written with one decimal so it reads back as a double.
    fileprivate init(format value: Double) { self = String(Int64(value)) + ".0" }
}
