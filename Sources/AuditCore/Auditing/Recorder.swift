import Foundation
import Synchronization

/// Records a session: attach it to a widget tree, drive the widgets, then `finish()`.
///
/// On the caller's thread an audited call costs a sequence number (an atomic increment), two clock
/// reads, and an append to a bounded in-memory queue. No SQLite call, file I/O or JSON encoding
/// happens there: a dedicated writer thread takes the queue every `batchSize` events or
/// `flushInterval`, encodes the rows and commits them in one transaction, and runs the WAL
/// checkpoints. Events are committed in `seq` order with no holes, so a process that dies leaves a
/// contiguous prefix. A write that fails is counted and reported by `finish()`; it never reaches
/// the app, whose delegate calls go on unchanged.
public final class Recorder: Sendable {
    public struct Options: Sendable {
        /// Events per transaction; the writer also wakes when this many are waiting.
        public var batchSize = 4_096
        /// Longest time an event waits in memory before the writer commits it (the durability
        /// window, together with the time of one batch write).
        public var flushInterval: TimeInterval = 0.05
        /// Events the queue holds before callers block until the writer catches up.
        public var capacity = 65_536

        public init() {}
    }

    public let session: Int64
    /// The database this recorder writes (its secret key lives beside it; see `SecretHasher`).
    let databasePath: String
    let clockOrigin: Int64
    let nextSeq = Atomic<Int64>(1)
    private let nextWidget = Atomic<Int32>(1)
    let queue: EventQueue
    private let summary = Mutex<RecordingSummary?>(nil)
    private let writerDone = DispatchSemaphore(value: 0)
    private let writer: EventWriter

    /// Opens (creating or migrating) the database at `databasePath`, creates the session and
    /// starts the writer thread.
    public init(databasePath: String, session: NewSession, options: Options = Options()) throws(StoreError) {
        let store = try AuditStore(path: databasePath, access: .write)
        self.databasePath = databasePath
        self.session = try storeOperation {
            try store.prepareForRecording()
            return try store.createSession(session)
        }
        queue = EventQueue(capacity: options.capacity, batchSize: options.batchSize)
        clockOrigin = monotonicNanoseconds()  // after opening and migrating: times count from here
        writer = EventWriter(store: store, session: self.session)
        let (queue, writer, done, interval) = (queue, writer, writerDone, options.flushInterval)
        let thread = Thread {
            writer.run(queue: queue, interval: interval)
            done.signal()
        }
        thread.name = "auditctl.writer"
        thread.start()
    }

    deinit { _ = finish() }

    // MARK: Attaching

    /// Wraps the delegate of every widget under `root` and of every gesture recognizer of those
    /// views, and of widgets and recognizers added later.
    public func attach(to root: View) {
        root.visit { view in
            let id = nextWidget.add(1, ordering: .relaxed).oldValue
            let parent = view.superview?.auditLink.flatMap { $0.recorder === self ? $0.widget : nil }
            queue.append(WidgetRecord(id: id, path: view.path, kind: view.widgetKind, parent: parent))
            view.auditLink = AuditLink(recorder: self, widget: id)
            for recognizer in view.gestureRecognizers { attach(recognizer, viewWidget: id) }
        }
    }

    /// Registers `recognizer` as a widget of the session (path `<view path>#<identifier>`, its
    /// view's widget as parent) and wraps its delegate.
    func attach(_ recognizer: GestureRecognizer, viewWidget: Int32) {
        let id = nextWidget.add(1, ordering: .relaxed).oldValue
        queue.append(WidgetRecord(id: id, path: recognizer.path, kind: recognizer.widgetKind, parent: viewWidget))
        recognizer.auditLink = AuditLink(recorder: self, widget: id)
    }

    /// Restores the original delegates of every widget and gesture recognizer under `root` that
    /// this recorder wraps.
    public func detach(from root: View) {
        root.visit { view in
            if view.auditLink?.recorder === self { view.auditLink = nil }
            for recognizer in view.gestureRecognizers where recognizer.auditLink?.recorder === self {
                recognizer.auditLink = nil
            }
        }
    }

    // MARK: Finishing

