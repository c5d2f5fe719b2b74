import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Hardened read-only query")
struct ReadOnlyQueryTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    init() throws {
        _ = try ScenarioRunner.record(
            try Examples.checkout(), delegate: nil, registry: .examples, databasePath: folder.path("audit.sqlite"))
    }

    @Test func selectsFromTimelineWithJSONOperators() throws {
        let result = try ReadOnlyQuery.run(
            "SELECT args ->> 'index' AS i, vetoed FROM timeline WHERE vetoed AND protocol = 'SegmentedControlDelegate' ORDER BY seq",
            databasePath: database)
        expectEqual(result.columns, ["i", "vetoed"])
        expectEqual(result.rows, [[.integer(2), .integer(1)]])
    }

    @Test func readOnlyPragmaFunctionsAndRecursiveCTEsWork() throws {
        let columns = try ReadOnlyQuery.run("SELECT name FROM pragma_table_info('timeline')", databasePath: database)
        #expect(columns.rows.map { $0[0] }.contains(.text("callback")))
        let count = try ReadOnlyQuery.run(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100) SELECT count(*) FROM n",
            databasePath: database)
        expectEqual(count.rows, [[.integer(100)]])
    }

    @Test(arguments: [
        "INSERT INTO sessions (scenario, scenario_source, delegate, started_at) VALUES ('x', '', 'x', 'now')",
        "UPDATE sessions SET name = 'x'",
        "DELETE FROM events",
        "DROP TABLE events",
        "CREATE TEMP TABLE t (x)",
        "ATTACH '$DIR/other.sqlite' AS other",
        "VACUUM INTO '$DIR/copy.sqlite'",
        "PRAGMA query_only = 0",
        "PRAGMA writable_schema = 1",
        "PRAGMA journal_mode = DELETE",
        "SELECT * FROM pragma_query_only",
        "BEGIN",
        "SELECT 1; SELECT 2",
        "SELECT load_extension('libx')",
        "UPDATE sqlite_master SET sql = ''",
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n",
    ])
    func refusesAndLeavesTheFileByteIdentical(_ sql: String) throws {
        let before = fileBytes(database)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        let sql = sql.replacingOccurrences(of: "$DIR", with: folder.url.path)
        #expect(throws: StoreError.self) {
            try ReadOnlyQuery.run(sql, databasePath: database, deadline: .milliseconds(300))
        }
        expectEqual(fileBytes(database), before)
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter {
            !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
        }
        expectEqual(after.sorted(), files.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
    }

    /// The deadline falls exactly `deadline` after the start: a query that never ends goes on while
    /// the clock, moved by hand, reads the deadline itself, and is stopped at the first reading one
    /// nanosecond past it — not before (a deadline too early or compared with `>=`), not later (a
    /// deadline too late, or counted in another unit, stops it only when the clock jumps far ahead).
    @Test func theDeadlineFallsExactlyItsDurationAfterTheStart() throws {
        let start: Int64 = 5_000_000_000
        let atTheDeadline = 40
        let readings = Mutex(0)
        let clock = {
            let reading = readings.withLock {
                $0 += 1
                return $0
            }
            switch reading {
            case 1: return start
            case 2...(1 + atTheDeadline): return start + 1_000_000_000
            case (2 + atTheDeadline)...(100 + atTheDeadline): return start + 1_000_000_001
            default: return Int64.max / 2
            }
        }
        let endless = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"
        do {
            let result = try ReadOnlyQuery.run(endless, databasePath: database, deadline: .seconds(1), clock: clock)
            Issue.record("an endless query returned \(result)")
        } catch {
            guard case .queryRefused(let reason) = error else { throw error }
            #expect(reason.contains("deadline"), "\(reason)")
        }
        expectEqual(readings.withLock { $0 }, 2 + atTheDeadline)
    }
}
