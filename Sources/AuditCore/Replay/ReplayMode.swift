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
    /// Call each recorded callback on the candidate with the recorded arguments, in order, and
    /// compare answers call by call; widgets are not driven (they hold the state each recorded
    /// input ended in).
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
