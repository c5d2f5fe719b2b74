import CSQLite
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

/// `Replayer.replayAll`: jobs that keep one connection across sessions store and report exactly
/// what one replay at a time does, in session order, whatever order the jobs finish in.
@Suite("Replay jobs")
struct ReplayJobTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }
    var replayer: Replayer { Replayer(databasePath: database, registry: ReplayTests.registry, catalog: .builtIn) }

    /// Sessions of random checkouts, recorded with each delegate in turn.
    func recordSessions(_ count: Int) throws -> [Int64] {
        let delegates = ["checkout.v1", "checkout.v2", "tired"]
        return try (0..<count).map { index in
            let scenario = try ReplayTests.randomCheckout(seed: UInt64(index), count: 40 + 10 * index)
            return try ScenarioRunner.record(
                scenario, delegate: delegates[index % 3], registry: ReplayTests.registry, databasePath: database
            ).session
        }
    }

    /// A replay's events as stored: everything but the session and the times.
    func storedEvents(of session: Int64) throws -> [String] {
        try AuditStore(path: database, access: .read).timeline(of: session).map { event in
            "\(event.seq) \(event.widget ?? "-") \(event.callback) \(event.arguments) \(event.result ?? "void") "
                + "\(String(describing: event.vetoed)) \(String(describing: event.implemented)) "
                + "\(String(describing: event.parentSeq))"
        }
    }

    /// Both ways of replaying every session: a job's work that replays through it, waiting for
    /// the shared writer, and the replay `replayAll` runs itself, putting turns off.
    @Test(arguments: [ReplayMode.interaction, .isolated], [false, true])
    func aJobStoresAndReportsWhatAReplayOfItsOwnDoes(mode: ReplayMode, puttingTurnsOff: Bool) throws {
        let sessions = try recordSessions(6)
        let alone = try sessions.map { try replayer.replay(session: $0, delegate: "checkout.v2", mode: mode) }
        var batched: [ReplayReport?] = []
        func deliver(_ index: Int, _ outcome: Result<ReplayReport, any Error>) {
            expectEqual(index, batched.count)
            batched.append(try? outcome.get())
        }
        if puttingTurnsOff {
            replayer.replayAll(sessions, jobs: 2, delegate: "checkout.v2", mode: mode) {
                $0
            } deliver: {
                deliver($0, $1)
            }
        } else {
            replayer.replayAll(sessions, jobs: 2) { job, id in
                try job.replay(session: id, delegate: "checkout.v2", mode: mode)
            } deliver: {
                deliver($0, $1)
            }
        }
        expectEqual(batched.count, sessions.count)
        for (index, report) in alone.enumerated() {
            let batched = try #require(batched[index])
            expectEqual(batched.identical, report.identical)
            expectEqual(
                batched.diff.differences.map(DifferenceKey.init), report.diff.differences.map(DifferenceKey.init))
            expectEqual(batched.candidate.status, .complete)
            expectEqual(batched.candidate.replayOf, sessions[index])
            try expectEqual(storedEvents(of: batched.candidate.id), storedEvents(of: report.candidate.id))
        }
    }

    /// The workers finish in the reverse order of the sessions (each waits for the next one's
    /// start), and the outcomes still arrive in session order; one that fails does not stop the
    /// others.
    @Test func outcomesArriveInSessionOrderWhateverOrderTheJobsFinishIn() throws {
        let sessions = try recordSessions(3) + [999]
        let started = (0..<sessions.count).map { _ in DispatchSemaphore(value: 0) }
        let finished = Finished()
        var delivered: [(Int, Result<Int64, any Error>)] = []
        replayer.replayAll(sessions, jobs: sessions.count) { job, id in
            let index = sessions.firstIndex(of: id)!
            started[index].signal()
            if index + 1 < sessions.count { started[index + 1].wait() }  // the later session started first
            defer { finished.ids.withLock { $0.append(id) } }
            return try job.replay(session: id, delegate: "checkout.v1", mode: .interaction).candidate.id
        } deliver: { index, outcome in
            delivered.append((index, outcome))
        }
        expectEqual(delivered.map(\.0), [0, 1, 2, 3])
        #expect(delivered.prefix(3).allSatisfy { (try? $0.1.get()) != nil })
        #expect(throws: StoreError.self) { try delivered[3].1.get() }
        expectEqual(finished.ids.withLock { Set($0) }, Set(sessions))
    }

    final class Finished: Sendable {
        let ids = Mutex<[Int64]>([])
    }

    /// At most `BatchPolicy.window(jobs:)` sessions are running or waiting to be delivered
    /// (a number of the jobs and of the batch size), however slow the delivery: the first delivery
    /// waits until the window's last session has started.
    @Test(arguments: [1, 3])
    func sessionsInFlightAreBoundedByTheJobs(jobs: Int) throws {
        _ = try AuditStore(path: database, access: .write)
        let started = Finished()
        let secondStarted = DispatchSemaphore(value: 0)
        let window = Replayer.BatchPolicy.standard.window(jobs: jobs)
        let count = window + 20
        var delivered = 0
        replayer.replayAll((1...count).map(Int64.init), jobs: jobs) { _, id in
            started.ids.withLock { $0.append(id) }
            if id == Int64(window) { secondStarted.signal() }
            return id
        } deliver: { index, outcome in
            if index == 0 { secondStarted.wait() }
            // Running or waiting: taken, and neither delivered before nor being delivered now.
            let inFlight = started.ids.withLock { $0.count } - delivered - 1
            #expect(inFlight <= window, "\(inFlight) sessions running or waiting to be delivered")
            expectEqual((try? outcome.get()), Int64(index + 1))
            delivered += 1
        }
        expectEqual(delivered, count)
    }

    /// A job's recordings take no lock file descriptor past their session: a batch far longer than
    /// the descriptors a process may hold would otherwise fail.
    @Test func aJobReleasesEachSessionsLockWhenItFinishes() throws {
        let sessions = try recordSessions(2)
        let store = try AuditStore(path: database, access: .write)
        for _ in 0..<3 {
            for id in sessions {
                let recorder = try Recorder(
                    recordingInline: store, session: NewSession(scenario: "s", source: "x", delegate: "d"),
                    catalog: .builtIn)
                #expect(recorder.session == 0 && store.recordingLocks.isEmpty, "made when written")
                expectEqual(recorder.finish().status, .complete)
                #expect(store.recordingLocks.isEmpty, "session \(id)")
            }
        }
    }

    /// A job compares without reading fingerprints back: the recorded session's are made from the
    /// rows its plan reads, the candidate's by its recorder before writing them. Both are exactly what
    /// `fingerprints(of:)` reads, for random checkouts recorded with each delegate (vetoes, text
    /// views' states, nested callbacks, every widget kind of the example).
    @Test func fingerprintsMadeWhileReadingAndWritingAreThoseReadBack() throws {
        let sessions = try recordSessions(6)
        let store = try AuditStore(path: database, access: .write)
        let parsed = ParsedOnce()
        for (index, id) in sessions.enumerated() {
            let plan = try ReplayPlan(session: id, store: store, catalog: .builtIn, parsed: parsed)
            expectEqual(plan.fingerprints, (try store.fingerprints(of: id)), "session \(id)")

            let recorder = try Recorder(
                recordingInline: store,
                session: NewSession(scenario: "s", source: plan.scenario.source, delegate: "d"),
                catalog: .builtIn)
            let delegate = try ReplayTests.registry.entry(named: ["checkout.v1", "checkout.v2", "tired"][index % 3])
                .make()
            _ = try withExtendedLifetime(delegate) {
                try ScenarioRunner.run(plan.scenario, steps: plan.steps, delegate: delegate, recorder: recorder)
            }
            let written = try #require(recorder.prepareToFinish())
            let summary = recorder.finish()
            #expect(recorder.wroteWhole && written.count == summary.events)
            expectEqual(written, (try store.fingerprints(of: summary.session)), "replay of session \(id)")
        }
    }

    /// A lone replay's report and a job's, for `session` against each delegate in interaction mode.
    func aloneAndInAJob(_ session: Int64) throws -> [(alone: ReplayReport, job: ReplayReport)] {
        try ["checkout.v1", "checkout.v2", "tired"].map { delegate in
            let alone = try replayer.replay(session: session, delegate: delegate, mode: .interaction)
            var job: Result<ReplayReport, any Error>?
            replayer.replayAll([session], jobs: 1) { job, id in
                try job.replay(session: id, delegate: delegate, mode: .interaction)
            } deliver: { _, outcome in
                job = outcome
            }
            return (alone, try #require(job).get())
        }
    }

    /// An interrupted session is compared up to its last whole input in a job too: the
    /// fingerprints the job reads with the plan are cut as the ones read back are.
    @Test func anInterruptedSessionComparesInAJobAsAlone() throws {
        let session = try recordSessions(1)[0]
        try sqlite(database, "DELETE FROM events WHERE session = \(session) AND seq > 25")
        try sqlite(database, "UPDATE sessions SET status = 'interrupted' WHERE id = \(session)")
        for (alone, job) in try aloneAndInAJob(session) {
            #expect(job.cutShort != nil && job.cutShort == alone.cutShort)
            #expect(job.diff.eventsA == alone.diff.eventsA && job.diff.eventsB == alone.diff.eventsB)
            expectEqual(job.diff.differences.map(DifferenceKey.init), alone.diff.differences.map(DifferenceKey.init))
        }
    }

    /// Rows written before version 4 store '' as an input's protocol, where later ones store its
    /// widget kind: a fingerprint leaves it out either way, made in memory or read back.
    @Test func inputsStoredWithoutAProtocolCompareInAJobAsAlone() throws {
        let session = try recordSessions(1)[0]
        try sqlite(database, "UPDATE callbacks SET protocol = '' WHERE kind = 'input'")
        let reports = try aloneAndInAJob(session)
        #expect(reports[0].job.identical && reports[0].alone.identical)
        #expect(reports.contains { !$0.alone.identical })
        for (alone, job) in reports {
            expectEqual(job.diff.differences.map(DifferenceKey.init), alone.diff.differences.map(DifferenceKey.init))
        }
    }

    /// The jobs commit their sessions a batch at a time, through the writer they share, and an
    /// outcome is delivered only once what it stored is committed: another connection finds every
    /// candidate delivered so far.
    @Test(arguments: [1, 2])
    func jobsDeliverOnlyWhatTheirWriterHasCommitted(jobs: Int) throws {
        let sessions = try recordSessions(5)
        var seen: [Int64] = []
        replayer.replayAll(sessions, jobs: jobs) { job, id in
            try job.replay(session: id, delegate: "checkout.v2", mode: .interaction).candidate.id
        } deliver: { _, outcome in
            guard let candidate = try? outcome.get() else {
                Issue.record("\(outcome)")
                return
            }
            let other = try? AuditStore(path: database, access: .read)
            seen.append(candidate)
            expectEqual((try? other?.session(candidate).status), .complete, "candidate \(candidate) not committed")
        }
        expectEqual(seen.count, sessions.count)
    }

    /// When a batch cannot be committed, each session that wrote in it fails with that error,
    /// whichever job replayed it, and none of their candidates is stored; the next batch goes on.
    /// The batch is made to hold every session, however long they take.
    @Test(arguments: [1, 2], [false, true])
    func aBatchThatCannotBeCommittedFailsEachOfItsSessions(jobs: Int, puttingTurnsOff: Bool) throws {
        let sessions = try recordSessions(3)
        let oneBatch = Replayer.BatchPolicy(sessionsPerBatch: 100, batchAge: .seconds(86_400))
        StoreFaults.inject(SQLITE_FULL, at: database, times: 1, matching: "COMMIT")
        defer { StoreFaults.clear(database) }
        var outcomes: [Result<Int64, any Error>] = []
        if puttingTurnsOff {
            let steps = Replayer.steps(delegate: "checkout.v2", mode: .interaction) { $0.candidate.id }
            replayer.replayAll(sessions, jobs: jobs, policy: oneBatch, steps: steps) {
                outcomes.append($1)
            }
        } else {
            replayer.replayAll(sessions, jobs: jobs, policy: oneBatch) { job, id in
                .outcome(try job.replay(session: id, delegate: "checkout.v2", mode: .interaction).candidate.id)
            } deliver: { _, outcome in
                outcomes.append(outcome)
            }
        }
        // A job alone commits once, at the end; of two, the one that runs out of sessions first
        // commits what is written so far, which fails, and the other's last session may be
        // written in the next batch. Each failed session stored nothing; each other did.
        expectEqual(outcomes.count, 3)
        let failed = outcomes.filter { (try? $0.get()) == nil }.count
        #expect(jobs == 1 ? failed == 3 : failed >= 1)
        for outcome in outcomes where (try? outcome.get()) == nil {
            #expect(throws: StoreError.self) { try outcome.get() }
        }
        let stored = try AuditStore(path: database, access: .read).sessions()
        expectEqual(stored.count, sessions.count + 3 - failed)
        #expect(stored.allSatisfy { $0.status == .complete })
        var again: [Int64] = []
        replayer.replayAll(sessions, jobs: jobs, policy: oneBatch) { job, id in
            .outcome(try job.replay(session: id, delegate: "checkout.v2", mode: .interaction).candidate.id)
        } deliver: { _, outcome in
            if let id = try? outcome.get() { again.append(id) }
        }
        expectEqual(again.count, 3)
    }

    /// What another process finds at any moment of a `replay --all` (what a kill would leave):
    /// candidates whole, complete with every event they count, or not there at all.
    @Test func anotherConnectionFindsOnlyWholeCandidatesWhileJobsRun() throws {
        let sessions = try recordSessions(6)
        var checks = 0
        replayer.replayAll(sessions, jobs: 2, policy: Replayer.BatchPolicy(sessionsPerBatch: 2)) { job, id in
            .outcome(try job.replay(session: id, delegate: "checkout.v2", mode: .interaction).candidate.id)
        } deliver: { _, _ in
            guard let other = try? AuditStore(path: database, access: .read),
                let candidates = try? other.sessions().filter({ $0.replayOf != nil })
            else {
                Issue.record("cannot read the database")
                return
            }
            for candidate in candidates {
                expectEqual(candidate.status, .complete, "\(candidate.id)")
                expectEqual((try? other.timeline(of: candidate.id).count), candidate.events, "\(candidate.id)")
            }
            checks += 1
        }
        expectEqual(checks, sessions.count)
    }

    /// A job about to wait for room commits what it holds first: the session being waited for
    /// may be one it holds uncommitted. Here one job's first session is slow; the other fills
    /// every place, then both wait until the first is delivered. Without that commit they would
    /// wait for ever; the watchdog turns that into a failure.
    @Test func aJobCommitsWhatItHoldsBeforeWaitingForRoom() throws {
        _ = try AuditStore(path: database, access: .write)
        let never = Replayer.BatchPolicy(sessionsPerBatch: 100, batchAge: .seconds(86_400))
        let window = never.window(jobs: 2)
        let sessions = (1...Int64(window + 20)).map { $0 }
        let lastPlace = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let delivered = Mutex(0)
        let replayer = replayer
        let thread = Thread {
            replayer.replayAll(sessions, jobs: 2, policy: never) { job, id in
                if id == 1 { lastPlace.wait() }  // until the other job has taken every other place
                if id == Int64(window) { lastPlace.signal() }
                return .outcome(try job.write { _ in id })
            } deliver: { _, outcome in
                if (try? outcome.get()) != nil { delivered.withLock { $0 += 1 } }
            }
            done.signal()
        }
        thread.start()
        let finished = done.wait(timeout: .now() + 120) == .success
        #expect(finished, "the jobs wait for each other")
        if finished { expectEqual(delivered.withLock { $0 }, sessions.count) }
    }

    /// A job's recorder makes its session only when it is finished, in its turn at the shared
    /// writer: one dropped unfinished (its replay failed before) stores nothing, and never uses
    /// the store the jobs share outside a turn.
    @Test func aJobsRecorderDroppedUnfinishedStoresNothing() throws {
        let sessions = try recordSessions(1)
        let store = try AuditStore(path: database, access: .write)
        do {
            let recorder = try Recorder(
                recordingInline: store, session: NewSession(scenario: "s", source: "x", delegate: "d"),
                catalog: .builtIn)
            let root = View(identifier: "root")
            let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
            root.addSubview(control)
            try recorder.attach(to: root)
            control.tapSegment(1)
            expectEqual(recorder.session, 0)
        }
        try expectEqual(store.sessions().map(\.id), sessions)
    }

    /// Each session a job stores is a savepoint of the open batch; SQLite keeps what a savepoint
    /// changes of the batch's pages in a journal of its own, which past 64 KiB is a temporary
    /// file unless temporary storage is in memory. A connection that begins a batch keeps it in
    /// memory.
    @Test func aBatchKeepsSavepointJournalsInMemory() throws {
        _ = try recordSessions(1)
        let store = try AuditStore(path: database, access: .write)
        let before = try store.connection.scalarInt("PRAGMA temp_store")
        try store.connection.beginBatch()
        try store.connection.commitBatch()
        #expect(before != 2)
        try expectEqual(store.connection.scalarInt("PRAGMA temp_store"), 2)  // MEMORY
    }

    /// A job whose candidate has run while the other holds the shared writer replays its next
    /// session rather than wait, up to `BatchPolicy.turnsHeld(jobs:)` sessions (32 with two jobs),
    /// then waits, and stores them in one turn. Here the first session's turn holds the writer
    /// until the job that took the second has run 32: it must have put each turn off to take the
    /// next, and it may not take a 33rd before the writer is free. Without putting turns off the
    /// jobs would wait for each other; the watchdog turns that into a failure.
    @Test func aJobPutsItsTurnsOffWhileTheWriterIsBusyUpToItsShare() throws {
        _ = try AuditStore(path: database, access: .write)
        let share = Replayer.BatchPolicy.standard.turnsHeld(jobs: 2)
        let sessions = (1...Int64(share + 2)).map { $0 }
        let log = Mutex<[String]>([])
        let (firstStoring, lastOfShareRan) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        var outcomes: [Int64] = []
        replayer.replayAll(sessions, jobs: 2, policy: .standard) { _, id in
            if id == 2 { firstStoring.wait() }
            log.withLock { $0.append("ran \(id)") }
            if id == Int64(share + 1) { lastOfShareRan.signal() }
            return .turn { store in
                if id == 1 {
                    firstStoring.signal()
                    _ = lastOfShareRan.wait(timeout: .now() + 120)  // the watchdog: the log shows it did not run
                }
                log.withLock { $0.append("stored \(id)") }
                _ = try store.connection.scalarInt("SELECT count(*) FROM sessions")
                return id
            }
        } deliver: { _, outcome in
            if let id = try? outcome.get() { outcomes.append(id) }
        }
        expectEqual(outcomes, sessions)
        let entries = log.withLock { $0 }
        expectEqual(Array(entries.prefix(share + 2)), ["ran 1"] + (2...share + 1).map { "ran \($0)" } + ["stored 1"])
        // The turns put off are stored in one turn; the last session, taken by the first job once
        // the writer is free, is stored before or after it.
        let putOff = (2...share + 1).map { "stored \($0)" }
        let last = "stored \(share + 2)"
        let stored = entries.filter { $0.hasPrefix("stored") }
        #expect(stored == ["stored 1", last] + putOff || stored == ["stored 1"] + putOff + [last])
    }

    /// A turn put off that fails is delivered with its error; when the writer cannot begin the
    /// batch the turns put off were to be stored in, each fails with that error. The others are
    /// stored.
    @Test func turnsPutOffFailOneByOneOrAllWhenNoBatchCanBegin() throws {
        _ = try AuditStore(path: database, access: .write)
        StoreFaults.inject(SQLITE_FULL, at: database, times: 1, matching: "BEGIN")
        defer { StoreFaults.clear(database) }
        var outcomes: [Result<Int64, any Error>] = []
        replayer.replayAll([1, 2, 3], jobs: 1, policy: .standard) { _, id in
            .turn { _ in
                if id == 3 { throw ReplayError.nothingRecorded(session: id) }
                return id
            }
        } deliver: { _, outcome in
            outcomes.append(outcome)
        }
        expectEqual(outcomes.count, 3)
        #expect(throws: StoreError.self) { try outcomes[0].get() }
        expectEqual((try? outcomes[1].get()), 2)
        #expect(throws: ReplayError.self) { try outcomes[2].get() }
    }

    /// The checkpointer copies the WAL into the database file while the writer keeps its
    /// connection: what was committed before `stop()`, asked for or not, is copied.
    @Test func theCheckpointerCopiesTheWALIntoTheDatabase() throws {
        _ = try recordSessions(1)
        let store = try AuditStore(path: database, access: .write)
        try store.prepareForRecording()
        func createSession() throws {
            _ = try store.createSession(
                NewSession(scenario: "s", source: String(repeating: "x", count: 100_000), delegate: "d"))
        }
        func size(_ path: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        }
        try createSession()
        let before = try size(database)
        #expect(try size(database + "-wal") > 100_000)
        let checkpointer = Replayer.Checkpointer(path: database)
        checkpointer.checkpoint()
        try createSession()  // after the checkpoint was asked for, maybe while it runs
        checkpointer.stop()
        let after = try size(database)
        #expect(after > before + 150_000, "\(before) \(after)")  // most of the two texts' pages
        try expectEqual(store.sessions().count, 3)
    }
}
