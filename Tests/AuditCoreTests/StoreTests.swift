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

@Suite("Store: connection, statements, transactions, migrations")
struct StoreTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    @Test func sha256MatchesKnownVectors() {
        expectEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        expectEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        expectEqual(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        expectEqual(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000)),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// A message given in pieces, some in contiguous memory (mixed a block at a time) and some
    /// not (a byte at a time), in every way of cutting it, digests as the whole message does.
    @Test func sha256OfAMessageInPiecesIsTheWholeMessages() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let whole = SHA256.hex(message)
        for first in [0, 1, 63, 64, 65, 100] {
            for second in [first, first + 1, first + 64, first + 130, 300] where second <= 300 {
                for contiguous in [false, true] {
                    var stream = SHA256.Stream()
                    stream.update(message[0..<first].lazy.map { $0 })
                    if contiguous {
                        stream.update(Array(message[first..<second]))
                    } else {
                        stream.update(message[first..<second].lazy.map { $0 })
                    }
                    stream.update(Array(message[second...]))
                    expectEqual(SHA256.hexadecimal(stream.finalized()), whole, "\(first) \(second) \(contiguous)")
                }
            }
        }
    }

    @Test func freshDatabaseIsMigratedInWALWithApplicationID() throws {
        let store = try AuditStore(path: database, access: .write)
        let connection = store.connection
        try expectEqual(connection.scalarText("PRAGMA journal_mode"), "wal")
        try expectEqual(connection.scalarInt("PRAGMA synchronous"), 1)  // NORMAL
        try expectEqual(connection.scalarInt("PRAGMA busy_timeout"), Int64(Connection.busyTimeoutMilliseconds))
        try expectEqual(connection.scalarInt("PRAGMA application_id"), Migration.applicationID)
        let rows = try connection.prepare("SELECT version, name, sha256 FROM schema_migrations").rows {
            ($0.int(0), $0.string(1) ?? "", $0.string(2) ?? "")
        }
        expectEqual(rows.map(\.0), Migration.all.map(\.version))
        expectEqual(rows.map(\.2), Migration.all.map(\.sha256))
        expectEqual(Migration.all.first?.name, "initial")
    }

    @Test func reopeningAppliesNothing() throws {
        _ = try AuditStore(path: database, access: .write)
        let store = try AuditStore(path: database, access: .write)
        #expect(try Migrator.pending(on: store.connection).isEmpty)
        try expectEqual(
            store.connection.scalarInt("SELECT count(*) FROM schema_migrations"), Int64(Migration.all.count))
    }

    @Test func pendingMigrationsApplyInOrderEachWithItsLedgerRow() throws {
        let extra = Migration(version: 99, name: "extra", sql: "CREATE TABLE extra (x INTEGER);", sha256: "feed")
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try Migrator.migrate(connection, migrations: Migration.all)
        try Migrator.migrate(connection, migrations: Migration.all + [extra])
        #expect(try connection.tableExists("extra"))
        try expectEqual(connection.scalarText("SELECT sha256 FROM schema_migrations WHERE version = 99"), "feed")
    }

    @Test func aFailingMigrationLeavesNoTraceOfItself() throws {
        let broken = Migration(
            version: 99, name: "broken", sql: "CREATE TABLE half (x); SELECT nope FROM nowhere;", sha256: "x")
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try Migrator.migrate(connection)
        #expect(throws: SQLiteError.self) { try Migrator.migrate(connection, migrations: Migration.all + [broken]) }
        #expect(try !connection.tableExists("half"))
        try expectEqual(connection.scalarInt("SELECT count(*) FROM schema_migrations WHERE version = 99"), 0)
    }

    @Test func unknownMigrationIsRefusedAndNothingChanges() throws {
        _ = try AuditStore(path: database, access: .write)
        try sqlite(database, "INSERT INTO schema_migrations VALUES (9999, 'future', 'abc', 'later')")
        let before = fileBytes(database)
        #expect {
            try AuditStore(path: database, access: .write)
        } throws: { error in
            guard case StoreError.unknownMigration(_, 9999, "future") = error else { return false }
            return "\(error)".contains("newer auditctl")
        }
        #expect(throws: StoreError.self) { try AuditStore(path: database, access: .read) }
        expectEqual(fileBytes(database), before)
    }

    @Test func changedChecksumIsRefusedAndNothingChanges() throws {
        _ = try AuditStore(path: database, access: .write)
        try sqlite(database, "UPDATE schema_migrations SET sha256 = 'tampered' WHERE version = 1")
        let before = fileBytes(database)
        #expect {
            try AuditStore(path: database, access: .write)
        } throws: { error in
            guard case StoreError.checksumMismatch(_, 1, "initial") = error else { return false }
            return true
        }
        expectEqual(fileBytes(database), before)
    }

    @Test func fileThatIsNotADatabaseFailsAtOpen() throws {
        try Data(
            String(repeating: "this is a text file, not SQLite, and long enough to have a header. ", count: 3).utf8
        )
        .write(to: folder.url.appending(path: "x"))
        let path = folder.path("x")
        let before = fileBytes(path)
        #expect {
            try AuditStore(path: path, access: .write)
        } throws: { error in
            guard case StoreError.cannotOpen(path, let sqliteError) = error else { return false }
            return sqliteError.primaryCode == SQLITE_NOTADB
                && "\(error)" == "cannot open \(path): file is not a database"
        }
        expectEqual(fileBytes(path), before)
    }

    @Test func databaseOfAnotherApplicationIsRefused() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try connection.execute("CREATE TABLE notes (body TEXT); PRAGMA application_id = 7;")
        #expect {
            try AuditStore(path: database, access: .write)
        } throws: { error in
            guard case StoreError.notAnAuditDatabase = error else { return false }
            return true
        }
        let plain = folder.path("plain.sqlite")
        try Connection(path: plain, mode: .readWrite(create: true)).execute("CREATE TABLE notes (body TEXT)")
        #expect(throws: StoreError.self) { try AuditStore(path: plain, access: .write) }
    }

    @Test func readingAMissingDatabaseCreatesNothing() {
        #expect {
            try AuditStore(path: database, access: .read)
        } throws: { error in
            guard case StoreError.noDatabase = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func sqliteErrorsCarryExtendedCodeMessageAndSQL() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try connection.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES (1)")
        #expect {
            try connection.prepare("INSERT INTO t VALUES (?)").execute([.integer(1)])
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.code == SQLITE_CONSTRAINT | (6 << 8) && error.message.contains("UNIQUE")
                && error.sql == "INSERT INTO t VALUES (?)"
        }
        #expect {
            try connection.prepare("SELEC 1")
        } throws: { error in
            (error as? SQLiteError)?.sql == "SELEC 1" && (error as? SQLiteError)?.primaryCode == SQLITE_ERROR
        }
    }

    /// A statement may outlive the `Connection` that prepared it: ARC may release an object after
    /// its last use, before its scope ends. The statement keeps the database open (the connection
    /// closes with `sqlite3_close_v2`) and never reads the released connection, even while a fault
    /// is armed elsewhere and every step looks up its database's path (this crashed CI once).
    @Test func aStatementOutlivesItsConnection() throws {
        final class Watch { weak var connection: Connection? }
        let watch = Watch()
        func orphans() throws -> [Statement] {
            let connection = try Connection(path: database, mode: .readWrite(create: true))
            watch.connection = connection
            try connection.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
            return try [connection.prepare("INSERT INTO t VALUES (1)"), connection.prepare("INSERT INTO t VALUES (1)")]
        }
        let statements = try orphans()
        #expect(watch.connection == nil)
        let elsewhere = folder.path("elsewhere.sqlite")
        StoreFaults.inject(SQLITE_FULL, at: elsewhere)
        defer { StoreFaults.clear(elsewhere) }
        try expectEqual(statements[0].step(), false)
        #expect {
            try statements[1].step()
        } throws: { error in
            (error as? SQLiteError)?.code == SQLITE_CONSTRAINT | (6 << 8)
                && (error as? SQLiteError)?.message.contains("UNIQUE") == true
        }
        try expectEqual(Connection(path: database, mode: .readOnly).scalarInt("SELECT count(*) FROM t"), 1)
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try connection.execute("CREATE TABLE t (x)")
        #expect(throws: Boom.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        try expectEqual(connection.scalarInt("SELECT count(*) FROM t"), 0)
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (2)") }
        try expectEqual(connection.scalarInt("SELECT count(*) FROM t"), 1)
    }

    @Test func cachedStatementsAreReused() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        #expect(try connection.cached("SELECT 1") === connection.cached("SELECT 1"))
        #expect(try connection.prepare("SELECT 1") !== connection.prepare("SELECT 1"))
    }

    @Test func typedBindingRoundTrips() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        let values: [SQLValue] = [.null, .integer(-42), .real(2.5), .text("请在门口 👍🏽"), .blob([0, 1, 255])]
        let row = try connection.prepare("SELECT ?, ?, ?, ?, ?").rows(values) { row in (0..<5).map(row.value) }
        expectEqual(row, [values])
    }

    @Test func moreThanOneStatementIsRefusedByPrepare() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        #expect(throws: SQLiteError.self) { try connection.prepare("SELECT 1; SELECT 2") }
        try expectEqual(connection.prepare("SELECT 1;  ").rows { $0.int(0) }, [1])
    }

    /// SQLite's memory statistics can be turned off only before its first use in the process (the
    /// command line does it first thing): after, the call changes nothing and they go on counting,
    /// so a heap limit set in this process still holds.
    @Test func memoryStatisticsStayOnOnceSQLiteIsInUse() throws {
        let store = try AuditStore(path: database, access: .write)
        #expect(!AuditStore.turnOffSQLiteMemoryStatistics())
        #expect(sqlite3_memory_used() > 0)
        withExtendedLifetime(store) {}
    }
}

