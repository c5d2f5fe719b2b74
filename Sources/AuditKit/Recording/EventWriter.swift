import AuditModel
import AuditStorage
import Foundation
import Synchronization

/// The writer thread's work: take batches from the queue and commit them, in `seq` order.
///
/// An event is committed only once every event with a smaller `seq` is committed too. A callback
/// is numbered when it starts but queued when it returns, so an outer callback arrives after the
/// ones nested in it; holding back the non-contiguous tail keeps the stored prefix hole-free.
///
/// A batch whose transaction fails (the database busy past its timeout, the disk full) stays
/// pending and is tried again with the next one, a little later each time; the writer keeps
/// draining the queue meanwhile, so the app never waits for it. When writes have failed for
/// `patience` (and at least `maximumAttempts` times) in a row, the writer gives up: nothing more is
/// written, every event from then on is counted as lost, and the session is left `interrupted` (if
/// that can still be written). Either way what is stored is a contiguous prefix of the session.
///
/// Finishing keeps the same patience: what is still pending when the queue closes is tried again
/// until it is written or the writer gives up, and so is marking the session finished. A session
/// whose final status could not be written stays `recording` in the file, which readers show as
/// `interrupted` once the process is gone: the summary says `interrupted` then too.
final class EventWriter: @unchecked Sendable {
    // @unchecked: every var is touched only by the writer thread inside `run` (and, for a writer
    // run inline, in `prepare` and `prepared` on the same thread); `summary` reads `result` under
    // its lock.
    // `store` moves to the writer thread in `run` and is closed there.
    private var store: AuditStore!
    /// The session written: 0 until it is made, for a writer that makes it (`creating`).
    private var session: Int64
    /// The session to make in the first write, with its events (a replay job's recorder, which
    /// writes inline), while it is not made yet.
    private var creating: NewSession?
    private let patience: Int64
    private var pending: [CapturedEvent] = []
    /// The events a borrowed store's write stored, kept to be freed with the writer (`write`).
    private var written: [CapturedEvent] = []
    private var pendingWidgets: [WidgetRecord] = []
    private var pendingScenario: String?
    private var nextSeq: Int64 = 1
    private var counters = AuditStore.SessionCounters()
    private var failedWrites = 0
    private var failuresInARow = 0
    private var failingSince: Int64 = 0
    private var gaveUp = false
    private var lostEvents = 0
    private var lastError: String?
    /// Whether the last write also marked the session complete (`write(ending:)`).
    private var markedComplete = false
    private let result = Mutex<RecordingSummary?>(nil)
    /// Whether the session was written whole, without a failed write (even one a later try made
    /// good) or a lost event: set at the end of `run`.
    private let writtenWhole = Atomic<Bool>(false)
    /// The pending events' argument texts and answers, encoded ahead of the write (`prepare`).
    private var encodedAhead: Encoded?
    /// Set by the recorder once it has attached to a tree. A session made up front whose recorder
    /// never attached (`Recorder.attach` refused every tree) is deleted when the writer ends: it
    /// holds nothing to replay.
    let attached = Atomic<Bool>(false)

    static let maximumAttempts = 3

    /// Whether the store is this writer's alone, to checkpoint and close when the session ends;
    /// a borrowed one (a replay job's) is left as it is.
    private let ownsStore: Bool

    /// `patience` in seconds: see the type's documentation.
    init(
        store: AuditStore, session: Int64, creating: NewSession? = nil, patience: TimeInterval, ownsStore: Bool = true
    ) {
        self.store = store
        self.session = session
        self.creating = creating
        self.patience = Int64(patience * 1e9)
        self.ownsStore = ownsStore
    }

