import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore

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
        #expect(during == "delete")
        #expect(try journalMode(store) == "wal")
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
        #expect(during == "wal")
        #expect(try reader.connection.scalarInt("SELECT count(*) FROM callbacks") == 1)
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
        #expect(try store.connection.scalarInt("SELECT count(*) FROM callbacks") == 0)
        #expect(try journalMode(store) == "wal")
        #expect(!FileManager.default.fileExists(atPath: folder.path("failed.sqlite-journal")))
    }

    /// An import into a new database is one such transaction; into one that holds a session, it
    /// goes through the WAL, where readers go on reading.
    @Test func anImportIntoANewDatabaseStoresWhatItReadsAndEndsInWALMode() throws {
        let source = try AuditStore(path: folder.path("source.sqlite"), access: .write)
        let session = try source.createSession(NewSession(scenario: "s", scenarioSource: "{}", delegate: "d"))
        try source.finishSession(session, status: .complete, counters: .init())
        var lines: [String] = []
        try source.export { lines.append($0) }
        for name in ["new.sqlite", "again.sqlite"] {
            let target = try AuditStore(path: folder.path(name), access: .write)
            if name == "again.sqlite" { _ = try target.importSessions(lines) }  // holds it: skipped
            #expect(try target.importSessions(lines).sessions.count == (name == "new.sqlite" ? 1 : 0))
            #expect(try journalMode(target) == "wal")
            var again: [String] = []
            try target.export { again.append($0) }
            #expect(again == lines)
        }
    }

    /// A merge attaches its source to the target's connection: only the target leaves the WAL,
    /// and the source is not written.
    @Test func aMergeIntoANewDatabaseLeavesItsSourceAsItWas() throws {
        let sourcePath = folder.path("source.sqlite")
        let source = try AuditStore(path: sourcePath, access: .write)
        let session = try source.createSession(NewSession(scenario: "s", scenarioSource: "{}", delegate: "d"))
        try source.finishSession(session, status: .complete, counters: .init())
        try source.checkpoint(.truncate)
        let before = try Data(contentsOf: URL(fileURLWithPath: sourcePath))
        let target = try AuditStore(path: folder.path("target.sqlite"), access: .write)
        #expect(try target.mergeSessions(from: AuditStore(path: sourcePath, access: .read)).sessions.count == 1)
        #expect(try journalMode(target) == "wal")
        #expect(try journalMode(source) == "wal")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sourcePath)) == before)
    }
}
