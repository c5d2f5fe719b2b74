import AuditModel
import AuditStorage
import Foundation

/// Decodes a `Decodable` value straight from an `AuditValue` (a scenario's fields, a recorded
/// argument), with errors that say what each field should have been.
///
/// `JSONDecoder` would do the decoding, but its errors lose the field a value belongs to
/// (`"selected": 1.5` for an `Int` is "The given data was not valid JSON." with no path). Here
/// every mismatch is a `DecodingError.typeMismatch` at the member's coding path, so
/// `ScenarioError(decoding:at:)` reads `root.children[0].selected: expected an integer`.
///
/// With `nullIsAbsent` false (a scenario's widget properties) a `null` is refused where a value is
/// expected, as for every field of a scenario: a field is given or left out. Recorded values take
/// `null` as an absent optional, as `JSONEncoder` may write one.
struct AuditValueDecoder {
    var nullIsAbsent = true

    func decode<T: Decodable>(_ type: T.Type, from value: AuditValue) throws -> T {
        try Node(value: value, codingPath: [], nullIsAbsent: nullIsAbsent).decode(type)
    }

    /// One value being decoded, at its path from the top.
    fileprivate struct Node: Decoder {
        let value: AuditValue
        let codingPath: [any CodingKey]
        let nullIsAbsent: Bool
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let fields) = value else { throw mismatch([String: Any].self) }
            return KeyedDecodingContainer(
                Keyed<Key>(fields: fields, codingPath: codingPath, nullIsAbsent: nullIsAbsent))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let values) = value else { throw mismatch([Any].self) }
            return Unkeyed(values: values, codingPath: codingPath, nullIsAbsent: nullIsAbsent)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(node: self) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            // `JSONEncoder`, which `describe` encodes with, writes a URL as its string.
            if type == URL.self {
                guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch(type) }
                return url as! T
            }
            return try T(from: self)
        }

        func mismatch(_ type: Any.Type) -> DecodingError {
            .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(value)"))
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: AuditValue]
        let codingPath: [any CodingKey]
        let nullIsAbsent: Bool
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func node(_ key: Key) throws -> Node {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
            }
            return Node(value: value, codingPath: codingPath + [key], nullIsAbsent: nullIsAbsent)
        }

        func decodeNil(forKey key: Key) throws -> Bool { nullIsAbsent && fields[key.stringValue] == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try node(key).decode(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try node(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try node(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            Node(value: .object(fields), codingPath: codingPath, nullIsAbsent: nullIsAbsent)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { try node(key) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let values: [AuditValue]
        let codingPath: [any CodingKey]
        let nullIsAbsent: Bool
        var currentIndex = 0
        var count: Int? { values.count }
        var isAtEnd: Bool { currentIndex >= values.count }

        private mutating func next(_ type: Any.Type) throws -> Node {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, DecodingError.Context(codingPath: codingPath, debugDescription: "too few elements"))
            }
            defer { currentIndex += 1 }
            return Node(
                value: values[currentIndex], codingPath: codingPath + [Index(intValue: currentIndex)],
                nullIsAbsent: nullIsAbsent)
        }

        mutating func decodeNil() throws -> Bool {
            guard nullIsAbsent, !isAtEnd, values[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decode(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try next([String: Any].self).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next([Any].self).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
    }

    private struct Single: SingleValueDecodingContainer {
        let node: Node
        var codingPath: [any CodingKey] { node.codingPath }

        func decodeNil() -> Bool { node.nullIsAbsent && node.value == .null }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let flag) = node.value else { throw node.mismatch(type) }
            return flag
        }

        func decode(_ type: String.Type) throws -> String {
            guard case .string(let text) = node.value else { throw node.mismatch(type) }
            return text
        }

        func decode(_ type: Double.Type) throws -> Double {
            switch node.value {
            case .double(let number): return number
            case .int(let number): return Double(number)
            default: throw node.mismatch(type)
            }
        }

        func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

        /// A whole number that fits `T`; `2.0` counts as `2`, as in JSON.
        private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            switch node.value {
            case .int(let number):
                if let exact = T(exactly: number) { return exact }
            case .double(let number):
                if let exact = T(exactly: number) { return exact }
            default:
                break
            }
            throw node.mismatch(type)
        }

        func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try node.decode(type) }
    }

    private struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue!)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
