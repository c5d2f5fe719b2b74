import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `merge`: sessions of other databases copied into one, renumbered, replay links kept, each
/// session once however often it is merged; a bad source merges nothing.
@Suite("auditctl merge")
struct MergeTests {
    /// Two databases, each a recording and its replay against checkout.v2.
    static func twoDatabases() throws -> Sandbox {
        let sandbox = try Sandbox()
        for database in ["a.sqlite", "b.sqlite"] {
            try sandbox.recordExample(database: database)
            try expectEqual(
                sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--db", database]).status, 1)
        }
        return sandbox
    }

    @Test func sessionsAreCopiedRenumberedAndOnlyOnce() throws {
        let sandbox = try Self.twoDatabases()
        let merged = try sandbox.run(["merge", "a.sqlite", "b.sqlite", "--into", "all.sqlite"])
        expectEqual(
            merged.stdout, "a.sqlite: merged 2 sessions as 1, 2\nb.sqlite: merged 2 sessions as 3, 4\n", "\(merged)")
        let listed = try decodeJSON(try sandbox.run(["sessions", "--db", "all.sqlite", "--format", "json"]).stdout)
        guard case .array(let rows) = listed else { throw SandboxError(description: "\(listed)") }
        expectEqual(rows.map { $0["replay_of"] }, [.null, .int(1), .null, .int(3)])
        // Each copy is the session it was: the replays still differ from their recordings the same way.
        for (original, copy) in [("a.sqlite", "1 2"), ("b.sqlite", "3 4")] {
            let before = try decodeJSON(
                try sandbox.run(["diff", "1", "2", "--db", original, "--format", "json"]).stdout)
            let ids = copy.split(separator: " ").map(String.init)
            let after = try decodeJSON(
                try sandbox.run(["diff", ids[0], ids[1], "--db", "all.sqlite", "--format", "json"]).stdout)
            expectEqual(after["differences"], before["differences"])
            expectEqual(after["identical"], .bool(false))
        }
        let exported = try sandbox.run(["export", "--db", "all.sqlite"]).stdout
        let again = try sandbox.run(["merge", "b.sqlite", "a.sqlite", "--into", "all.sqlite"])
        #expect(again.stdout.contains("merged 0 sessions; skipped 2 already there"), "\(again)")
        try expectEqual(sandbox.run(["export", "--db", "all.sqlite"]).stdout, exported)
    }

    @Test func badSourcesMergeNothing() throws {
        let sandbox = try Self.twoDatabases()
        try sandbox.run(["merge", "a.sqlite", "--into", "all.sqlite"]).expectSuccess()
        let before = try #require(sandbox.bytes("all.sqlite"))
        expectError(
            try sandbox.run(["merge", "b.sqlite", "all.sqlite", "--into", "all.sqlite"]),
            "all.sqlite is the target itself; merge other databases into it")
        try sandbox.write("notes.txt", String(repeating: "not a database at all. ", count: 20))
        expectError(
            try sandbox.run(["merge", "b.sqlite", "notes.txt", "--into", "all.sqlite"]),
            "cannot open notes.txt: file is not a database")
        try sandbox.sqlite3("b.sqlite", "INSERT INTO schema_migrations VALUES (9999, 'future', 'x', 'now')")
        expectError(
            try sandbox.run(["merge", "b.sqlite", "--into", "all.sqlite"]),
            "b.sqlite was written by a newer auditctl (migration 9999 'future' is unknown to this build); "
                + "nothing was changed")
        expectEqual(sandbox.bytes("all.sqlite"), before)
        expectError(try sandbox.run(["merge", "a.sqlite"]), "--into TARGET is required")
    }
}
