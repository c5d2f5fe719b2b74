import CSQLite
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// How a recording ends: what is still pending when `finish()` is called is tried again as
/// patiently as while recording, marking the session finished too, and a session that could not be
/// marked `complete` is reported `interrupted`, with every failed write counted and named.
///
/// Each fault is made by construction (`StoreFaults`), and ordered with `StoreFaults.wait`: the
/// writer never commits before `finish()` (a batch larger than the run, a flush interval and a
/// maximum delay of an hour), so every write below happens while finishing.
@Suite("Finishing a recording: patience, status and the failure count")
struct FinishingTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// Nothing is written before `finish()`; failed writes are tried again for ten minutes, which no
    /// test waits for (each fault ends by construction), or not at all after three.
    static func options(patience: TimeInterval = 600) -> Recorder.Options {
        var options = Recorder.Options()
        options.batchSize = 1_000_000
        options.flushInterval = 3_600
        options.maximumDelay = 3_600
        options.patience = patience
        return options
    }

    /// A recorder on two segmented controls, tapped `taps` times: 3 events a tap (the input and
    /// two callbacks).
    func record(taps: Int, options: Recorder.Options, beforeFinishing: () -> Void = {}) throws -> RecordingSummary {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn, options: options)
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let delegate = LoggingDelegate()
        control.delegate = delegate
        try recorder.attach(to: root)
        for tap in 0..<taps { control.tapSegment(1 + tap % 2) }
        beforeFinishing()
        return recorder.finish()
    }

    /// `record(taps:options:)` through a store the caller keeps, as a replay job records.
    func recordInline(
        taps: Int, options: Recorder.Options = Recorder.Options(), beforeFinishing: () -> Void = {},
        finishing: (Recorder) -> RecordingSummary = { $0.finish() }
    ) throws -> RecordingSummary {
        let store = try AuditStore(path: database, access: .write)
        let recorder = try Recorder(recordingInline: store, session: newSession(), catalog: .builtIn, options: options)
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        root.addSubview(control)
        control.delegate = LoggingDelegate()
        try recorder.attach(to: root)
        for tap in 0..<taps { control.tapSegment(1 + tap % 2) }
        beforeFinishing()
        return finishing(recorder)
    }

    /// A replay job's recorder makes its events' fingerprints before writing them; they are the
    /// stored session's when it is written whole (`wroteWhole`), and a job uses them only then:
    /// after a failed write, even one made good, they are read back.
    @Test func fingerprintsMadeBeforeWritingStandOnlyWhenWrittenWhole() throws {
        var made: [EventFingerprint]?
        var whole = false
        let written = try recordInline(
            taps: 10,
            finishing: { recorder in
                made = recorder.prepareToFinish()
                defer { whole = recorder.wroteWhole }
                return recorder.finish()
            })
        #expect(made?.count == 30 && whole)
        expectEqual(made, (try AuditStore(path: database, access: .read).fingerprints(of: written.session)))
        let failed = try recordInline(
            taps: 10,
            beforeFinishing: {
                StoreFaults.inject(SQLITE_FULL, at: database, times: 1, matching: "INSERT INTO events")
            },
            finishing: { recorder in
                _ = recorder.prepareToFinish()
                defer { whole = recorder.wroteWhole }
                return recorder.finish()
            })
        defer { StoreFaults.clear(database) }
        #expect(failed.failedWrites == 1 && failed.lostEvents == 0 && failed.status == .complete)
        #expect(!whole)
    }

    /// A session recorded inline is made when it finishes, complete, in the transaction that
    /// writes its events: one commit for the session, its events and its status.
    @Test func anInlineRecordingIsMarkedCompleteWithItsEvents() throws {
        // "status": the session inserted complete, or marked so later.
        let summary = try recordInline(taps: 10) {
            StoreFaults.inject(SQLITE_FULL, at: database, times: 1, matching: "status")
        }
        defer { StoreFaults.clear(database) }
        // Inserting it complete failed inside the events' transaction, which rolled back as one
        // (a writer thread's would say "marking the session complete failed"); the session was
        // then made recording with its events, and marked complete after them.
        expectEqual(summary.lastError, "writing events 1–30 failed: database or disk is full")
        #expect(summary.status == .complete && summary.statusWritten)
        #expect(summary.failedWrites == 1 && summary.lostEvents == 0)
        let (status, failures, seqs) = try stored(summary)
        expectEqual(status, "complete")
        expectEqual(failures, 1)
        expectEqual(seqs, Array(1...30))
    }

    /// When its status cannot be written for good, an inline recording still keeps every event, as
    /// one written by a writer thread does: only the first try joins the two.
    @Test func anInlineRecordingThatCannotBeMarkedCompleteKeepsItsEvents() throws {
        // No patience: the status is tried its least number of times, and given up.
        let summary = try recordInline(taps: 10, options: Self.options(patience: 0)) {
            StoreFaults.inject(SQLITE_FULL, at: database, matching: "status")
        }
        StoreFaults.clear(database)
        #expect(summary.lostEvents == 0 && summary.events == 30)
        #expect(summary.status == .interrupted && !summary.statusWritten)
        let (status, _, seqs) = try stored(summary)
        expectEqual(status, "recording")
        expectEqual(seqs, Array(1...30))
    }

    func stored(_ summary: RecordingSummary) throws -> (status: String?, failures: Int64?, seqs: [Int64]) {
        let connection = try Connection(path: database, mode: .readOnly)
        let row = "FROM sessions WHERE id = \(summary.session)"
        return (
            try connection.scalarText("SELECT status \(row)"), try connection.scalarInt("SELECT failure_count \(row)"),
            try AuditStore(path: database, access: .read).timeline(of: summary.session).map(\.seq)
        )
    }

    @Test func theLastBatchFailingAtFinishIsTriedAgainAndNothingIsLost() throws {
        // The disk is full for the first three tries of the last (here: only) batch, then has room.
        let summary = try record(taps: 10, options: Self.options()) {
            StoreFaults.inject(SQLITE_FULL, at: database, times: 3)
        }
        defer { StoreFaults.clear(database) }
        expectEqual(summary.lostEvents, 0)
        expectEqual(summary.events, 30)
        expectEqual(summary.failedWrites, 3)
        #expect(summary.status == .complete && summary.statusWritten)
        expectEqual(summary.lastError, "writing events 1–30 failed: database or disk is full")
        let (status, failures, seqs) = try stored(summary)
        expectEqual(status, "complete")
        expectEqual(failures, 3)
        expectEqual(seqs, Array(1...30))
    }

    @Test func aDatabaseBusyAtFinishIsWaitedFor() throws {
        // Another process holds the write lock past the busy timeout five times in a row (BEGIN
        // IMMEDIATE fails with SQLITE_BUSY), then lets go.
        let summary = try record(taps: 10, options: Self.options()) {
            StoreFaults.inject(SQLITE_BUSY, at: database, times: 5, matching: "BEGIN IMMEDIATE")
        }
        defer { StoreFaults.clear(database) }
        expectEqual(summary.lostEvents, 0)
        expectEqual(summary.failedWrites, 5)
        expectEqual(summary.status, .complete)
        expectEqual(summary.lastError, "writing events 1–30 failed: database is locked")
        #expect(summary.secondsFinishing > 0)
        try expectEqual(stored(summary).seqs, Array(1...30))
    }

    @Test func aDiskFullUntilReleasedAtFinishLosesNothing() throws {
        let path = database
        let released = DispatchSemaphore(value: 0)
        let summary = try record(taps: 10, options: Self.options()) {
            StoreFaults.inject(SQLITE_FULL, at: path)
            // Room comes back once the writer has failed four times: while it finishes.
            Thread.detachNewThread {
                StoreFaults.wait(forFailures: 4, at: path)
                StoreFaults.clear(path)
                released.signal()
            }
        }
        released.wait()
        expectEqual(summary.lostEvents, 0)
        #expect(summary.failedWrites >= 4)
        expectEqual(summary.status, .complete)
        let (status, failures, seqs) = try stored(summary)
        expectEqual(status, "complete")
        expectEqual(failures, Int64(summary.failedWrites))
        expectEqual(seqs, Array(1...30))
    }

    @Test func aSessionThatCannotBeMarkedCompleteIsReportedInterrupted() throws {
        // Every event is stored; only marking the session complete fails, for good.
        let summary = try record(taps: 10, options: Self.options(patience: 0)) {
            StoreFaults.inject(SQLITE_FULL, at: database, matching: "SET status")
        }
        StoreFaults.clear(database)
        expectEqual(summary.lostEvents, 0)
        expectEqual(summary.events, 30)
        expectEqual(summary.status, .interrupted)
        #expect(!summary.statusWritten)
        expectEqual(summary.failedWrites, EventWriter.maximumAttempts)
        expectEqual(summary.lastError, "marking the session complete failed: database or disk is full")
        let (status, _, seqs) = try stored(summary)
        expectEqual(status, "recording")  // readers show it as interrupted once the process is gone
        expectEqual(seqs, Array(1...30))
    }

    @Test func failuresBeforeTheSessionIsMarkedCompleteAreCounted() throws {
        // Marking the session complete fails twice, then succeeds: the two failures are stored.
        let summary = try record(taps: 10, options: Self.options()) {
            StoreFaults.inject(SQLITE_FULL, at: database, times: 2, matching: "SET status")
        }
        defer { StoreFaults.clear(database) }
        #expect(summary.status == .complete && summary.statusWritten)
        expectEqual(summary.failedWrites, 2)
        expectEqual(summary.lastError, "marking the session complete failed: database or disk is full")
        let (status, failures, _) = try stored(summary)
        expectEqual(status, "complete")
        expectEqual(failures, 2)
    }

    @Test func anEventWaitingPastTheMaximumDelayMakesTheCallerWaitForTheWriter() throws {
        // With no delay allowed, every event after the first waits until the writer took the queue:
        // backpressure by time, and nothing is lost.
        var options = Self.options()
        options.maximumDelay = 0
        let summary = try record(taps: 10, options: options)
        #expect(summary.timesBlocked > 0)
        expectEqual(summary.lostEvents, 0)
        try expectEqual(stored(summary).seqs, Array(1...30))
    }

    @Test func aLastingFaultNamesTheWriteThatLostEvents() throws {
        let summary = try record(taps: 10, options: Self.options(patience: 0)) {
            StoreFaults.inject(SQLITE_FULL, at: database)
        }
        StoreFaults.clear(database)
        // Three tries of the batch, then one of marking the session interrupted: the line names
        // the write that lost the events.
        expectEqual(summary.failedWrites, EventWriter.maximumAttempts + 1)
        expectEqual(summary.lostEvents, 30)
        expectEqual(summary.status, .interrupted)
        expectEqual(summary.lastError, "writing events 1–30 failed: database or disk is full")
    }
}

