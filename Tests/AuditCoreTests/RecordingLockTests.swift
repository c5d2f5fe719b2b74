import Foundation
import Testing

@testable import AuditCore

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
        #expect(try AuditStore(path: database, access: .read).session(recorder.session).status == .recording)
        // A writer does not mark it interrupted either.
        _ = try AuditStore(path: database, access: .write)
        #expect(
            try Connection(path: database, mode: .readOnly).scalarText(
                "SELECT status FROM sessions WHERE id = \(recorder.session)") == "recording")
        #expect(recorder.finish().status == .complete)
        #expect(try AuditStore(path: database, access: .read).session(recorder.session).status == .complete)
    }

    @Test func theLockIsTheSessionsAndOnlyWhileItsStoreIsOpen() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let session = recorder.session
        #expect(RecordingLock.isHeld(session: session, databasePath: database))
        #expect(!RecordingLock.isHeld(session: session + 1, databasePath: database))
        recorder.finish()
        #expect(!RecordingLock.isHeld(session: session, databasePath: database))
        var info = stat()
        #expect(stat(RecordingLock.path(of: database), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func readersMakeNoLockFile() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        recorder.finish()
        try FileManager.default.removeItem(atPath: RecordingLock.path(of: database))
        _ = try AuditStore(path: database, access: .read).sessions()
        #expect(!FileManager.default.fileExists(atPath: RecordingLock.path(of: database)))
    }
}
