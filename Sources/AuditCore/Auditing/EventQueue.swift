import Foundation

/// The hand-off between the threads that make audited calls and the one writer thread.
///
/// Producers append under a short lock and never wait for SQLite: the writer swaps the whole
/// array out under the same lock, then writes with the lock released. The queue is bounded: when
/// `capacity` events are waiting, producers block until the writer has taken them
/// (backpressure instead of silent loss).
final class EventQueue: @unchecked Sendable {
    // @unchecked: every stored var below is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var events: [CapturedEvent] = []
    private var widgets: [WidgetRecord] = []
    private var closed = false
    private var blockedProducers = 0
    private(set) var timesBlocked = 0

    let capacity: Int
    let batchSize: Int

    init(capacity: Int, batchSize: Int) {
        self.capacity = capacity
        self.batchSize = batchSize
        events.reserveCapacity(capacity)
    }

    func append(_ event: CapturedEvent) {
        condition.lock()
        if events.count >= capacity && !closed {
            timesBlocked += 1
            blockedProducers += 1
            condition.broadcast()
            while events.count >= capacity && !closed { condition.wait() }
            blockedProducers -= 1
        }
        events.append(event)
        if events.count == batchSize { condition.broadcast() }
        condition.unlock()
    }

    func append(_ widget: WidgetRecord) {
        condition.lock()
        widgets.append(widget)
        condition.unlock()
    }

    /// Waits until a batch is ready, `interval` has passed, or the queue closes; then moves every
    /// waiting event into `batch` (which must be empty: its storage becomes the queue's next buffer).
    func take(into batch: inout [CapturedEvent], interval: TimeInterval) -> (widgets: [WidgetRecord], closed: Bool) {
        condition.lock()
        defer { condition.unlock() }
        if events.count < batchSize && !closed {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
        }
        swap(&events, &batch)
        let taken = widgets
        widgets = []
        if blockedProducers > 0 { condition.broadcast() }
        return (taken, closed)
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
