import AuditCore
import Foundation
import SharedTestSupport
import Testing

extension HostileInputTests {
    // MARK: queries

    struct HostileQuery: Sendable, CustomTestStringConvertible {
        let name: String
        let sql: String
        /// The start of the error line after `auditctl: error: `.
        let message: String
        var testDescription: String { name }
    }

    static let queries: [HostileQuery] = [
        HostileQuery(
            name: "5,000 nested parentheses",
            sql: "select " + String(repeating: "(", count: 5_000) + "1"
                + String(repeating: ")", count: 5_000), message: "parser stack overflow (in: select ((((("),
        HostileQuery(
            name: "an expression 5,000 deep",
            sql: "select " + Array(repeating: "1", count: 5_000).joined(separator: "+"),
            message: "Expression tree is too large (maximum depth 100) (in: select 1+1+1"),
        HostileQuery(
            name: "150 nested function calls",
            sql: "select " + String(repeating: "abs(", count: 150) + "1" + String(repeating: ")", count: 150),
            message: "parser stack overflow (in: select abs(abs("),
        HostileQuery(
            name: "a 2,000-byte LIKE pattern", sql: "select 'a' like '" + String(repeating: "%a", count: 1_000) + "'",
            message: "LIKE or GLOB pattern too complex (in: select 'a' like '%a%a"),
        HostileQuery(
            name: "a 2,000-byte GLOB pattern", sql: "select 'a' glob '" + String(repeating: "*a", count: 1_000) + "'",
            message: "LIKE or GLOB pattern too complex"),
        HostileQuery(
            name: "a LIKE pattern made at run time",
            sql: "select count(*) from timeline where args like printf('%.*c', 100000, '%')",
            message: "LIKE or GLOB pattern too complex"),
        HostileQuery(
            name: "a 120 KB statement", sql: "select 1 /* " + String(repeating: "x", count: 120_000) + " */",
            message: "query refused: the statement is 120015 bytes long; the limit is 100000"),
        HostileQuery(
            name: "5,000 result columns", sql: "select " + Array(repeating: "1", count: 5_000).joined(separator: ","),
            message: "too many columns in result set"),
        HostileQuery(
            // Its rows are filtered out, so only the deadline can stop it (rows it kept would meet the
            // result's size limit first on a fast machine, the deadline first on a slow one).
            name: "an endless recursive CTE",
            sql: "with recursive f(x) as (select 1 union all select x + 1 from f) select x from f where x < 0",
            message: "query refused: stopped at the 1.0 seconds deadline"),
        HostileQuery(
            name: "a six-way cross join",
            sql: "select count(*) from events a, events b, events c, events d, events e, "
                + "events f", message: "query refused: stopped at the 1.0 seconds deadline"),
        HostileQuery(
            name: "a string doubled without end",
            sql: "with recursive f(s) as (select 'x' union all select s || s from f) select length(s) from f",
            message: "string or blob too big"),
        HostileQuery(
            name: "a gigabyte of random bytes", sql: "select randomblob(1000000000)", message: "string or blob too big"),
        HostileQuery(
            name: "a gigabyte of zeros", sql: "select zeroblob(1000000000)", message: "string or blob too big"),
        HostileQuery(
            name: "a result over 128 MiB", sql: "select zeroblob(30000000) from timeline",
            message: "query refused: the result is larger than 128 MiB; narrow it or add a LIMIT"),
        HostileQuery(
            // instr is quadratic and SQLite checks the deadline only between its steps: this one call
            // would run for minutes; the command line ends it at the deadline and its grace.
            name: "one quadratic instr over megabytes",
            sql:
                "with s(x) as (select replace(hex(zeroblob(2000000)), '0', 'a')) select instr(x || x, x || 'b') from s",
            message: "query refused: stopped at the 1.0 seconds deadline"),
        HostileQuery(
            name: "fts3_tokenizer, which returns a code address", sql: "select hex(fts3_tokenizer('simple'))",
            message: "query refused: the function fts3_tokenizer is not allowed"),
        HostileQuery(
            name: "JSON nested 3,000 deep",
            sql: "select json('" + String(repeating: "[", count: 3_000) + String(repeating: "]", count: 3_000) + "')",
            message: "malformed JSON"),
    ]

    static let hundredBlobs = Array(repeating: "randomblob(32000000)", count: 100).joined(separator: ", ")
    static let distinctGigabyte =
        "with recursive n(x) as (select 1 union all select x + 1 from n where x < 10000) "
        + "select count(distinct randomblob(100000)) from n"

    @Test("hostile SQL is refused in one line, within its deadline, the database byte-identical", arguments: queries)
    func hostileQuery(_ query: HostileQuery) throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let listing = try sandbox.listing()
        // A query stopped by its deadline says which one: the 1 s --timeout gives, not the default.
        let run = try sandbox.run(["query", query.sql, "--timeout", "1"])
        expectError(run, startingWith: query.message)
        #expect(run.stderr.count < 400, "the line repeats the whole statement")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        #expect((sandbox.bytes("audit.sqlite-wal") ?? Data()).isEmpty)
        #expect(try sandbox.listing().subtracting(listing).isSubset(of: ["audit.sqlite-wal", "audit.sqlite-shm"]))
    }

    @Test(
        "the costliest queries stay under 512 MB",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"),
        arguments: [
            (["select " + hundredBlobs], "query refused: it needs more than the 256 MiB"),
            // Spilled to temporary files before; temporary storage now stays in memory, under its limit.
            ([distinctGigabyte], "query refused: it needs more than the 256 MiB"),
            // A result just under its limit, every blob written out as hex: the largest output.
            (["select randomblob(1000000) from timeline limit 125", "--format", "json"], nil),
            (["select randomblob(1000000) from timeline limit 125"], nil),
        ])
    func costliestQueries(_ arguments: [String], refusal: String?) throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        let (run, kilobytes) = try Self.peakMemory(sandbox, ["query"] + arguments + ["--timeout", "60"])
        if let refusal {
            expectError(run, startingWith: refusal)
        } else {
            expectEqual(run.status, 0, "\(run.stderr)")
        }
        #expect(kilobytes < 512 * 1024, "peak RSS \(kilobytes) KiB")
    }

    @Test func aTimeoutPastFiveMinutesIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        expectError(
            try sandbox.run(["query", "select 1", "--timeout", "301"]),
            "--timeout takes a number of seconds up to 300, not '301'")
    }
}
