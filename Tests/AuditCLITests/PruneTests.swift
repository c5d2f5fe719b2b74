import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `prune`: deletes sessions and what only they use, gives the space back, and never orphans a
/// replay unless told to.
@Suite("auditctl prune")
struct PruneTests {
    static func ids(_ sandbox: Sandbox) throws -> [Int] {
        let listed = try decodeJSON(try sandbox.run(["sessions", "--format", "json"]).stdout)
        guard case .array(let rows) = listed else { return [] }
        return rows.compactMap { if case .int(let id)? = $0["id"] { id } else { nil } }
    }

    @Test func keepLastRefusesToOrphanAReplayThenDeletesItWhenTold() throws {
        let sandbox = try Sandbox()
        for device in ["a", "b", "c", "d"] {
            try sandbox.recordExample()
            try sandbox.sqlite3(
                "audit.sqlite",
                "INSERT INTO session_labels VALUES ((SELECT max(id) FROM sessions), 'device', '\(device)')")
        }
        try expectEqual(sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--isolated"]).status, 1)
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(
            try sandbox.run(["prune", "--keep-last", "2"]),
            "the sessions chosen have replays (5) that would lose what they replayed; add --with-replays to delete them too"
        )
        expectEqual(sandbox.bytes("audit.sqlite"), before)

        let pruned = try sandbox.run(["prune", "--keep-last", "2", "--with-replays"])
        expectEqual(pruned.stdout, "deleted 3 sessions: 1, 2, 5\n", "\(pruned)")
        try expectEqual(Self.ids(sandbox), [3, 4])
        try expectEqual(sandbox.run(["diff", "3", "4"]).status, 0)
        // Nothing is left of the deleted sessions, and the database holds together (sqlite3 fails
        // on the overflow otherwise).
        try sandbox.sqlite3(
            "audit.sqlite",
            "SELECT CASE WHEN (SELECT count(*) FROM events WHERE session NOT IN (SELECT id FROM sessions)) = 0 "
                + "AND (SELECT count(*) FROM widgets WHERE session NOT IN (SELECT id FROM sessions)) = 0 "
                + "AND (SELECT integrity_check FROM pragma_integrity_check) = 'ok' "
                + "THEN 1 ELSE abs(-9223372036854775808) END")
        #expect(try #require(sandbox.bytes("audit.sqlite")).count < before.count)

        try expectEqual(sandbox.run(["prune", "--label", "device=d"]).stdout, "deleted 1 session: 4\n")
        try expectEqual(Self.ids(sandbox), [3])
        try expectEqual(sandbox.run(["prune", "--before", "2000-01-01"]).stdout, "nothing to delete\n")
    }

    @Test(arguments: [
        ([], "prune needs a criterion: --keep-last N, --before DATE or --label KEY=VALUE"),
        (["--keep-last", "-1"], "--keep-last takes a positive integer, not '-1'"),
        (
            ["--before", "soon"],
            "--before takes an ISO 8601 time (2026-11-30, 2026-11-30T05:30:00Z), 'today' or 'recent', not 'soon'"
        ),
        (["--label", "x"], "--label takes KEY=VALUE (a key of letters, digits, _ . -), not 'x'"),
    ])
    func badCriteriaAreRefusedAndNothingIsDeleted(_ arguments: [String], message: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(try sandbox.run(["prune"] + arguments), message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }
}