@Suite("Migration 0002: compact events")
struct CompactEventsMigrationTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    @Test func aVersionOneDatabaseReadsTheSameAfterMigrating() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try Migrator.migrate(connection, migrations: [Migration.all[0]])
        try connection.execute(
            #"""
            INSERT INTO sessions (id, scenario, scenario_source, delegate, started_at, status)
                VALUES (1, 's', '{}', 'd', 'now', 'complete');
            INSERT INTO callbacks VALUES (1, 'input', '', 'typeText'), (2, 'callback', 'P', 'p(_:shouldChange:in:)'),
                (3, 'callback', 'P', 'p(_:didTouch:)'), (4, 'callback', 'P', 'p(_:willSelect:)'), (5, 'input', '', 'tap');
            INSERT INTO widgets VALUES (1, 1, 'root/text', 'TextView', NULL);
            INSERT INTO events VALUES
                (1, 1, 10, 1, 1, 0, '{"text":"a \"quoted\"\nline\\"}', '{"text":"x"}', 100, NULL),
                (1, 2, 20, 1, 2, 7, '{"text":"tab\there","range":{"location":0,"length":2},"flag":false}', 'false', 50, 1),
                (1, 3, 30, 1, 3, 1, '{"touch":{"x":1.5,"y":2.0},"ids":[1,2]}', NULL, 40, 1),
                (1, 4, 40, 1, 4, 6, '{"indexPath":{"row":1,"section":0}}', 'null', 30, NULL),
                (1, 5, 50, 1, 5, 0, '{}', NULL, 20, NULL);
            """#)
        let before = try AuditStore(path: database, access: .read).timeline(of: 1)
        _ = try AuditStore(path: database, access: .write)
        let after = try AuditStore(path: database, access: .read).timeline(of: 1)
        expectEqual(after, before)
        expectEqual(after.map(\.arguments)[0], #"{"text":"a \"quoted\"\nline\\"}"#)
        expectEqual(after.map(\.result), [#"{"text":"x"}"#, "false", nil, "null", nil])
        // The override (a non-boolean answer with a `vetoed`, from before answers had kinds) is
        // told from the veto, read as it is and migrated (0008).
        expectEqual(after.map(\.vetoed), [nil, true, nil, nil, nil])
        expectEqual(after.map(\.overridden), [nil, nil, nil, true, nil])
        expectEqual(after.map(\.implemented), [nil, true, true, false, nil])
        let stored = try Connection(path: database, mode: .readWrite(create: false))
            .prepare("SELECT args, typeof(result) FROM events ORDER BY seq").rows { [$0.string(0)!, $0.string(1)!] }
        expectEqual(stored[1], [#"["tab\there",{"location":0,"length":2},false]"#, "integer"])
    }
}
