import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A recording's liveness is a lock its process holds, not its process id: a recorder in another
/// PID namespace (a container) has an id the reader cannot see, or sees as another process.
@Suite("Recording liveness across PID namespaces")
struct RecordingLockTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    @Test func aRecordingWhoseProcessIdIsNotVisibleHereStillReadsAsRecording() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: View(identifier: "root"))  // a recorder attached to nothing stores no session
        // As a reader in another PID namespace sees it: no process here has the recorder's id.
        try sqlite(database, "UPDATE sessions SET owner_pid = 999999999 WHERE id = \(recorder.session)")
        try expectEqual(AuditStore(path: database, access: .read).session(recorder.session).status, .recording)
        // A writer does not mark it interrupted either.
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(
            Connection(path: database, mode: .readOnly).scalarText(
                "SELECT status FROM sessions WHERE id = \(recorder.session)"), "recording")
        expectEqual(recorder.finish().status, .complete)
        try expectEqual(AuditStore(path: database, access: .read).session(recorder.session).status, .complete)
    }

    @Test func theLockIsTheSessionsAndOnlyWhileItsStoreIsOpen() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let session = recorder.session
        #expect(RecordingLock.isHeld(session: session, databasePath: database))
        #expect(!RecordingLock.isHeld(session: session + 1, databasePath: database))
        var info = stat()
        expectEqual(stat(RecordingLock.path(of: database), &info), 0)
        expectEqual(info.st_mode & 0o777, 0o600)
        recorder.finish()
        #expect(!RecordingLock.isHeld(session: session, databasePath: database))
    }

    var lockFileExists: Bool { FileManager.default.fileExists(atPath: RecordingLock.path(of: database)) }

    /// As SQLite removes `-wal` and `-shm` (issue 32: every database recorded into kept an empty
    /// `-recording` file). Each recorder's lock is an open file of its own, as another process's
    /// would be: open-file-description locks do not tell two processes from two open files.
    @Test func theLastRecorderToFinishRemovesTheFile() throws {
        let first = try Recorder(databasePath: database, session: newSession("first"), catalog: .builtIn)
        let second = try Recorder(databasePath: database, session: newSession("second"), catalog: .builtIn)
        for recorder in [first, second] { try recorder.attach(to: View(identifier: "root")) }
        #expect(lockFileExists)
        expectEqual(first.finish().status, .complete)
        #expect(lockFileExists, "the second recording still holds it")
        #expect(RecordingLock.isHeld(session: second.session, databasePath: database))
        #expect(!RecordingLock.isHeld(session: first.session, databasePath: database))
        expectEqual(second.finish().status, .complete)
        #expect(!lockFileExists)
        try expectEqual(AuditStore(path: database, access: .read).sessions().map(\.status), [.complete, .complete])
    }

    @Test func aLockReleasedWithoutFinishingLeavesNoFileEither() throws {
        var lock = RecordingLock(session: 7, databasePath: database)
        #expect(lock != nil && lockFileExists)
        lock = nil  // the store closed, as when its recorder is dropped unfinished
        #expect(!lockFileExists)
        _ = lock
    }

    /// A process that crashed left the file, and in it no lock (the kernel drops a dead process's
    /// locks, not its files), and its session marked `recording`: both made here as a crash leaves
    /// them. The session reads as interrupted, the file is used as it is, and the next recording
    /// removes it when it ends.
    @Test func aFileLeftByACrashedRecordingIsFreeAndTheNextRecordingRemovesIt() throws {
        let crashed = try Recorder(databasePath: database, session: newSession("crashed"), catalog: .builtIn)
        try crashed.attach(to: View(identifier: "root"))  // a recorder attached to nothing stores no session
        expectEqual(crashed.finish().status, .complete)
        try sqlite(
            database,
            "UPDATE sessions SET status = 'recording', ended_at = NULL, owner_pid = 999999999 WHERE id = \(crashed.session)"
        )
        #expect(!lockFileExists)
        #expect(FileManager.default.createFile(atPath: RecordingLock.path(of: database), contents: Data()))
        #expect(!RecordingLock.isHeld(session: crashed.session, databasePath: database))
        try expectEqual(AuditStore(path: database, access: .read).session(crashed.session).status, .interrupted)

        let next = try Recorder(databasePath: database, session: newSession("next"), catalog: .builtIn)
        try next.attach(to: View(identifier: "root"))
        #expect(RecordingLock.isHeld(session: next.session, databasePath: database))
        #expect(!RecordingLock.isHeld(session: crashed.session, databasePath: database))
        expectEqual(next.finish().status, .complete)
        #expect(!lockFileExists)
        try expectEqual(AuditStore(path: database, access: .read).sessions().map(\.status), [.interrupted, .complete])
    }

    @Test func readersMakeNoLockFile() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        recorder.finish()
        #expect(!lockFileExists)
        _ = try AuditStore(path: database, access: .read).sessions()
        #expect(!FileManager.default.fileExists(atPath: RecordingLock.path(of: database)))
    }

    /// Root writing once into another user's database (a recording, a `prune`) leaves it usable by
    /// its owner: the lock files root makes are the owner's, as SQLite's `-wal` and `-shm` are.
    @Test(.enabled(if: geteuid() == 0, "root gives a file it makes to the database's owner"))
    func aLockFileRootMakesBesideAnotherUsersDatabaseIsTheirs() throws {
        _ = try AuditStore(path: database, access: .write)
        let (owner, group): (uid_t, gid_t) = (65_534, 65_534)  // nobody, nogroup
        expectEqual(chown(database, owner, group), 0)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: View(identifier: "root"))
        for file in [RecordingLock.path(of: database), database + "-writers"] {
            var info = stat()
            expectEqual(stat(file, &info), 0, "\(file)")
            #expect((info.st_uid, info.st_gid) == (owner, group), "\(file)")
        }
        expectEqual(recorder.finish().status, .complete)
    }
}
