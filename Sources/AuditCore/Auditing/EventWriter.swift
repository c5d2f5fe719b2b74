import Foundation
import Synchronization

/// The writer thread's work: take batches from the queue and commit them, in `seq` order.
///
/// An event is committed only once every event with a smaller `seq` is committed too. A callback
/// is numbered when it starts but queued when it returns, so an outer callback arrives after the
/// ones nested in it; holding back the non-contiguous tail keeps the stored prefix hole-free.
final class EventWriter: @unchecked Sendable {
    // @unchecked: every var is touched only by the writer thread inside `run`; `summary` reads
    // `result` under its lock. `store` moves to the writer thread in `run` and is closed there.
    private var store: AuditStore!
    private let session: Int64
    private var pending: [CapturedEvent] = []
    private var nextSeq: Int64 = 1
    private var callbackIDs: [ObjectIdentifier: Int64] = [:]
    private var counters = AuditStore.SessionCounters()
    private var failedWrites = 0
    private var lostEvents = 0
    private var lastError: String?
    private let result = Mutex<RecordingSummary?>(nil)

    init(store: AuditStore, session: Int64) {
        self.store = store
        self.session = session
    }

    func run(queue: EventQueue, interval: TimeInterval) {
        var batch: [CapturedEvent] = []
        batch.reserveCapacity(queue.batchSize)
        var lastCheckpoint = monotonicNanoseconds()
        while true {
            let (widgets, closed) = queue.take(into: &batch, interval: interval)
            if !widgets.isEmpty || !batch.isEmpty { write(widgets: widgets, events: batch, final: closed) }
            batch.removeAll(keepingCapacity: true)
            if closed { break }
            if monotonicNanoseconds() - lastCheckpoint > 1_000_000_000 {
                attempt { try store.checkpoint(.passive) }
                lastCheckpoint = monotonicNanoseconds()
            }
        }
        let status = failedWrites == 0 ? "complete" : "interrupted"
        attempt { try store.finishSession(session, status: status, counters: counters) }
        attempt { try store.checkpoint(.truncate) }
        store = nil  // closes the connection on the writer thread, removing the -wal and -shm files
        let summary = RecordingSummary(
            session: session, events: counters.events, inputs: counters.inputs, callbacks: counters.callbacks,
            vetoes: counters.vetoes, failedWrites: failedWrites, lostEvents: lostEvents, lastError: lastError,
            timesBlocked: 0, status: failedWrites == 0 ? "complete" : "interrupted")
        result.withLock { $0 = summary }
    }

    func summary(blocked: Int) -> RecordingSummary {
        var summary = result.withLock { $0 }!
        summary.timesBlocked = blocked
        return summary
    }

    private func write(widgets: [WidgetRecord], events: [CapturedEvent], final: Bool) {
        pending.append(contentsOf: events)
        if !pending.isSorted(by: \.seq) { pending.sort { $0.seq < $1.seq } }
        var ready = 0
        if final {
            ready = pending.count
        } else {
            while ready < pending.count && pending[ready].seq == nextSeq + Int64(ready) { ready += 1 }
        }
        var updated = counters
        let committed = attempt {
            try store.transaction {
                for widget in widgets {
                    try store.insertWidget(
                        session: session, id: widget.id, path: widget.path, kind: widget.kind, parent: widget.parent)
                }
                var text = ""
                text.reserveCapacity(256)
                for event in pending[..<ready] {
                    text.removeAll(keepingCapacity: true)
                    AuditValue.appendArray(event.arguments, to: &text)
                    let isCallback = event.descriptor.kind == .callback
                    try store.insertEvent(
                        session: session, seq: event.seq, time: event.time, widget: event.widget,
                        callback: try callbackID(event.descriptor), arguments: &text, result: event.result,
                        vetoed: event.flags & CapturedEvent.canVeto == 0
                            ? nil : event.flags & CapturedEvent.vetoed != 0,
                        implemented: isCallback ? event.flags & CapturedEvent.implemented != 0 : nil,
                        duration: event.duration, parent: event.parent)
                    updated.count(event)
                }
                updated.failures = failedWrites
                try store.updateCounters(session: session, updated)
            }
        }
        if committed {
            counters = updated
        } else {
            failedWrites += 1
            lostEvents += ready
            callbackIDs.removeAll()  // ids interned in the rolled-back transaction are gone
        }
        if ready > 0 { nextSeq = pending[ready - 1].seq + 1 }
        pending.removeFirst(ready)
    }

    private func callbackID(_ descriptor: CallbackDescriptor) throws -> Int64 {
        let key = ObjectIdentifier(descriptor)
        if let id = callbackIDs[key] { return id }
        let id = try store.internCallback(descriptor)
        callbackIDs[key] = id
        return id
    }

    /// Runs a store operation; a failure is remembered, never thrown to the app.
    @discardableResult
    private func attempt(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            lastError = "\(error)"
            return false
        }
    }
}

extension AuditStore.SessionCounters {
    fileprivate mutating func count(_ event: CapturedEvent) {
        events += 1
        if event.descriptor.kind == .input { inputs += 1 } else { callbacks += 1 }
        if event.flags & CapturedEvent.vetoed != 0 { vetoes += 1 }
    }
}

extension Array {
    fileprivate func isSorted<Key: Comparable>(by key: (Element) -> Key) -> Bool {
        zip(self, dropFirst()).allSatisfy { key($0) <= key($1) }
    }
}
