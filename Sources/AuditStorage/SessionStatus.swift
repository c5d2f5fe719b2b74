import AuditModel

/// Where a session's recording stands, as `sessions.status` stores it.
public enum SessionStatus: String, Sendable, Codable, CaseIterable {
    /// Its recorder is still writing it (or died without saying so: see `SessionSummary.status`).
    case recording
    /// Its recorder finished and lost nothing.
    case complete
    /// Its recording stopped before the end, or lost events: what is stored is a prefix of it.
    case interrupted

    /// The status a stored text names; a text this build does not know (a damaged row) reads as
    /// `interrupted`, the one that promises least.
    init(stored text: String?) {
        self = text.flatMap(Self.init(rawValue:)) ?? .interrupted
    }
}
