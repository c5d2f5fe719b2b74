import AuditModel
import AuditStorage

/// A scenario file that cannot be run, with where the problem is: a line and column for JSON
/// syntax, or the path of the bad field (`steps[2].segment`).
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public let location: String
    public let message: String

    public init(at location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
