/// Why a session cannot be replayed.
public enum ReplayError: Error, CustomStringConvertible, Sendable {
    case replayOfReplay(session: Int64, of: Int64)
    case noScenario(session: Int64, reason: String)
    case unknownCallback(session: Int64, seq: Int64, name: String)
    case unreplayableInput(session: Int64, seq: Int64, reason: String)
    case nothingRecorded(session: Int64)

    public var description: String {
        switch self {
        case .replayOfReplay(let session, let of):
            "session \(session) is a replay of session \(of); replay session \(of) instead"
        case .noScenario(let session, let reason):
            "session \(session) cannot be rebuilt from its stored scenario: \(reason)"
        case .unknownCallback(let session, let seq, let name):
            "session \(session) event \(seq) is \(name), which this build cannot invoke (not in its callback catalog)"
        case .unreplayableInput(let session, let seq, let reason):
            "session \(session) input \(seq) cannot be replayed: \(reason)"
        case .nothingRecorded(let session):
            "session \(session) recorded no complete input; there is nothing to replay"
        }
    }
}
