import CSQLite
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore

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
        #expect(summary.lostEvents == 0)
        #expect(summary.events == 30)
        #expect(summary.failedWrites == 3)
        #expect(summary.status == "complete" && summary.statusWritten)
        #expect(summary.lastError == "writing events 1–30 failed: database or disk is full")
        let (status, failures, seqs) = try stored(summary)
        #expect(status == "complete")
        #expect(failures == 3)
        #expect(seqs == Array(1...30))
    }

    @Test func aDatabaseBusyAtFinishIsWaitedFor() throws {
        // Another process holds the write lock past the busy timeout five times in a row (BEGIN
        // IMMEDIATE fails with SQLITE_BUSY), then lets go.
        let summary = try record(taps: 10, options: Self.options()) {
            StoreFaults.inject(SQLITE_BUSY, at: database, times: 5, matching: "BEGIN IMMEDIATE")
        }
        defer { StoreFaults.clear(database) }
        #expect(summary.lostEvents == 0)
        #expect(summary.failedWrites == 5)
        #expect(summary.status == "complete")
        #expect(summary.lastError == "writing events 1–30 failed: database is locked")
        #expect(summary.secondsFinishing > 0)
        #expect(try stored(summary).seqs == Array(1...30))
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
        #expect(summary.lostEvents == 0)
        #expect(summary.failedWrites >= 4)
        #expect(summary.status == "complete")
        let (status, failures, seqs) = try stored(summary)
        #expect(status == "complete")
        #expect(failures == Int64(summary.failedWrites))
        #expect(seqs == Array(1...30))
    }

    @Test func aSessionThatCannotBeMarkedCompleteIsReportedInterrupted() throws {
        // Every event is stored; only marking the session complete fails, for good.
        let summary = try record(taps: 10, options: Self.options(patience: 0)) {
            StoreFaults.inject(SQLITE_FULL, at: database, matching: "SET status")
        }
        StoreFaults.clear(database)
        #expect(summary.lostEvents == 0)
        #expect(summary.events == 30)
        #expect(summary.status == "interrupted")
        #expect(!summary.statusWritten)
        #expect(summary.failedWrites == EventWriter.maximumAttempts)
        #expect(summary.lastError == "marking the session complete failed: database or disk is full")
        let (status, _, seqs) = try stored(summary)
        #expect(status == "recording")  // readers show it as interrupted once the process is gone
        #expect(seqs == Array(1...30))
    }

    @Test func failuresBeforeTheSessionIsMarkedCompleteAreCounted() throws {
        // Marking the session complete fails twice, then succeeds: the two failures are stored.
        let summary = try record(taps: 10, options: Self.options()) {
            StoreFaults.inject(SQLITE_FULL, at: database, times: 2, matching: "SET status")
        }
        defer { StoreFaults.clear(database) }
        #expect(summary.status == "complete" && summary.statusWritten)
        #expect(summary.failedWrites == 2)
        #expect(summary.lastError == "marking the session complete failed: database or disk is full")
        let (status, failures, _) = try stored(summary)
        #expect(status == "complete")
        #expect(failures == 2)
    }

    @Test func anEventWaitingPastTheMaximumDelayMakesTheCallerWaitForTheWriter() throws {
        // With no delay allowed, every event after the first waits until the writer took the queue:
        // backpressure by time, and nothing is lost.
        var options = Self.options()
        options.maximumDelay = 0
        let summary = try record(taps: 10, options: options)
        #expect(summary.timesBlocked > 0)
        #expect(summary.lostEvents == 0)
        #expect(try stored(summary).seqs == Array(1...30))
    }

    @Test func aLastingFaultNamesTheWriteThatLostEvents() throws {
        let summary = try record(taps: 10, options: Self.options(patience: 0)) {
            StoreFaults.inject(SQLITE_FULL, at: database)
        }
        StoreFaults.clear(database)
        // Three tries of the batch, then one of marking the session interrupted: the line names
        // the write that lost the events.
        #expect(summary.failedWrites == EventWriter.maximumAttempts + 1)
        #expect(summary.lostEvents == 30)
        #expect(summary.status == "interrupted")
        #expect(summary.lastError == "writing events 1–30 failed: database or disk is full")
    }
}
