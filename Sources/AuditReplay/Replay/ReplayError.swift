import AuditKit
import AuditModel
import AuditStorage

/// Why a session cannot be replayed.
public enum ReplayError: Error, CustomStringConvertible, Sendable {
    case replayOfReplay(session: Int64, of: Int64)
    case noScenario(session: Int64, reason: String)
    case unknownCallback(session: Int64, seq: Int64, name: String)
    case unreplayableInput(session: Int64, seq: Int64, reason: String)
    case nothingRecorded(session: Int64)
    /// The session has inputs and no delegate callback: an isolated replay, which compares what
    /// the delegate answers, would compare nothing.
    case noCallbacks(session: Int64)
    /// The session typed into a secure text view (at input `seq`), or one starts with a text (nil).
    case secureText(session: Int64, widget: String, seq: Int64?)

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
        case .noCallbacks(let session):
            "session \(session) recorded inputs but no delegate callback, so an isolated replay would compare "
                + "nothing; replay it in interaction mode, which compares what its inputs did (a widget asks its "
                + "delegate through its callback table, 'Widget.callbacks.x.ask(delegate, self, arguments)', "
                + "never by calling it directly)"
        case .secureText(let session, let widget, let seq?):
            "session \(session) typed into the secure text view \(widget) (input \(seq)), whose text is recorded "
                + "only as a keyed hash and cannot be typed again; it cannot be replayed"
        case .secureText(let session, let widget, nil):
            "session \(session) starts the secure text view \(widget) with a text recorded only as a keyed hash, "
                + "which cannot be set again; it cannot be replayed"
        }
    }
}
