/// How a stored session is replayed against a candidate delegate.
public struct ReplayMode: Sendable, Hashable, CustomStringConvertible {
    private enum Mode: String {
        case interaction
        case isolated
    }

    private let mode: Mode

    /// Rebuild the widget tree, install the candidate under audit, drive the recorded inputs
    /// again: the candidate's answers change what the widgets do next.
    public static let interaction = ReplayMode(mode: .interaction)
    /// Drive the recorded inputs again with the candidate as delegate, ask it every callback the
    /// recording made and compare its answers one by one, but give the widgets the recorded
    /// answers: the run keeps the recording's course, and the candidate sees its widgets in the
    /// state the recording saw.
    public static let isolated = ReplayMode(mode: .isolated)

    public init?(rawValue: String) {
        guard let mode = Mode(rawValue: rawValue) else { return nil }
        self.mode = mode
    }

    private init(mode: Mode) {
        self.mode = mode
    }

    public var rawValue: String { mode.rawValue }
    public var description: String { mode.rawValue }
}