    func run(queue: EventQueue, interval: TimeInterval) {
        var batch: [CapturedEvent] = []
        batch.reserveCapacity(min(queue.capacity, EventQueue.reservedCapacity))
        var lastCheckpoint = monotonicNanoseconds()
        while true {
            let (widgets, scenario, closed) = queue.take(into: &batch, interval: interval)
            pendingWidgets += widgets
            if let scenario { pendingScenario = scenario }
            pending.appendSplittingAnswers(batch)
            batch.removeAll(keepingCapacity: true)
            if !pending.isEmpty || !pendingWidgets.isEmpty || pendingScenario != nil || creating != nil {
                // A replay job's session is written at once, when it is closed: it is made (or
                // marked) complete in the same transaction as its events.
                write(ending: closed && !ownsStore && failedWrites == 0)
            }
            if closed { break }
            if !gaveUp && monotonicNanoseconds() - lastCheckpoint > 1_000_000_000 {
                try? store.checkpoint(.passive)  // a checkpoint that fails loses nothing: the WAL keeps it all
                lastCheckpoint = monotonicNanoseconds()
            }
        }
        let closedAt = monotonicNanoseconds()
        // A write that failed is tried again, as patiently as while recording.
        while failuresInARow > 0 && !gaveUp { write() }
        // Events still pending now never got their predecessors (a callback still running when
        // the recording finished), or could not be written: they are lost, not stored with a hole.
        lostEvents += pending.count
        pending.removeAll()
        // Failures that a later try made good leave the session whole: only a loss interrupts it.
        let status: SessionStatus = lostEvents == 0 ? .complete : .interrupted
        let lossError = lostEvents > 0 ? lastError : nil  // the write that lost events says the most
        if markedComplete { store.releaseRecordingLock(of: session) }
        // A session whose recorder attached to nothing holds nothing to replay: it is deleted, and
        // the summary says so (session 0, complete: nothing was lost).
        var deleted = false
        if session != 0, creating == nil, ownsStore, counters.events == 0, !attached.load(ordering: .acquiring),
            patiently("deleting the session, to which nothing was attached", { try store.deleteEmptySession(session) })
        {
            lastError =
                "nothing was attached (Recorder.attach refused every tree, or was never called): no session stored"
            session = 0
            deleted = true
        }
        let statusWritten =
            deleted
            || session != 0
                && (markedComplete
                    || patiently("marking the session \(status)") {
                        var final = counters
                        final.failures = failedWrites
                        try store.finishSession(session, status: status, counters: final)
                    })
        if let lossError { lastError = lossError }
        let finishing = Double(monotonicNanoseconds() - closedAt) / 1e9
        writtenWhole.store(failedWrites == 0 && lostEvents == 0, ordering: .releasing)
        if ownsStore { try? store.checkpoint(.truncate) }  // an untruncated WAL loses nothing
        let waited = store.secondsWaitedToWrite
        store = nil  // closes the connection on the writer thread, removing the -wal and -shm files
        let summary = RecordingSummary(
            session: session, events: counters.events, inputs: counters.inputs, callbacks: counters.callbacks,
            vetoes: counters.vetoes, failedWrites: failedWrites, lostEvents: lostEvents, lastError: lastError,
            timesBlocked: 0, status: statusWritten ? status : .interrupted, statusWritten: statusWritten,
            secondsWaitedForDatabase: waited, secondsFinishing: finishing)
        result.withLock { $0 = summary }
    }

    /// Whether `run` wrote the session whole: no write failed (not even one a later try made
    /// good) and no event was lost.
    var wroteWhole: Bool { writtenWhole.load(ordering: .acquiring) }

    /// Takes what a closed `queue` holds and encodes it, ahead of `run`, which then only stores
    /// it: a replay job runs this on its own thread, and `run` in its turn at the shared writer.
    /// Returns the events' fingerprints, which are those of the session stored if `run` writes
    /// it whole (`wroteWhole`).
    func prepare(queue: EventQueue) -> [EventFingerprint] {
        var batch: [CapturedEvent] = []
        let (widgets, scenario, _) = queue.take(into: &batch, interval: 0)
        pendingWidgets += widgets
        if let scenario { pendingScenario = scenario }
        pending.appendSplittingAnswers(batch)
        if !pending.isInSeqOrder { pending.sort { $0.seq < $1.seq } }
        let encoded = Encoded(pending[...])
        encodedAhead = encoded
        // A widget described again replaces its row, as the later path here.
        var paths: [Int32: UInt64] = [:]
        for widget in pendingWidgets {
            var hash = FNV1a()
            hash.add(string: widget.path)
            paths[widget.id] = hash.value
        }
        var names: [ObjectIdentifier: UInt64] = [:]  // the events keep their descriptors alive
        return pending.indices.map { index in  // by index, as iterating would copy each event
            let answer = encoded.answers[index]
            let descriptor = pending[index].descriptor
            let name =
                names[ObjectIdentifier(descriptor)]
                ?? EventFingerprint.nameHash(
                    kind: descriptor.kind.rawValue, protocolName: descriptor.protocolName, name: descriptor.name)
            names[ObjectIdentifier(descriptor)] = name
            var text = encoded.arguments[index]
            return text.withUTF8 {
                EventFingerprint(
                    seq: pending[index].seq, parent: pending[index].parent,
                    name: EventFingerprint.nameHash(name, later: pending[index].later),
                    widget: paths[pending[index].widget] ?? 0,
                    arguments: UnsafeRawBufferPointer($0), result: EventFingerprint.resultHash(answer.result),
                    answer: answer.outcome, later: pending[index].later, answers: pending[index].answers)
            }
        }
    }

    /// The events and widgets `prepare` took, in `seq` order: what a caller comparing runs in
    /// memory reads instead of storing them (explore).
    var prepared: (events: [CapturedEvent], widgets: [WidgetRecord]) { (pending, pendingWidgets) }

    /// Events' argument texts and answers, as stored.
    private struct Encoded {
        var arguments: [String]
        var answers: [StoredAnswer]

        /// By index, as iterating would copy each event.
        init(_ events: ArraySlice<CapturedEvent>) {
            var bytes: [UInt8] = []
            arguments = events.indices.map { index in
                bytes.removeAll(keepingCapacity: true)
                events[index].arguments.appendJSON(to: &bytes)
                return String(decoding: bytes, as: UTF8.self)
            }
            answers = events.indices.map { index in
                StoredAnswer(result: events[index].result, outcome: events[index].answer)
            }
        }
    }