extension FinishingTests {
    /// Events captured after finish() are dropped and counted, not kept in memory.
    @Test func eventsAfterFinishAreDroppedAndCounted() throws {
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        recorder.finish()
        for i in 0..<10_000 { control.tapSegment(i % 2) }
        // Each tap is an input and (for a change) two callbacks; none is kept.
        #expect(recorder.queue.counts.late >= 10_000)
        #expect(try AuditStore(path: database, access: .read).timeline(of: recorder.session).isEmpty)
    }

    /// Events are numbered from 1, contiguously. finish() while events are in progress stores no gap: what
    /// has no predecessor is lost and counted, and the session is interrupted.
    @Test func finishInsideACallbackLeavesNoGap() throws {
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let delegate = LoggingDelegate()
        delegate.onDidSelect = { _, _ in recorder.finish() }
        control.delegate = delegate
        try recorder.attach(to: root)
        control.tapSegment(1)
        let events = try AuditStore(path: database, access: .read).timeline(of: recorder.session)
        let status = try AuditStore(path: database, access: .read).session(recorder.session).status
        expectEqual(events.map(\.seq), Array(1...Int64(max(events.count, 1))).prefix(events.count).map { $0 })
        expectEqual(status, .interrupted)
        #expect(recorder.finish().lostEvents > 0)
    }

