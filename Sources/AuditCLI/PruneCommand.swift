import AuditCore
import Foundation

extension Command {
    static let prune = Command(
        name: "prune", summary: "delete old sessions and what only they use, and give the space back",
        arguments: "--keep-last N | --before TIME | --label KEY=VALUE",
        options: [
            .option("--keep-last", "N", "keep the newest N recordings (and their replays); delete older ones"),
            .option("--before", "TIME", "delete sessions started before TIME (ISO 8601, 'today', 'recent')"),
            .option("--label", "KEY=VALUE", "delete sessions with this label; repeatable (all must match)"),
            .flag("--with-replays", "delete the replays of deleted sessions too (otherwise refuse)"),
        ],
        positionals: 0...0, formats: [.text, .json],
        discussion: """
            Deletes the sessions chosen, with what only they use, and gives the space back; a recording
            whose replays would be orphaned is kept unless --with-replays deletes them too.
            """,
        examples: [
            "prune --keep-last 100",
            "prune --before 2026-11-01 --with-replays",
            "prune --label branch=old-feature",
        ]
    ) { invocation in
        var criteria = PruneCriteria(labels: try invocation.labels(), withReplays: invocation.flag("--with-replays"))
        if invocation.option("--keep-last") != nil { criteria.keepLast = Int(try invocation.integer("--keep-last")) }
        if let text = invocation.option("--before") {
            guard let date = TimeBound.parse(text, as: .since, now: Date()) else {
                throw UsageError(
                    message: "--before takes an ISO 8601 time (2026-11-30, 2026-11-30T05:30:00Z), 'today' or 'recent', "
                        + "not '\(text)'")
            }
            criteria.before = date
        }
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