    func summary(queue: EventQueue) -> RecordingSummary {
        var summary = result.withLock { $0 }!
        let counts = queue.counts
        summary.timesBlocked = counts.timesBlocked
        summary.eventsAfterFinish = counts.late
        return summary
    }

    /// Commits the contiguous prefix of what is pending, with the widgets seen so far; with
    /// `ending`, when that is everything, the session is marked complete in the same transaction.
    private func write(ending: Bool = false) {
        if gaveUp {
            lostEvents += pending.count
            pending.removeAll(keepingCapacity: true)
            return
        }
        if !pending.isInSeqOrder { pending.sort { $0.seq < $1.seq } }
        var ready = 0
        while ready < pending.count && pending[ready].seq == nextSeq + Int64(ready) { ready += 1 }
        var updated = counters
        for index in 0..<ready { updated.count(pending[index]) }  // by index: iterating copies each event
        updated.failures = failedWrites
        let completing = ending && ready == pending.count
        // Encoded before the transaction, so the database's write lock (which other writers wait
        // for) is held only for the inserts; ahead of `run` when prepared, if it covers them.
        var encoded = encodedAhead ?? Encoded(pending[..<ready])
        encodedAhead = nil
        if encoded.arguments.count != ready {
            encoded.arguments.removeSubrange(ready...)
            encoded.answers.removeSubrange(ready...)
        }
        let arguments = encoded.arguments
        do {
            if creating != nil { try store.checkBeforeRecording() }
            try store.transaction {
                if let creating {
                    // Made with its first events (complete at once when they are all of them).
                    session = try store.insertSession(creating, finished: completing ? updated : nil)
                }
                if let source = pendingScenario { try store.updateScenarioSource(of: session, to: source) }
                for widget in pendingWidgets {
                    try store.insertWidget(
                        session: session, id: widget.id, path: widget.path, kind: widget.kind, parent: widget.parent)
                }
                let rows = try (0..<ready).map { index in
                    AuditStore.EventRow(
                        seq: pending[index].seq, time: pending[index].time, widget: pending[index].widget,
                        callback: try store.internCallback(pending[index].descriptor), answer: encoded.answers[index],
                        duration: pending[index].duration, parent: pending[index].parent, later: pending[index].later,
                        answers: pending[index].answers)
                }
                try store.insertEvents(session: session, rows, arguments: arguments)
                if creating == nil || !completing {
                    try store.updateCounters(session: session, updated, status: completing ? .complete : nil)
                }
                markedComplete = completing
            }
        } catch {
            markedComplete = false  // rolled back with the rest
            if creating != nil { session = 0 }  // and the session made
            store.forgetCallbackNames()  // ids interned in the rolled-back transaction are gone
            let operation =
                ready > 0
                ? "writing events \(nextSeq)–\(nextSeq + Int64(ready) - 1)" : "writing the session's widgets"
            failed(operation, error)
            if gaveUp {
                lostEvents += pending.count
                pending.removeAll(keepingCapacity: true)
            }
            return
        }
        failuresInARow = 0
        creating = nil
        counters = updated
        pendingWidgets.removeAll()
        pendingScenario = nil
        if ready > 0 { nextSeq = pending[ready - 1].seq + 1 }
        if ready == pending.count && !ownsStore {
            // A replay job's recorder writes in its turn at the shared writer, which the other
            // jobs may be waiting for: its events are freed after the turn, with the writer.
            written = pending
            pending = []
        } else if ready == pending.count {
            pending.removeAll(keepingCapacity: true)
        } else {
            pending.removeFirst(ready)
        }
    }

    /// Runs `body` until it succeeds or the writer gives up on it (at once when it has already
    /// given up: one try). Returns whether it succeeded.
    private func patiently(_ operation: String, _ body: () throws -> Void) -> Bool {
        while true {
            do {
                try body()
                failuresInARow = 0
                return true
            } catch {
                failed(operation, error)
                if gaveUp { return false }
            }
        }
    }

    /// Counts a failed write, waits a little (longer each time in a row), and gives up once writes
    /// have failed for `patience` and at least `maximumAttempts` times in a row.
    private func failed(_ operation: String, _ error: any Error) {
        failedWrites += 1
        failuresInARow += 1
        lastError = "\(operation) failed: \((error as? SQLiteError)?.message ?? "\(error)")"
        if failuresInARow == 1 { failingSince = monotonicNanoseconds() }
        if failuresInARow >= Self.maximumAttempts && monotonicNanoseconds() - failingSince >= patience {
            gaveUp = true
            return
        }
        Thread.sleep(forTimeInterval: min(0.01 * Double(failuresInARow), 0.1))
    }

}

extension Array where Element == CapturedEvent {
    /// Whether the events are in `seq` order; by index, as iterating would copy each event.
    fileprivate var isInSeqOrder: Bool {
        indices.dropFirst().allSatisfy { self[$0 - 1].seq <= self[$0].seq }
    }
}
