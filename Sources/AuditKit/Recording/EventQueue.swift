import AuditModel
import AuditStorage
import Dispatch
import Synchronization

/// The hand-off between the threads that make audited calls and the one writer thread.
///
/// Producers append under a short lock (a `Mutex`: an uncontended futex, no system call) and
/// never wait for SQLite: the writer swaps the whole array out under the same lock, then writes
/// with the lock released. The writer is woken once per batch through a semaphore, never per
/// event. The queue is bounded: when `capacity` events are waiting, producers block until the
/// writer has taken them (backpressure instead of silent loss), and so they do when the oldest
/// waiting event started `maximumDelay` before the new one: what waits in memory, and could be
/// lost at a crash, is bounded in time as well as in count. After `close()`, events are no longer
/// kept: they are counted as late.
final class EventQueue: Sendable {
    private struct State: Sendable {
        var events: [CapturedEvent] = []
        var widgets: [WidgetRecord] = []
        /// The session's scenario text, when the recorder describes its tree and it changed.
        var scenario: String?
        var closed = false
        var blocked = 0
        var timesBlocked = 0
        var late = 0
    }

    private let state: Mutex<State>
    private let writerWake = DispatchSemaphore(value: 0)
    private let space = DispatchSemaphore(value: 0)

    let capacity: Int
    let batchSize: Int
    /// The most events a buffer is made room for ahead (an unbounded queue grows as it fills).
    static let reservedCapacity = 65_536
    /// Nanoseconds; see the type's documentation.
    let maximumDelay: Int64

    init(capacity: Int, batchSize: Int, maximumDelay: Int64 = .max) {
        self.capacity = capacity
        self.batchSize = batchSize
        self.maximumDelay = maximumDelay
        var initial = State()
        initial.events.reserveCapacity(min(capacity, Self.reservedCapacity))
        state = Mutex(initial)
    }

    /// Appends `event` (an ask carrying its answer counts as one event waiting, and as two late).
    func append(_ event: CapturedEvent) {
        while true {
            let outcome = state.withLock { state -> Append in
                if state.closed {
                    state.late += event.answeredInCall == nil ? 1 : 2
                    return .dropped
                }
                if state.events.count >= capacity
                    || (state.events.first.map { event.time - $0.time >= maximumDelay } ?? false)
                {
                    state.blocked += 1
                    state.timesBlocked += 1
                    return .full
                }
                state.events.append(event)
                return state.events.count == batchSize ? .batchReady : .appended
            }
            switch outcome {
            case .appended, .dropped: return
            case .batchReady:
                writerWake.signal()
                return
            case .full:
                writerWake.signal()
                space.wait()
            }
        }
    }

    private enum Append {
        case appended
        case batchReady
        case full
        case dropped
    }

    func append(_ widget: WidgetRecord) {
        state.withLock { $0.widgets.append(widget) }
    }

    /// Replaces the scenario text waiting to be stored.
    func setScenario(_ source: String) {
        state.withLock { $0.scenario = source }
    }

    /// Waits until a batch is ready, `interval` has passed, or the queue closes; then moves every
    /// waiting event into `batch` (which must be empty: its storage becomes the queue's next buffer).
    func take(into batch: inout [CapturedEvent], interval: Double) -> (
        widgets: [WidgetRecord], scenario: String?, closed: Bool
    ) {
        let ready = state.withLock { $0.events.count >= batchSize || $0.closed }
        if !ready { _ = writerWake.wait(timeout: .now() + interval) }
        var taken: [CapturedEvent] = []
        swap(&taken, &batch)
        let (widgets, scenario, closed, blocked, buffer) = state.withLock { state in
            let full = state.events
            state.events = taken
            let widgets = state.widgets
            state.widgets = []
            let scenario = state.scenario
            state.scenario = nil
            let blocked = state.blocked
            state.blocked = 0
            return (widgets, scenario, state.closed, blocked, full)
        }
        batch = buffer
        for _ in 0..<blocked { space.signal() }
        return (widgets, scenario, closed)
    }

    func close() {
        let blocked = state.withLock { state in
            state.closed = true
            let blocked = state.blocked
            state.blocked = 0
            return blocked
        }
        writerWake.signal()
        for _ in 0..<blocked { space.signal() }
    }

    /// How often a producer waited because the queue was full, and events dropped after `close()`.
    var counts: (timesBlocked: Int, late: Int) { state.withLock { ($0.timesBlocked, $0.late) } }
}
