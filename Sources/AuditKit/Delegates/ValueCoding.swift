import AuditModel
import AuditStorage
import Foundation

/// How one Swift value is written into the audit log and read back for replay.
///
/// A strategy value (a pair of closures) rather than a protocol, so a callback table can say how
/// each argument is recorded without the argument's type knowing about auditing.
public struct ValueCoding<Value>: Sendable {
    public let encode: @Sendable (Value) -> AuditValue
    /// What a value must be, in words, for an error about a scenario's field: `a number`.
    public let expected: String
    private let decodeInTree: @Sendable (AuditValue, View?) -> Value?
    /// Why a value does not decode: the member it is about (nil for the value itself) and what was
    /// expected; nil when it decodes.
    let problem: @Sendable (AuditValue) -> PropertyProblem?

    public init(
        encode: @escaping @Sendable (Value) -> AuditValue, decode: @escaping @Sendable (AuditValue) -> Value?,
        expected: String = "a value of the recorded shape"
    ) {
        self.init(encode: encode, decodeIn: { value, _ in decode(value) }, expected: expected)
    }

    /// For values recorded as references into the widget tree (another widget, by its path): the
    /// replayer passes the root of the tree it rebuilt, so `decode` can find the object.
    public init(
        encode: @escaping @Sendable (Value) -> AuditValue,
        decodeIn: @escaping @Sendable (_ value: AuditValue, _ root: View?) -> Value?,
        expected: String = "a value of the recorded shape"
    ) {
        self.encode = encode
        self.expected = expected
        decodeInTree = decodeIn
        problem = { decodeIn($0, nil) == nil ? PropertyProblem(nil, "expected \(expected)") : nil }
    }

    /// A coding whose values are objects read member by member (`shape`), so a scenario's mistake
    /// inside one is named at its own path (`translation.x: expected a number`).
    init(
        encode: @escaping @Sendable (Value) -> AuditValue, decode: @escaping @Sendable (AuditValue) -> Value?,
        expected: String, shape: FieldShape
    ) {
        self.init(
            encode: encode, decodeIn: { value, _ in decode(value) }, expected: expected,
            problem: { value in
                shape.problem(value, expected: expected)
                    ?? (decode(value) == nil ? PropertyProblem(nil, "expected \(expected)") : nil)
            })
    }

    private init(
        encode: @escaping @Sendable (Value) -> AuditValue, decodeIn: @escaping @Sendable (AuditValue, View?) -> Value?,
        expected: String, problem: @escaping @Sendable (AuditValue) -> PropertyProblem?
    ) {
        self.encode = encode
        self.expected = expected
        decodeInTree = decodeIn
        self.problem = problem
    }

    /// Reads a recorded value back; nil when it does not have this coding's shape.
    public func decode(_ value: AuditValue, in root: View? = nil) -> Value? { decodeInTree(value, root) }
}

extension ValueCoding where Value == Int {
    public static let int: ValueCoding = ValueCoding(
        encode: { .int($0) }, decode: { if case .int(let v) = $0 { v } else { nil } }, expected: "an integer")
}

extension ValueCoding where Value == Bool {
    public static let bool: ValueCoding = ValueCoding(
        encode: { .bool($0) }, decode: { if case .bool(let v) = $0 { v } else { nil } }, expected: "true or false")
}

extension ValueCoding where Value == String {
    public static let string: ValueCoding = ValueCoding(
        encode: { .string($0) }, decode: { if case .string(let v) = $0 { v } else { nil } }, expected: "a string")
}

extension ValueCoding where Value == Double {
    public static let double: ValueCoding = ValueCoding(
        encode: { .double($0) },
        decode: {
            switch $0 {
            case .double(let v): v
            case .int(let v): Double(v)
            default: nil
            }
        }, expected: "a number")
}