    /// A batch that fails (the database busy past its timeout, made so by fault injection rather
    /// than by holding the lock and hoping the writer tries meanwhile) is retried with the next
    /// one: no gap, and the session replays identically.
    @Test func aFailedWriteIsRetriedWithoutAGap() throws {
        let s = try inlineScenario(
            #"{"kind":"View","id":"r","children":[{"kind":"SegmentedControl","id":"c","segments":["a","b"],"selected":0}]}"#,
            #"{"action":"tapSegment","widget":"r/c","segment":1}"#)
        var options = Recorder.Options()
        options.flushInterval = 0.01
        let recorder = try Recorder(
            databasePath: database,
            session: NewSession(name: "x", scenario: "s", source: s.source, delegate: "checkout.v1"),
            catalog: .builtIn, options: options)
        let delegate = CheckoutDelegate(version: .v1)
        let root = s.root.build()
        ScenarioRunner.adopt(delegate, in: root, catalog: .builtIn)
        try recorder.attach(to: root)
        let control = root.view(atPath: "r/c") as! SegmentedControl
        control.tapSegment(1)
        StoreFaults.inject(SQLITE_BUSY, at: database, times: 1, matching: "INSERT INTO events")
        defer { StoreFaults.clear(database) }
        control.tapSegment(0)
        StoreFaults.wait(forFailures: 1, at: database)
        control.tapSegment(1)
        let summary = recorder.finish()
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        #expect(summary.failedWrites >= 1, "the locked write failed once")
        expectEqual(summary.lostEvents, 0)
        expectEqual(events.map(\.seq), Array(1...Int64(events.count)), "seqs \(events.map(\.seq))")
        let report = try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
            session: summary.session, delegate: "checkout.v1", mode: .interaction)
        #expect(
            report.identical,
            "\(report.cutShort?.description ?? "") \(report.diff.differences.map { "\($0.kind) #\($0.event.seq) \($0.event.callback)" })"
        )
    }
}
