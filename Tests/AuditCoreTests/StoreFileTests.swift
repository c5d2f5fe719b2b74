import CSQLite
import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// The database as a file: made whole and owner-only, refused when it is not one, and a file
/// deleted or replaced while open is noticed.
@Suite("Store: the database file")
struct StoreFileTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    @Test func aNewDatabaseAndTheFilesBesideItAreReadableByTheirOwnerOnly() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        _ = runRandomInputs(seed: 1, count: 50, recorder: recorder)
        // The writer's connection is open: the WAL, the shared-memory file, the recording's lock
        // file (see `RecordingLock`) and the writers' queue (see `WriterQueue`) exist now.
        let store = try AuditStore(path: database, access: .read)
        _ = try store.sessions()
        try expectEqual(
            files(),
            [
                "audit.sqlite", "audit.sqlite-recording", "audit.sqlite-shm", "audit.sqlite-wal",
                "audit.sqlite-writers",
            ])
        for suffix in ["", "-wal", "-shm", "-recording", "-writers"] {
            expectEqual(mode(database + suffix), 0o600, "audit.sqlite\(suffix)")
        }
        recorder.finish()
    }

    @Test func aNewDatabaseAppearsWholeAndLeavesNoTemporaryFile() throws {
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(files(), ["audit.sqlite"])
        let connection = try Connection(path: database, mode: .readOnly)
        try expectEqual(connection.scalarText("PRAGMA journal_mode"), "wal")
        try expectEqual(connection.scalarInt("SELECT count(*) FROM schema_migrations"), Int64(Migration.all.count))
    }

    @Test func eightThreadsOpeningANewDatabaseAtOnceAgreeOnOne() throws {
        let path = database
        let failures = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                gate.wait()
                do {
                    _ = try AuditStore(path: path, access: .write)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        for _ in 0..<8 { gate.signal() }
        done.wait()
        expectEqual(failures.withLock { $0 }, [])
        // No temporary file is left behind. (When connections close at the same moment, none may
        // see itself as the last, so SQLite can leave the -wal and -shm beside the database.)
        try expectEqual(files().filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, ["audit.sqlite"])
        let connection = try Connection(path: database, mode: .readOnly)
        try expectEqual(connection.scalarInt("SELECT count(*) FROM schema_migrations"), Int64(Migration.all.count))
    }

    @Test func aTemporaryDatabaseLeftByADeadProcessIsRemoved() throws {
        // No process has PID 999999999 (Linux's pid_max is at most 4194304); this one is alive.
        let dead = database + DatabaseFile.temporarySuffix + "999999999-7"
        let alive = database + DatabaseFile.temporarySuffix + "\(getpid())-7"
        for path in [dead, dead + "-wal", alive] { FileManager.default.createFile(atPath: path, contents: Data([1])) }
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(files(), ["audit.sqlite", "audit.sqlite.new-\(getpid())-7"])
    }

    @Test(arguments: [AuditStore.Access.write, .read, .readUntrustedSQL])
    func anEmptyFileIsRefusedAndLeftEmpty(access: AuditStore.Access) throws {
        FileManager.default.createFile(atPath: database, contents: Data())
        #expect {
            try AuditStore(path: database, access: access)
        } throws: { error in
            guard case StoreError.notAnAuditDatabase(database, let reason) = error else { return false }
            return reason.hasPrefix("it is an empty file")
        }
        expectEqual(fileBytes(database), Data())
        try expectEqual(files(), ["audit.sqlite"])
    }

    @Test(arguments: [AuditStore.Access.write, .read, .readUntrustedSQL])
    func aDirectoryIsRefused(access: AuditStore.Access) throws {
        #expect {
            try AuditStore(path: folder.url.path, access: access)
        } throws: { error in
            "\(error)" == "cannot open \(folder.url.path): it is a directory"
        }
    }

    @Test func aDatabaseDeletedWhileOpenFailsTheNextTransaction() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try connection.enableWAL()
        try connection.execute("CREATE TABLE t (x)")
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (1)") }
        for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
        // SQLite itself would commit into the unlinked file and report success.
        #expect {
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (2)") }
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.code == Connection.databaseMoved && error.message.contains("was deleted or replaced")
        }
    }

    @Test func aDatabaseReplacedWhileOpenFailsTheNextTransaction() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try connection.enableWAL()
        try connection.execute("CREATE TABLE t (x)")
        let other = folder.path("other.sqlite")
        try Connection(path: other, mode: .readWrite(create: true)).execute("CREATE TABLE t (x)")
        expectEqual(rename(other, database), 0)
        #expect(throws: SQLiteError.self) {
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (1)") }
        }
    }

    @Test func textIsBoundWholeWithItsNULCharacters() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        let text = "a\u{0}b\u{0}请"
        let row = try connection.prepare("SELECT length(CAST(? AS BLOB)), ?").rows([.text(text), .text(text)]) {
            ($0.int(0), $0.string(1))
        }
        expectEqual(row.first?.0, text.utf8.count)
        expectEqual(row.first?.1, text)
        try expectEqual(connection.prepare("SELECT ?").rows([.text("")]) { $0.string(0) }, [""])
    }

    @Test func anInjectedFaultFailsWritesOnlyAndOnlyOnItsDatabase() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try connection.execute("CREATE TABLE t (x)")
        let other = try Connection(path: folder.path("other.sqlite"), mode: .readWrite(create: true))
        try other.execute("CREATE TABLE t (x)")
        StoreFaults.inject(SQLITE_FULL, at: database, after: 1)
        defer { StoreFaults.clear(database) }
        try connection.prepare("INSERT INTO t VALUES (1)").execute()
        #expect {
            try connection.prepare("INSERT INTO t VALUES (2)").execute()
        } throws: { error in
            (error as? SQLiteError)?.code == SQLITE_FULL
                && (error as? SQLiteError)?.message == "database or disk is full"
        }
        try expectEqual(connection.scalarInt("SELECT count(*) FROM t"), 1)
        try other.prepare("INSERT INTO t VALUES (1)").execute()
        expectEqual(StoreFaults.clear(database), 1)
        try connection.prepare("INSERT INTO t VALUES (3)").execute()
        try expectEqual(connection.scalarInt("SELECT count(*) FROM t"), 2)
    }
}
