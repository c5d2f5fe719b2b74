import AuditModel
import AuditStorage

/// Reads the fields of one JSON object, tracking the path for error messages and refusing fields
/// it was not asked for (a typo is an error, not a silently ignored key).
struct FieldReader {
    let path: String
    private let fields: [String: AuditValue]
    private var used: Set<String> = []

    init(_ value: AuditValue, at path: String) throws(ScenarioError) {
        guard case .object(let fields) = value else {
            throw ScenarioError(at: path.isEmpty ? "top level" : path, "expected an object")
        }
        self.path = path
        self.fields = fields
    }

    func location(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func optional(_ key: String) -> AuditValue? {
        used.insert(key)
        return fields[key]
    }

    mutating func required(_ key: String) throws(ScenarioError) -> AuditValue {
        guard let value = optional(key) else { throw ScenarioError(at: location(key), "missing required field") }
        return value
    }

    mutating func string(_ key: String) throws(ScenarioError) -> String {
        try Self.string(try required(key), at: location(key))
    }

    mutating func int(_ key: String) throws(ScenarioError) -> Int {
        try Self.int(try required(key), at: location(key))
    }

    mutating func bool(_ key: String, default value: Bool) throws(ScenarioError) -> Bool {
        guard let field = optional(key) else { return value }
        guard case .bool(let flag) = field else { throw ScenarioError(at: location(key), "expected true or false") }
        return flag
    }

    mutating func array(_ key: String) throws(ScenarioError) -> [AuditValue] {
        guard case .array(let values) = try required(key) else {
            throw ScenarioError(at: location(key), "expected an array")
        }
        return values
    }

    /// The fields no read has asked for yet, all marked as read: what a kind's own properties are.
    mutating func remaining() -> [String: AuditValue] {
        let rest = fields.filter { !used.contains($0.key) }
        used.formUnion(rest.keys)
        return rest
    }

    /// Fails on the first field that no read asked for.
    func finish() throws(ScenarioError) {
        if let unknown = fields.keys.filter({ !used.contains($0) }).sorted().first {
            throw ScenarioError(at: location(unknown), "unknown field")
        }
    }

    static func string(_ value: AuditValue, at location: String) throws(ScenarioError) -> String {
        guard case .string(let text) = value else { throw ScenarioError(at: location, "expected a string") }
        return text
    }

    static func int(_ value: AuditValue, at location: String) throws(ScenarioError) -> Int {
        guard case .int(let number) = value else { throw ScenarioError(at: location, "expected an integer") }
        return number
    }

    static func int(_ value: AuditValue, at location: String, atLeast minimum: Int) throws(ScenarioError) -> Int {
        let number = try int(value, at: location)
        guard number >= minimum else { throw ScenarioError(at: location, "must be at least \(minimum)") }
        return number
    }

    /// `[x, y, width, height]`, width and height not negative (the sign judged before the size,
    /// so -2e7 is told what -1 is told).
    mutating func quad(_ key: String) throws(ScenarioError) -> (Double, Double, Double, Double) {
        guard case .array(let values) = try required(key), values.count == 4 else {
            throw ScenarioError(at: location(key), "expected [x, y, width, height]")
        }
        var numbers: [Double] = []
        for (index, value) in values.enumerated() {
            if index >= 2, let given = ValueCoding<Double>.double.decode(value), given < 0 {
                throw ScenarioError(at: location(key), "width and height must not be negative")
            }
            numbers.append(try Self.number(value, at: "\(location(key))[\(index)]"))
        }
        return (numbers[0], numbers[1], numbers[2], numbers[3])
    }

    /// The largest coordinate or size a scenario may give, so geometry stays finite.
    static let maximumMagnitude = 10_000_000.0

    static func number(_ value: AuditValue, at location: String) throws(ScenarioError) -> Double {
        let number: Double
        switch value {
        case .int(let value): number = Double(value)
        case .double(let value) where value.isFinite: number = value
        default: throw ScenarioError(at: location, "expected a number")
        }
        if let problem = magnitudeProblem(number) { throw ScenarioError(at: location, problem) }
        return number
    }

    /// Why `number` is beyond `maximumMagnitude`; nil when it is within.
    static func magnitudeProblem(_ number: Double) -> String? {
        abs(number) <= maximumMagnitude
            ? nil : "must be between -\(Int(maximumMagnitude)) and \(Int(maximumMagnitude))"
    }
}
