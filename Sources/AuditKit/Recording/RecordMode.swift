import AuditModel
import AuditStorage
import Foundation

/// When a behaviour check records a new baseline session instead of (or after) comparing with
/// the stored one — the record modes of snapshot testing.
///
/// Chosen by argument, or by the `AUDITCTL_RECORD` environment variable (`all`, `missing`,
/// `never`, `failed`); `missing` when neither says. Set `AUDITCTL_RECORD=never` in CI, so a
/// missing baseline fails instead of being recorded silently.
public struct RecordMode: Sendable, Hashable, CustomStringConvertible {
    private enum Mode: String, CaseIterable {
        case all
        case missing
        case never
        case failed
    }

    private let mode: Mode

    /// Record a new baseline every time; never compare.
    public static let all = RecordMode(mode: .all)
    /// Compare when a baseline exists; record one when none does.
    public static let missing = RecordMode(mode: .missing)
    /// Compare; a missing baseline is a failure. For CI.
    public static let never = RecordMode(mode: .never)
    /// Compare; when behaviour differs (or no baseline exists), record a new baseline.
    public static let failed = RecordMode(mode: .failed)

    public static let environmentVariable = "AUDITCTL_RECORD"

    public init?(rawValue: String) {
        guard let mode = Mode(rawValue: rawValue.lowercased()) else { return nil }
        self.mode = mode
    }

    private init(mode: Mode) {
        self.mode = mode
    }

    /// The mode `AUDITCTL_RECORD` names, `.missing` when it is unset or empty; nil when it names
    /// no mode.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> RecordMode?
    {
        guard let value = environment[environmentVariable], !value.isEmpty else { return .missing }
        return RecordMode(rawValue: value)
    }

    public var rawValue: String { mode.rawValue }
    public var description: String { mode.rawValue }
    public static var names: [String] { Mode.allCases.map(\.rawValue) }
}
