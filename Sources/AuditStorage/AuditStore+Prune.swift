import AuditModel
import Foundation

/// Which sessions `prune` deletes: any of the criteria given (at least one).
public struct PruneCriteria: Sendable {
    /// Keep the newest N recordings (sessions that are not replays); delete the older ones.
    public var keepLast: Int?
    /// Delete sessions started before this time.
    public var before: Date?
    /// Delete sessions with every one of these labels.
    public var labels: [String: String] = [:]
    /// Delete the replays of deleted sessions too, rather than refuse.
    public var withReplays = false

    public init(keepLast: Int? = nil, before: Date? = nil, labels: [String: String] = [:], withReplays: Bool = false) {
        self.keepLast = keepLast
        self.before = before
        self.labels = labels
        self.withReplays = withReplays
    }

    var isEmpty: Bool { keepLast == nil && before == nil && labels.isEmpty }
}

/// Why `prune` deleted nothing.
public enum PruneError: Error, CustomStringConvertible, Sendable {
    case noCriterion
    /// Deleting would leave these replays without the session they replayed.
    case wouldOrphan(replays: [Int64])
    /// A chosen session is still being recorded.
    case recording(session: Int64)

    public var description: String {
        switch self {
        case .noCriterion:
            "prune needs a criterion: --keep-last N, --before DATE or --label KEY=VALUE"
        case .wouldOrphan(let replays):
            "the sessions chosen have replays (\(replays.map(String.init).joined(separator: ", "))) that would lose "
                + "what they replayed; add --with-replays to delete them too"
        case .recording(let session):
            "session \(session) is still being recorded; it is not deleted"
        }
    }
}

extension AuditStore {
    /// Deletes the sessions `criteria` choose, with their events, widgets and labels, and the
    /// callback names no event uses any more, in one transaction; then gives the space back
    /// (`VACUUM`). A replay whose original goes is deleted with it only with `withReplays`,
    /// otherwise nothing is deleted. Returns the ids deleted, in order.
    ///
    /// - Complexity: O(*s* + *N*): the *s* sessions chosen among, and `VACUUM` rewriting the whole
    ///   database of *N* rows, whatever was deleted.
    public func prune(_ criteria: PruneCriteria) throws -> [Int64] {
        guard !criteria.isEmpty else { throw PruneError.noCriterion }
        let all = try sessions()
        var chosen = Set<Int64>()
        if let keep = criteria.keepLast {
            chosen.formUnion(all.filter { $0.replayOf == nil }.dropLast(keep).map(\.id))
        }
        if let before = criteria.before {
            let bound = Self.storedTimestamp(before)
            chosen.formUnion(all.filter { $0.startedAt < bound }.map(\.id))
        }
        if !criteria.labels.isEmpty {
            chosen.formUnion(all.filter { $0.has(criteria.labels) }.map(\.id))
        }
        // Replays of what goes, and replays of those: each replay names its original by
        // `replay_of`, and an isolated one shares its events (`events_from`).
        var replays = Set<Int64>()
        var frontier = chosen
        while !frontier.isEmpty {
            let next: Set<Int64> = Set(
                all.filter { session in session.replayOf.map { frontier.contains($0) } ?? false }.map(\.id)
            ).subtracting(chosen).subtracting(replays)
            replays.formUnion(next)
            frontier = next
        }
        if !replays.isEmpty {
            guard criteria.withReplays else { throw PruneError.wouldOrphan(replays: replays.sorted()) }
            chosen.formUnion(replays)
        }
        if let live = all.first(where: { chosen.contains($0.id) && $0.status == .recording }) {
            throw PruneError.recording(session: live.id)
        }
        let deleted = chosen.sorted()
        guard !deleted.isEmpty else { return [] }
        try connection.transaction {
            for id in deleted {
                for table in ["events", "widgets", "session_labels"]
                where table != "session_labels" || hasSessionIdentity {
                    try connection.cached("DELETE FROM \(table) WHERE session = ?").execute([.integer(id)])
                }
                try connection.cached("DELETE FROM sessions WHERE id = ?").execute([.integer(id)])
            }
            try connection.execute("DELETE FROM callbacks WHERE id NOT IN (SELECT DISTINCT callback FROM events)")
            forgetCallbackNames()
        }
        try connection.execute("VACUUM")
        return deleted
    }
}

extension AuditStore {
    /// An instant in the form the store writes `started_at` (`2026-11-30T05:30:34.123Z`), which
    /// sorts as text in time order.
    package static func storedTimestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        return formatter.string(from: date)
    }
}
