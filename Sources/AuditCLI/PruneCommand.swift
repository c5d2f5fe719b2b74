import AuditCore
import Foundation

extension Command {
    static let prune: Command = Command(
        name: "prune", summary: "delete old sessions and what only they use, and give the space back",
        arguments: "--keep-last N | --before TIME | --label KEY=VALUE",
        options: [
            Options.keepLast, Options.before,
            Options.label.withHelp("delete sessions with this label; repeatable (all must match)"),
            Options.withReplays,
        ],
        positionals: 0...0, formats: [.text, .json],
        discussion: """
            Deletes the sessions chosen, with what only they use, and gives the space back; a recording
            whose replays would be orphaned is kept unless --with-replays deletes them too.
            """,
        examples: { _ in
            [
                "prune --keep-last 100",
                "prune --before 2026-11-01 --with-replays",
                "prune --label branch=old-feature",
            ]
        }
    ) { invocation in
        var criteria = PruneCriteria(labels: try invocation.labels(), withReplays: invocation[Options.withReplays])
        criteria.keepLast = try invocation[Options.keepLast]
        criteria.before = try invocation[Options.before]
        guard criteria.keepLast != nil || criteria.before != nil || !criteria.labels.isEmpty else {
            throw UsageError(message: PruneError.noCriterion.description)
        }
        let store = try AuditStore(path: invocation.databasePath, access: .write)
        let deleted: [Int64]
        do {
            deleted = try store.prune(criteria)
        } catch let error as PruneError {
            throw UsageError(message: error.description)
        }
        if invocation.format == .json {
            invocation.output.line(orderedJSON([("deleted", .array(deleted.map { .int(Int($0)) }))]))
        } else {
            invocation.output.line(
                deleted.isEmpty
                    ? "nothing to delete"
                    : "deleted \(counted(deleted.count, "session")): \(deleted.map(String.init).joined(separator: ", "))"
            )
        }
        return ExitStatus.success
    }
}

extension Options {
    /// `prune --keep-last N`.
    static let keepLast = Option<Int>.positiveInteger(
        "--keep-last", "N", "keep the newest N recordings (and their replays); delete older ones",
        atMost: 1_000_000_000)
    /// `prune --before TIME`: the sessions started before it.
    static let before = Option<Date>.time(
        "--before", "delete sessions started before TIME (ISO 8601, 'today', 'recent')", as: .since)
    /// `prune --with-replays`.
    static let withReplays = Flag("--with-replays", "delete the replays of deleted sessions too (otherwise refuse)")
}
