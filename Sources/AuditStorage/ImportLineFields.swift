import AuditModel

/// The fields of one line, read by name: each read checks its type, and what is left unread at
/// the end is an unknown field.
struct LineFields {
    var fields: [String: AuditValue]
    var problem: String?

    /// A field no read asked for.
    var unknown: String? { fields.keys.filter { $0 != "type" }.sorted().first }

    mutating func take(_ name: String) -> AuditValue? {
        guard let value = fields.removeValue(forKey: name) else {
            if problem == nil { problem = "\(name): missing field" }
            return nil
        }
        return value
    }

    mutating func string(_ name: String) throws -> String {
        guard case .string(let text)? = take(name) else { return wrong(name, "a string", "") }
        return text
    }

    mutating func optionalString(_ name: String) throws -> String? {
        switch take(name) {
        case .string(let text)?: return text
        case .null?: return nil
        default: return wrong(name, "a string or null", nil)
        }
    }

    mutating func integer(_ name: String) throws -> Int {
        guard case .int(let number)? = take(name) else { return wrong(name, "an integer", 0) }
        return number
    }

    mutating func status() throws -> String {
        let status = try string("status")
        // A recording that is not running here any more: it did not finish.
        return status == SessionStatus.recording.rawValue ? SessionStatus.interrupted.rawValue : status
    }

    mutating func labels() throws -> [String: String] {
        guard case .object(let labels)? = take("labels") else { return wrong("labels", "an object", [:]) }
        return labels.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
    }

    /// A stored value with its SQL type, as `exported` wrote it.
    mutating func sql(_ name: String) throws -> SQLValue {
        guard let value = take(name).flatMap(SQLValue.init(exported:)) else {
            return wrong(name, "a value or {\"blob\": HEX}", .null)
        }
        return value
    }

    private mutating func wrong<T>(_ name: String, _ expected: String, _ placeholder: T) -> T {
        if problem == nil { problem = "\(name): expected \(expected)" }
        return placeholder
    }
}

extension SQLValue {
    /// A stored value with its SQL type, as `export` writes it: null, an integer, a real, a
    /// string, or a blob as `{"blob": HEX}`; nil for anything else.
    init?(exported value: AuditValue) {
        switch value {
        case .null: self = .null
        case .int(let number): self = .integer(Int64(number))
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .object(let blob) where blob.count == 1:
            guard case .string(let hex)? = blob["blob"] else { return nil }
            let digits = Array(hex.utf8)
            let bytes = stride(from: 0, to: digits.count - 1, by: 2).compactMap {
                UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
            }
            guard bytes.count * 2 == digits.count else { return nil }
            self = .blob(bytes)
        default: return nil
        }
    }
}
