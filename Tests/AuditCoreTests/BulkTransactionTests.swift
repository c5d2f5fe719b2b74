import CSQLite
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Importing or merging into a database that holds no session yet writes the file directly
/// (`Connection.transactionBypassingWAL`), and leaves it in WAL mode as every other write does.
@Suite("Writing into a new database past the WAL")
struct BulkTransactionTests {
    let folder = TemporaryDirectory()

    func journalMode(_ store: AuditStore) throws -> String? {
        try store.connection.scalarText("PRAGMA journal_mode")
    }

    @Test func aConnectionAloneWritesThroughARollbackJournalAndReturnsToTheWAL() throws {
        let store = try AuditStore(path: folder.path("new.sqlite"), access: .write)
        let during = try store.connection.transactionBypassingWAL { try journalMode(store) }
        expectEqual(during, "delete")
        try expectEqual(journalMode(store), "wal")
    }

    /// SQLite leaves the WAL only for a connection alone with the database: with a reader open,
    /// the transaction goes through the WAL, and the reader is never locked out.
    @Test func withAnotherConnectionOpenTheWALStays() throws {
        let path = folder.path("shared.sqlite")
        let store = try AuditStore(path: path, access: .write)
        let reader = try AuditStore(path: path, access: .read)
        let during = try store.connection.transactionBypassingWAL {
            try store.connection.execute("INSERT INTO callbacks (kind, protocol, name) VALUES ('input', 'P', 'n')")
            return try journalMode(store)
        }
        expectEqual(during, "wal")
        try expectEqual(reader.connection.scalarInt("SELECT count(*) FROM callbacks"), 1)
    }

    /// What the documentation warns of: once the transaction writes into the file (here, its
    /// pages overflow a small cache), a reader that opens the database must wait for it; in the
    /// WAL it would read the last commit.
    @Test func aReaderWaitsOnceTheTransactionWritesTheFile() throws {
        let path = folder.path("busy.sqlite")
        let store = try AuditStore(path: path, access: .write)
        try store.connection.execute("PRAGMA cache_size = 10")
        let (mode, code) = try store.connection.transactionBypassingWAL {
            try store.connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO callbacks (kind, protocol, name) SELECT 'input', 'P', printf('%.500d', i) FROM n
                """)
            return (try journalMode(store), try Self.readWithoutWaiting(path))
        }
        expectEqual(mode, "delete")
        expectEqual(code, SQLITE_BUSY)
        try expectEqual(Self.readWithoutWaiting(path), SQLITE_ROW)
    }

    /// The result of a reader's first step on `path`, not waiting for a lock.
    static func readWithoutWaiting(_ path: String) throws -> Int32 {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return SQLITE_CANTOPEN }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let prepared = sqlite3_prepare_v2(handle, "SELECT count(*) FROM callbacks", -1, &statement, nil)
        return prepared == SQLITE_OK ? sqlite3_step(statement) : prepared
    }

    /// A process killed in the transaction leaves the database out of WAL mode; the next store
    /// opened to write puts it back.
    @Test func theNextWriterPutsADatabaseLeftOutOfWALBack() throws {
        let path = folder.path("left.sqlite")
        do {
            let store = try AuditStore(path: path, access: .write)
            try expectEqual(store.connection.scalarText("PRAGMA journal_mode = DELETE"), "delete")
        }
        let again = try AuditStore(path: path, access: .write)
        try expectEqual(journalMode(again), "wal")
    }

    struct Refused: Error {}

    @Test func aFailedTransactionLeavesNothingAndTheWAL() throws {
        let store = try AuditStore(path: folder.path("failed.sqlite"), access: .write)
        #expect(throws: Refused.self) {
            try store.connection.transactionBypassingWAL {
                try store.connection.execute("INSERT INTO callbacks (kind, protocol, name) VALUES ('input', 'P', 'n')")
                throw Refused()
            }
        }
        try expectEqual(store.connection.scalarInt("SELECT count(*) FROM callbacks"), 0)
        try expectEqual(journalMode(store), "wal")
        #expect(!FileManager.default.fileExists(atPath: folder.path("failed.sqlite-journal")))
    }

    /// An import into a new database is one such transaction; into one that holds a session, it
    /// goes through the WAL, where readers go on reading.
    @Test func anImportIntoANewDatabaseStoresWhatItReadsAndEndsInWALMode() throws {
        let source = try AuditStore(path: folder.path("source.sqlite"), access: .write)
        let session = try source.createSession(NewSession(scenario: "s", source: "{}", delegate: "d"))
        try source.finishSession(session, status: .complete, counters: .init())
        var lines: [String] = []
        try source.export { lines.append($0) }
        for name in ["new.sqlite", "again.sqlite"] {
            let target = try AuditStore(path: folder.path(name), access: .write)
            if name == "again.sqlite" { _ = try target.importSessions(lines) }  // holds it: skipped
            try expectEqual(target.importSessions(lines).sessions.count, (name == "new.sqlite" ? 1 : 0))
            try expectEqual(journalMode(target), "wal")
            var again: [String] = []
            try target.export { again.append($0) }
            expectEqual(again, lines)
        }
    }

    /// A merge attaches its source to the target's connection: only the target leaves the WAL,
    /// and the source is not written.
    @Test func aMergeIntoANewDatabaseLeavesItsSourceAsItWas() throws {
        let sourcePath = folder.path("source.sqlite")
        let source = try AuditStore(path: sourcePath, access: .write)
        let session = try source.createSession(NewSession(scenario: "s", source: "{}", delegate: "d"))
        try source.finishSession(session, status: .complete, counters: .init())
        try source.checkpoint(.truncate)
        let before = try Data(contentsOf: URL(fileURLWithPath: sourcePath))
        let target = try AuditStore(path: folder.path("target.sqlite"), access: .write)
        try expectEqual(target.mergeSessions(from: AuditStore(path: sourcePath, access: .read)).sessions.count, 1)
        try expectEqual(journalMode(target), "wal")
        try expectEqual(journalMode(source), "wal")
        try expectEqual(Data(contentsOf: URL(fileURLWithPath: sourcePath)), before)
    }
}