    /// Stops recording: commits everything captured, marks the session complete (or interrupted
    /// when writes failed) and returns what was recorded. Later calls return the same summary.
    /// Call it once the widgets are no longer driven; events captured afterwards are not stored.
    @discardableResult
    public func finish() -> RecordingSummary {
        if let done = summary.withLock({ $0 }) { return done }
        queue.close()
        writerDone.wait()
        writerDone.signal()  // let a concurrent finish() through as well
        return summary.withLock { stored in
            if let stored { return stored }
            var result = writer.summary(queue: queue)
            result.seconds = Double(monotonicNanoseconds() - clockOrigin) / 1e9
            stored = result
            return result
        }
    }

    // MARK: Capturing (the caller's thread)

    /// An audited call in progress: its number, the call it is nested in, when it started, and the
    /// thread's "default used" mark as it was before (restored by `endCall`).
    @usableFromInline
    struct CallFrame {
        let seq: Int64
        let parent: Int64
        let start: Int64
        let outerDefaultUsed: Bool
        let context: ThreadContext
    }

    /// Numbers a delegate call and nests it under the event in progress on this thread.
    @usableFromInline
    func beginCall() -> CallFrame {
        let context = ThreadContext.current
        let owner = ObjectIdentifier(self)
        let seq = nextSeq.add(1, ordering: .relaxed).oldValue
        let parent = context.parent(of: owner) ?? 0
        context.frames.append((owner, seq))
        let frame = CallFrame(
            seq: seq, parent: parent, start: monotonicNanoseconds(), outerDefaultUsed: context.defaultUsed,
            context: context)
        context.defaultUsed = false
        return frame
    }

    /// Queues the call `frame` began. `invoked` is whether a delegate was there to call; it counts
    /// as implemented unless the call fell through to the protocol's default implementation.
    @usableFromInline
    func endCall(
        _ frame: CallFrame, _ descriptor: CallbackDescriptor, widget: Int32, arguments: CapturedArguments,
        result: AuditValue?, flags: UInt8, invoked: Bool
    ) {
        let end = monotonicNanoseconds()
        let context = frame.context
        let implemented = invoked && !context.defaultUsed
        context.defaultUsed = frame.outerDefaultUsed
        context.frames.removeLast()
        queue.append(
            CapturedEvent(
                seq: frame.seq, time: frame.start - clockOrigin, widget: widget, descriptor: descriptor,
                flags: flags | (implemented ? CapturedEvent.implemented : 0), arguments: arguments, result: result,
                duration: end - frame.start, parent: frame.parent))
    }

    /// Runs `body` as one audited event: numbers it, nests it under the event in progress on this
    /// thread, times it and queues what `body` reports.
    @inline(__always)
    func capture<Result>(
        _ descriptor: CallbackDescriptor, widget: Int32, arguments: CapturedArguments,
        _ body: (ThreadContext) -> (result: Result, flags: UInt8, recorded: AuditValue?)
    ) -> Result {
        let context = ThreadContext.current
        let owner = ObjectIdentifier(self)
        let seq = nextSeq.add(1, ordering: .relaxed).oldValue
        let parent = context.parent(of: owner) ?? 0
        context.frames.append((owner, seq))
        let start = monotonicNanoseconds()
        let outcome = body(context)
        let end = monotonicNanoseconds()
        context.frames.removeLast()
        queue.append(
            CapturedEvent(
                seq: seq, time: start - clockOrigin, widget: widget, descriptor: descriptor, flags: outcome.flags,
                arguments: arguments, result: outcome.recorded, duration: end - start, parent: parent))
        return outcome.result
    }
}

/// What a finished recording wrote.
public struct RecordingSummary: Sendable, Equatable {
    public var session: Int64
    public var events: Int
    public var inputs: Int
    public var callbacks: Int
    public var vetoes: Int
    /// Write attempts that failed (each retried with the next batch, up to three times in a row).
    public var failedWrites: Int
    /// Events not stored: those of writes that failed for good, and those whose predecessors
    /// never completed (a callback still running at `finish()`), so the stored prefix has no hole.
    public var lostEvents: Int
    public var lastError: String?
    /// How often a caller waited because the queue was full.
    public var timesBlocked: Int
    public var status: String
    /// Audited calls made after `finish()`: not stored.
    public var eventsAfterFinish = 0
    /// Wall time from the recorder's start to the last commit.
    public var seconds: Double = 0
}

/// A widget's membership in a recording: which recorder, and the widget's id in that session.
public struct AuditLink: Sendable {
    public let recorder: Recorder
    public let widget: Int32
}
