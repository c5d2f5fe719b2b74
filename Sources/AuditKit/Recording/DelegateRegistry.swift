import AuditModel
import AuditStorage

/// The delegate implementations a scenario can be run with, by name.
///
/// An implementation is one object that may conform to any of the delegate protocols, like a
/// screen's controller: when a scenario runs, every widget whose protocol the object conforms to
/// gets it as its delegate. Build your own registry to record and replay your own delegates.
public struct DelegateRegistry: Sendable {
    public struct Entry: Sendable {
        public let name: String
        public let summary: String
        public let make: @Sendable () -> AnyObject
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    /// Adds (or replaces) the implementation called `name`.
    public mutating func register(_ name: String, summary: String, make: @escaping @Sendable () -> AnyObject) {
        entries.removeAll { $0.name == name }
        entries.append(Entry(name: name, summary: summary, make: make))
    }

    public func entry(named name: String) throws(RegistryError) -> Entry {
        guard let entry = entries.first(where: { $0.name == name }) else {
            throw RegistryError.unknownDelegate(name, known: entries.map(\.name))
        }
        return entry
    }
}

public enum RegistryError: Error, CustomStringConvertible, Sendable {
    case unknownDelegate(String, known: [String])
    case noDelegate

    public var description: String {
        switch self {
        case .unknownDelegate(let name, let known):
            "unknown delegate '\(name)' (registered: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        case .noDelegate:
            "the scenario names no delegate; pass --delegate NAME"
        }
    }
}