extension ValueCoding {
    /// An optional value, recorded as JSON `null` when absent.
    public static func optional<Wrapped>(_ wrapped: ValueCoding<Wrapped>) -> ValueCoding<Wrapped?>
    where Value == Wrapped? {
        ValueCoding<Wrapped?>(
            encode: { $0.map(wrapped.encode) ?? .null },
            decodeIn: { value, root in
                if case .null = value { return .some(nil) }
                return wrapped.decode(value, in: root).map { .some($0) }
            }, expected: "\(wrapped.expected) or null")
    }
}

extension ValueCoding where Value == Point {
    /// `{"x":X,"y":Y}`, both doubles.
    public static let point: ValueCoding = ValueCoding(
        encode: { .object(["x": .double($0.x), "y": .double($0.y)]) },
        decode: { value in
            guard let x = value["x"].flatMap({ ValueCoding<Double>.double.decode($0) }),
                let y = value["y"].flatMap({ ValueCoding<Double>.double.decode($0) })
            else { return nil }
            return Point(x: x, y: y)
        }, expected: #"{"x": number, "y": number}"#, shape: .point)
}

extension ValueCoding where Value == IndexPath {
    /// `{"section":S,"row":R}` for a table's index path (two indexes); any other index path, which a
    /// delegate may answer, as the array of its indexes.
    public static let indexPath: ValueCoding = ValueCoding(
        encode: { path in
            path.count == 2
                ? .object(["section": .int(path[0]), "row": .int(path[1])]) : .array(path.map(AuditValue.int))
        },
        decode: { value in
            switch value {
            case .object(let fields) where fields.count == 2:
                guard case .int(let section) = fields["section"], case .int(let row) = fields["row"] else { return nil }
                return IndexPath(row: row, section: section)
            case .array(let indexes):
                let values = indexes.compactMap { if case .int(let index) = $0 { index } else { nil } }
                return values.count == indexes.count && values.count != 2 ? IndexPath(indexes: values) : nil
            default:
                return nil
            }
        }, expected: #"{"section": integer, "row": integer}"#, shape: .indexPath)
}

extension ValueCoding {
    /// This coding for another type `T`, recorded as `Value`: `decode` turns a recorded value into a
    /// `T` (nil when it is not one), `encode` turns a `T` into the value to record.
    ///
    /// An enum recorded by its raw value, in one line:
    ///
    /// ```swift
    /// enum Level: Int { case low, high }
    /// let level: ValueCoding<Level> = ValueCoding<Int>.int.map(Level.init(rawValue:), \.rawValue)
    /// ```
    public func map<T>(
        _ decode: @escaping @Sendable (Value) -> T?, _ encode: @escaping @Sendable (T) -> Value
    ) -> ValueCoding<T> {
        ValueCoding<T>(
            encode: { self.encode(encode($0)) },
            decodeIn: { value, root in self.decode(value, in: root).flatMap(decode) }, expected: expected)
    }
}

extension ValueCoding where Value: Codable & Sendable {
    /// Any `Codable` value, recorded as its JSON encoding (an object for a struct, nested values
    /// included) and decoded back member by member: `arguments: .one("order", .codable)`.
    ///
    /// A value that does not encode (a non-finite `Double`) is recorded as `null`, which decodes to
    /// nothing.
    public static var codable: ValueCoding<Value> {
        @Sendable func encode(_ value: Value) -> AuditValue {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            guard let data = try? encoder.encode(value), let parsed = try? AuditValue.parse(json: data) else {
                return .null
            }
            return parsed
        }
        return ValueCoding(
            encode: encode, decodeIn: { value, _ in try? AuditValueDecoder().decode(Value.self, from: value) },
            expected: "a \(Value.self) object",
            problem: { value in
                let decoded: Value
                do {
                    decoded = try AuditValueDecoder().decode(Value.self, from: value)
                } catch let error as DecodingError {
                    let located = ScenarioError(decoding: error, at: "")
                    return PropertyProblem(located.location.isEmpty ? nil : located.location, located.message)
                } catch {
                    return PropertyProblem(nil, "\(error)")
                }
                // `Decodable` ignores members it does not know; a scenario names them (a typo).
                return FieldShape.firstIgnoredMember(value, encode(decoded), at: "").map {
                    PropertyProblem($0, "unknown field")
                }
            })
    }
}
