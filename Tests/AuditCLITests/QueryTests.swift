import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `auditctl query`: read-only SQL over the database, and everything it must refuse.
@Suite("auditctl query")
struct QueryTests {
    /// The did-select callbacks of the example, with two arguments read out of the `args` JSON.
    static let didSelectSQL = """
        select seq, args->>'index' as idx, args->>'userInteracted' as ui from timeline
        where callback = 'segmentedControl(_:didSelectSegmentAt:userInteracted:)' order by seq
        """
    static let didSelectRows: [[Int]] = [[3, 1, 1], [8, 0, 1], [11, 2, 1], [14, 2, 1], [17, 0, 0], [22, 1, 0]]

    @Test func tableIsTheDefaultFormat() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let expected =
            "seq  idx  ui\n"
            + Self.didSelectRows.map {
                "\(String($0[0]).padding(toLength: 5, withPad: " ", startingAt: 0))\($0[1])    \($0[2])\n"
            }.joined()
        for extra in [[], ["--format", "table"], ["--format", "text"]] {
            let run = try sandbox.run(["query", Self.didSelectSQL] + extra)
            #expect(run.status == 0 && run.stderr == "", "\(run)")
            expectEqual(run.stdout, expected)
        }
    }

    @Test func csvFormat() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["query", Self.didSelectSQL, "--format", "csv"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        expectEqual(
            run.stdout,
            "seq,idx,ui\n"
                + Self.didSelectRows.map { $0.map(String.init).joined(separator: ",") + "\n" }.joined())
    }

    @Test func jsonFormat() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["query", Self.didSelectSQL, "--format", "json"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let expected = AuditValue.array(
            Self.didSelectRows.map { .object(["seq": .int($0[0]), "idx": .int($0[1]), "ui": .int($0[2])]) })
        try expectEqual(decodeJSON(run.stdout), expected)
        // JSON keeps the columns in the query's order.
        #expect(run.stdout.hasPrefix("[{\"seq\":3,\"idx\":1,\"ui\":1},"))
    }

    @Test func jsonKeepsTextNullsAndNumbersApart() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run([
            "query", "select 'a,\"b\"' as text, null as empty, 1.5 as real, x'00ff' as blob", "--format", "json",
        ])
        expectEqual(run.status, 0, "\(run)")
        try expectEqual(
            decodeJSON(run.stdout),
            .array([
                .object(["text": .string("a,\"b\""), "empty": .null, "real": .double(1.5), "blob": .string("00ff")])
            ]))
        let csv = try sandbox.run(["query", "select 'a,\"b\"' as text, null as empty", "--format", "csv"])
        expectEqual(csv.stdout, "text,empty\n\"a,\"\"b\"\"\",\n")
    }

    @Test func noRowsStillPrintsTheColumns() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let sql = "select id, name from sessions where id > 1"
        let outputs = try ["table", "csv", "json"].map { try sandbox.run(["query", sql, "--format", $0]) }
        expectEqual(outputs.map(\.status), [0, 0, 0])
        expectEqual(outputs.map(\.stdout), ["id  name\n", "id,name\n", "[]\n"])
    }

    @Test("the timeline view lists the recorded callbacks with their vetoes")
    func timelineView() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["query", "select callback, vetoed from timeline", "--format", "csv"])
        expectEqual(run.status, 0, "\(run)")
        let rows = parseCSV(run.stdout)
        expectEqual(rows.first, ["callback", "vetoed"])
        expectEqual(rows.count, EndToEndTests.exampleEvents + 1)
        expectEqual(rows.filter { $0 == [EndToEndTests.shouldSelect, "1"] }.count, 1)
        expectEqual(rows.filter { $0 == [EndToEndTests.shouldSelect, "0"] }.count, 7)
        // Only callbacks that can veto have a veto column; inputs and did-callbacks are null.
        #expect(rows.filter { $0[1] == "" }.map { $0[0] }.allSatisfy { $0 != EndToEndTests.shouldSelect })

        let columns = try sandbox.run(["query", "select name from pragma_table_info('timeline')", "--format", "csv"])
        expectEqual(
            columns.stdout.split(separator: "\n").map(String.init),
            [
                "name", "session", "seq", "t_ms", "kind", "widget", "widget_kind", "protocol", "callback", "args",
                "result",
                "vetoed", "implemented", "duration_us", "parent_seq", "answer_kind", "overridden", "later", "answers",
            ], "\(columns)")
    }

    // MARK: refused

    struct Refusal: Sendable, CustomTestStringConvertible {
        let sql: String
        let message: String
        var testDescription: String { sql }
    }

    static let refusals: [Refusal] = [
        Refusal(
            sql: "insert into sessions (scenario, scenario_source, delegate, started_at) values ('a', 'b', 'c', 'd')",
            message: "only SELECT statements that read are allowed"),
        Refusal(sql: "update sessions set name = 'changed'", message: "only SELECT statements that read are allowed"),
        Refusal(sql: "delete from events", message: "only SELECT statements that read are allowed"),
        Refusal(sql: "drop view timeline", message: "only SELECT statements that read are allowed"),
        Refusal(sql: "create temp table scratch (x)", message: "only SELECT statements that read are allowed"),
        Refusal(sql: "attach 'attached.sqlite' as other", message: "ATTACH and DETACH are not allowed"),
        Refusal(sql: "vacuum into 'copy.sqlite'", message: "only read-only statements are allowed"),
        Refusal(sql: "pragma query_only = 0", message: "PRAGMA query_only is not allowed (only pragmas that read)"),
        Refusal(
            sql: "pragma writable_schema = 1", message: "PRAGMA writable_schema is not allowed (only pragmas that read)"
        ),
        Refusal(
            sql: "pragma journal_mode = delete", message: "PRAGMA journal_mode is not allowed (only pragmas that read)"),
        Refusal(
            sql: "select * from pragma_journal_mode('delete')",
            message: "the pragma function pragma_journal_mode is not allowed (only pragmas that read)"),
        Refusal(sql: "begin", message: "transactions are not allowed"),
        Refusal(sql: "begin immediate", message: "transactions are not allowed"),
        Refusal(sql: "savepoint s", message: "transactions are not allowed"),
        Refusal(sql: "select 1; select 2", message: "give exactly one SQL statement"),
        Refusal(
            sql: "select 1; delete from events", message: "give exactly one SQL statement"),
        Refusal(
            sql: "select 1; update sessions set name = 'changed'", message: "give exactly one SQL statement"),
        Refusal(sql: "select load_extension('libevil')", message: "the function load_extension is not allowed"),
        Refusal(
            sql:
                "with recursive forever(x) as (select 1 union all select x + 1 from forever) select count(*) from forever",
            message: "stopped at the 1.0 seconds deadline"),
    ]

    @Test("refused SQL exits 2 and leaves the database byte-identical", arguments: refusals)
    func refused(_ refusal: Refusal) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        // Every statement names files by absolute path, so a file written anywhere would show up here.
        let sql = refusal.sql.replacingOccurrences(of: "'copy.sqlite'", with: "'\(sandbox.path("copy.sqlite"))'")
            .replacingOccurrences(of: "'attached.sqlite'", with: "'\(sandbox.path("attached.sqlite"))'")
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let listing = try sandbox.listing()

        // The runaway query is stopped by the deadline --timeout gives, which its message names
        // (the default one would say 10.0 seconds); ReadOnlyQueryTests checks with a clock moved by
        // hand that it falls neither early nor late.
        let run = try sandbox.run(["query", sql, "--timeout", "1"])
        expectError(run, "query refused: \(refusal.message)")

        expectEqual(sandbox.bytes("audit.sqlite"), before, "the database changed")
        #expect((sandbox.bytes("audit.sqlite-wal") ?? Data()).isEmpty, "the query wrote to the WAL")
        #expect(!sandbox.exists("copy.sqlite") && !sandbox.exists("attached.sqlite"))
        #expect(try sandbox.listing().subtracting(listing).isSubset(of: ["audit.sqlite-wal", "audit.sqlite-shm"]))
        // The data is intact too, as the next reader sees it.
        let sessions = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions()
        expectEqual(sessions.map(\.events), [EndToEndTests.exampleEvents])
        try expectEqual(AuditStore(path: sandbox.path("audit.sqlite"), access: .read).timeline(of: 1).count, 23)
    }

    @Test(
        "pragmas that only read are allowed",
        arguments: ["pragma table_info(sessions)", "select name from pragma_table_info('events') where pk > 0"])
    func readOnlyPragma(sql: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let run = try sandbox.run(["query", sql, "--format", "csv"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        #expect(run.stdoutLines.count > 2)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test func sqlErrorsAreOneLine() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        expectError(try sandbox.run(["query", "select nope from timeline"]), startingWith: "no such column: nope")
        expectError(try sandbox.run(["query", "select * from\nnowhere"]), startingWith: "no such table: nowhere")
        for sql in ["", "  ;"] {
            let empty = try sandbox.run(["query", sql])
            expectError(empty, startingWith: "")
            expectEqual(empty.stderr, "auditctl: error: query refused: give exactly one SQL statement\n", "\(empty)")
        }
    }
}
