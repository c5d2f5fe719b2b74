import CSQLite
import Testing

@testable import AuditCLI

/// How the command line configures SQLite for its process, before a command opens a database.
/// Each test runs in a process of its own, where SQLite has not been used yet, as in `auditctl`.
@Suite("auditctl's SQLite configuration")
struct SQLiteConfigurationTests {
    /// The memory SQLite counts in use while it holds a table of a few rows in a database in
    /// memory.
    static func memoryCountedInUse() -> Int64 {
        var handle: OpaquePointer?
        precondition(sqlite3_open(":memory:", &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        let sql = "CREATE TABLE t (x); INSERT INTO t SELECT randomblob(1000) FROM (VALUES (1), (2), (3));"
        precondition(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK)
        return sqlite3_memory_used()
    }

    /// Their mutex, shared by every connection of the process, is what the jobs of `replay --all`
    /// queued for: with the statistics off, SQLite counts no memory.
    @Test func everyCommandButQueryRunsWithoutMemoryStatistics() async {
        await #expect(processExitsWith: .success) {
            AuditCommandLine.configureSQLite(forCommand: "replay")
            precondition(SQLiteConfigurationTests.memoryCountedInUse() == 0, "SQLite still counts its memory")
        }
    }

    /// `query` caps SQLite's heap, which SQLite enforces only while it counts its memory.
    @Test func queryKeepsMemoryStatistics() async {
        await #expect(processExitsWith: .success) {
            AuditCommandLine.configureSQLite(forCommand: "query")
            precondition(SQLiteConfigurationTests.memoryCountedInUse() > 0, "SQLite counts no memory")
        }
    }
}
