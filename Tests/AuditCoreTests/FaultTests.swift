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

/// Recording failures never reach the app: with a full disk, a file system turned read-only, an I/O
/// error or the database deleted, the delegate gets every call and the widgets the same answers;
/// the recorder counts what it lost and marks the session.
///
/// Most faults are injected at the store layer (`StoreFaults`), which fails SQLite writes with the
/// code a real fault gives; a real full disk is a small tmpfs, mounted when the tests may (root).
@Suite("Faults: full disk, read-only file system, deleted database", .tags(.slow))
struct FaultTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let code: Int32
        let message: String
        var testDescription: String { name }
    }

    static let faults = [
        Fault(name: "full disk", code: SQLITE_FULL, message: "database or disk is full"),
        Fault(name: "read-only file system", code: SQLITE_READONLY, message: "attempt to write a readonly database"),
        Fault(name: "I/O error", code: SQLITE_IOERR | (3 << 8), message: "disk I/O error"),
    ]

    /// The seeded runs of one test, each on a tree of its own: before the fault, during it, after.
    static let phases: [(seed: UInt64, inputs: Int)] = [(1, 500), (5, 3_000), (9, 500)]

    /// Small batches, so a run is many transactions.
    static var options: Recorder.Options {
        var options = Recorder.Options()
        options.batchSize = 64
        return options
    }

    /// How many events a clean recording of the phases stores.
    func referenceEvents() throws -> Int {
        let recorder = try Recorder(
            databasePath: folder.path("reference.sqlite"), session: newSession(), catalog: .builtIn)
        for phase in Self.phases { _ = runRandomInputs(seed: phase.seed, count: phase.inputs, recorder: recorder) }
        return recorder.finish().events
    }

    /// What the app sees in each phase without audit.
    static func plainRuns() -> [(calls: [String], state: [Int])] {
        phases.map { runRandomInputs(seed: $0.seed, count: $0.inputs, recorder: nil) }
    }

    /// Waits until the writer (on its own thread) has committed some of the session's events,
    /// looking each time it writes a file of the database.
    func waitForACommit(_ recorder: Recorder) throws {
        let committed = try DirectoryWatch(folder.url.path).wait {
            try AuditStore(path: database, access: .read).session(recorder.session).events > 0
        }
        try #require(committed, "nothing was committed")
    }

    @Test(arguments: faults)
    func aLastingFaultNeverReachesTheAppAndIsCounted(_ fault: Fault) throws {
        let total = try referenceEvents()
        let recorder = try Recorder(
            databasePath: database, session: newSession(), catalog: .builtIn, options: Self.options)
        var audited = [runRandomInputs(seed: Self.phases[0].seed, count: Self.phases[0].inputs, recorder: recorder)]
        try waitForACommit(recorder)
        StoreFaults.inject(fault.code, at: database)
        defer { StoreFaults.clear(database) }
        for phase in Self.phases.dropFirst() {
            audited.append(runRandomInputs(seed: phase.seed, count: phase.inputs, recorder: recorder))
        }
        let summary = recorder.finish()

        // The app saw exactly what it sees unaudited.
        expectEqual(audited.map(\.calls), Self.plainRuns().map(\.calls))
        expectEqual(audited.map(\.state), Self.plainRuns().map(\.state))
        // The recorder counted and reported the loss, and every event is either stored or lost.
        #expect(summary.failedWrites > 0)
        #expect(summary.lostEvents > 0)
        #expect(summary.events > 0)
        expectEqual(summary.events + summary.lostEvents, total)
        expectEqual(summary.lastError?.contains(fault.message), true, "\(summary.lastError ?? "nil")")
        expectEqual(summary.status, .interrupted)
        // What was committed before the fault is a hole-free prefix.
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        expectEqual(events.map(\.seq), Array(stride(from: 1, through: Int64(summary.events), by: 1)))
        // Closing the session was a write too and failed: the row says `recording` while the
        // process lives; once it is gone, readers see `interrupted` and the next process that opens
        // the database to write stores it.
        let storedStatus = "SELECT status FROM sessions WHERE id = \(summary.session)"
        try expectEqual(AuditStore(path: database, access: .read).session(summary.session).status, .recording)
        StoreFaults.clear(database)
        try sqlite(database, "UPDATE sessions SET owner_pid = 999999999 WHERE id = \(summary.session)")
        try expectEqual(AuditStore(path: database, access: .read).session(summary.session).status, .interrupted)
        try expectEqual(Connection(path: database, mode: .readOnly).scalarText(storedStatus), "recording")
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(Connection(path: database, mode: .readOnly).scalarText(storedStatus), "interrupted")
    }

    @Test func aPassingFaultIsCountedAndNothingIsLost() throws {
        let total = try referenceEvents()
        let recorder = try Recorder(
            databasePath: database, session: newSession(), catalog: .builtIn, options: Self.options)
        var audited = [runRandomInputs(seed: Self.phases[0].seed, count: Self.phases[0].inputs, recorder: recorder)]
        try waitForACommit(recorder)
        // The disk fills while the app runs, then has room again (a log rotated).
        StoreFaults.inject(SQLITE_FULL, at: database)
        let path = database
        let cleared = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            StoreFaults.wait(forFailures: 1, at: path)
            StoreFaults.clear(path)
            cleared.signal()
        }
        audited.append(runRandomInputs(seed: Self.phases[1].seed, count: Self.phases[1].inputs, recorder: recorder))
        // Woken by the first failed write; the timeout only keeps a fault that never fires from
        // hanging the suite.
        try #require(cleared.wait(timeout: .now() + 300) == .success, "no write failed")
        audited.append(runRandomInputs(seed: Self.phases[2].seed, count: Self.phases[2].inputs, recorder: recorder))
        let summary = recorder.finish()

        expectEqual(audited.map(\.calls), Self.plainRuns().map(\.calls))
        expectEqual(audited.map(\.state), Self.plainRuns().map(\.state))
        // A fault that passes is counted, and the batches it held are written on the next try:
        // nothing is lost and the session stays whole.
        #expect(summary.failedWrites > 0)
        expectEqual(summary.lostEvents, 0)
        expectEqual(summary.events, total)
        expectEqual(summary.status, .complete)
        let store = try AuditStore(path: database, access: .read)
        let stored = try store.session(summary.session)
        expectEqual(stored.status, .complete)
        expectEqual(stored.failures, summary.failedWrites)
        expectEqual(stored.events, summary.events)
        // The events of the failed batches are missing, and only they: the stored seqs are 1...N
        // with `lostEvents` of them absent, and the last phase's events are there.
        let seqs = try store.timeline(of: summary.session).map(\.seq)
        expectEqual(seqs.count, summary.events)
        expectEqual(Set(1...Int64(total)).subtracting(seqs).count, summary.lostEvents)
        expectEqual(seqs.last, Int64(total))
    }

    @Test func aDatabaseDeletedMidSessionIsReportedNotSilentlyLost() throws {
        let plain = runRandomInputs(seed: 5, count: 3_000, recorder: nil)
        let recorder = try Recorder(
            databasePath: database, session: newSession(), catalog: .builtIn, options: Self.options)
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let delegate = LoggingDelegate()
        control.delegate = delegate
        try recorder.attach(to: root)
        control.tapSegment(1)
        try waitForACommit(recorder)
        for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
        let audited = runRandomInputs(seed: 5, count: 3_000, recorder: recorder)
        control.tapSegment(0)
        let summary = recorder.finish()

        expectEqual(audited.calls, plain.calls)
        expectEqual(audited.state, plain.state)
        expectEqual(delegate.calls, ["c.should(1)", "c.did(1, true)", "c.should(0)", "c.did(0, true)"])
        #expect(summary.failedWrites > 0)
        #expect(summary.lostEvents > 0)
        expectEqual(summary.lastError?.contains("was deleted or replaced while it was open"), true)
        expectEqual(summary.status, .interrupted)
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test(
        "a real full disk (a 512 KiB tmpfs) never reaches the app, and the database stays sound",
        .enabled(if: Tmpfs.canMount, "needs to mount a tmpfs (root with CAP_SYS_ADMIN)"))
    func aRealFullDisk() throws {
        // Room for the schema of every migration (0009 made it outgrow 256 KiB), not for the session.
        let mount = try Tmpfs(size: "512k")
        let database = mount.path("audit.sqlite")
        let count = 20_000
        let plain = runRandomInputs(seed: 5, count: count, recorder: nil)
        let reference = try Recorder(
            databasePath: folder.path("reference.sqlite"), session: newSession(), catalog: .builtIn)
        _ = runRandomInputs(seed: 5, count: count, recorder: reference)
        let total = reference.finish().events

        let recorder = try Recorder(
            databasePath: database, session: newSession(), catalog: .builtIn, options: Self.options)
        let audited = runRandomInputs(seed: 5, count: count, recorder: recorder)
        let summary = recorder.finish()

        expectEqual(audited.calls, plain.calls)
        expectEqual(audited.state, plain.state)
        #expect(summary.failedWrites > 0)
        #expect(summary.lostEvents > 0)
        expectEqual(summary.events + summary.lostEvents, total)
        expectEqual(summary.lastError?.contains("database or disk is full"), true, "\(summary.lastError ?? "nil")")
        expectEqual(summary.status, .interrupted)
        let connection = try Connection(path: database, mode: .readWrite(create: false))
        try expectEqual(connection.scalarText("PRAGMA integrity_check"), "ok")
        try expectEqual(connection.scalarInt("SELECT count(*) FROM events"), Int64(summary.events))
    }

    /// Making a database on disks from too small for the schema's WAL to ample: whichever step
    /// runs out of room (the migrations, or the checkpoint that copies the schema from the WAL
    /// into the file), the error says the disk is full and no file is left; where it fits, the
    /// database is sound and whole. A checkpoint that failed unseen once put a file without its
    /// schema in place, which every later command called malformed.
    @Test(
        "a disk too small for the schema: the database is made whole or not at all",
        .enabled(if: Tmpfs.canMount, "needs to mount a tmpfs (root with CAP_SYS_ADMIN)"))
    func aDiskTooSmallForTheSchema() throws {
        var outcomes: [String] = []
        for kilobytes in stride(from: 64, through: 512, by: 32) {
            let mount = try Tmpfs(size: "\(kilobytes)k")
            let database = mount.path("audit.sqlite")
            do {
                _ = try AuditStore(path: database, access: .write)
                let connection = try Connection(path: database, mode: .readWrite(create: false))
                try expectEqual(connection.scalarText("PRAGMA integrity_check"), "ok", "\(kilobytes) KiB")
                try expectEqual(Migrator.pending(on: connection).count, 0, "\(kilobytes) KiB")
                outcomes.append("made")
            } catch {
                #expect("\(error)".contains("database or disk is full"), "\(kilobytes) KiB: \(error)")
                try expectEqual(
                    FileManager.default.contentsOfDirectory(atPath: mount.directory.path), [], "\(kilobytes) KiB")
                outcomes.append("full")
            }
        }
        // Both happened: the sizes span the schema's.
        #expect(outcomes.first == "full" && outcomes.last == "made", "\(outcomes)")
    }

    @Test func lostWidgetRowsLeaveLaterEventsWithoutTheirWidget() throws {
        // The batch that fails carries the widget rows of the tree just attached; the batches after
        // it commit, and their events refer to widget ids that have no row.
        let recorder = try Recorder(
            databasePath: database, session: newSession(), catalog: .builtIn, options: Self.options)
        StoreFaults.inject(SQLITE_FULL, at: database)
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        try recorder.attach(to: control)
        control.tapSegment(1)
        StoreFaults.wait(forFailures: 1, at: database)
        StoreFaults.clear(database)
        control.tapSegment(0)
        let summary = recorder.finish()
        expectEqual(summary.failedWrites, 1)
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        expectEqual(events.count, 6 - summary.lostEvents)
        #expect(!events.isEmpty)
        // The failed batch's widget rows stay pending and are written with the next batch.
        #expect(events.allSatisfy { $0.widget == "c" }, "\(events.map { $0.widget ?? "nil" })")
    }
}
