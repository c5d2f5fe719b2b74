import AuditModel
import AuditStorage
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
        /// Events waiting that wake the writer before `flushInterval` has passed. The writer then
        /// takes everything the queue holds (up to `capacity` events) and commits, in one
        /// transaction, the whole contiguous run of `seq` it holds, with what a failed write left
        /// pending: this is not a limit on a transaction's size.
        public var batchSize = 4_096
        /// How often the writer wakes to take what is queued: while it keeps up, the longest an
        /// event waits in memory (with one write's time, the durability window).
        public var flushInterval: TimeInterval = 0.05
        /// Events the queue holds before callers block until the writer catches up (an ask
        /// answered during its call is queued with its answer, as one).
        public var capacity = 65_536
        /// Longest time, in seconds, events wait in the queue while the writer is busy: a caller
        /// whose event would be queued this long after the oldest one waiting blocks until the
        /// writer takes them, as on a full queue. Bounds what a crash can lose in time, as
        /// `capacity` does in count; only an app making callbacks faster than SQLite can take
        /// them ever waits.
        public var maximumDelay: TimeInterval = 0.1
        /// How long, in seconds, the writer tries failed writes again (at least three times in a
        /// row) before it gives up on them, while recording and while finishing alike.
        public var patience: TimeInterval = 2

        public init() {}
    }

    /// The session recorded. A recorder writing inline (a replay job's) makes its session when
    /// it writes it, in `finish()`: until then this is 0.
    public var session: Int64 { sessionID.load(ordering: .acquiring) }
    private let sessionID: Atomic<Int64>
    /// The widget kinds this recorder can describe, for a session recorded in code.
    let catalog: WidgetCatalog
    /// The scenario the session stores: the given one (a scenario file's), or the tree the recorder
    /// attaches to, described as a scenario so the session can be replayed.
    let tree: Mutex<StoredTree>
    /// Whether the session's scenario is the tree the recorder attaches to (a session recorded in
    /// code), not a scenario file's.
    let describesTree: Bool
    /// The database this recorder writes (its secret key lives beside it; see `SecretHasher`).
    let databasePath: String
    let clockOrigin: Int64
    /// When the recorder started opening the database.
    private let opened = monotonicNanoseconds()
    let nextSeq = Atomic<Int64>(1)
    let nextWidget = Atomic<Int32>(1)
    let queue: EventQueue
    private let summary = Mutex<RecordingSummary?>(nil)
    /// Inputs refused by their checks while audited, for `RecordingSummary.refusedInputs`.
    private let refusals = Mutex<[String]>([])
    private let writerDone = DispatchSemaphore(value: 0)
    let writer: EventWriter
    /// Whether `finish()` writes the events on its caller's thread (`init(recordingInline:…)`).
    private let writesInline: Bool
    private let wroteInline = Atomic<Bool>(false)
    /// Asks of callbacks answered later, for ending those still waiting in `finish()`.
    let waitingAsks = Mutex<[WeakAsk]>([])
    /// Steps of asks being captured now, on any thread (`captureStep`): `finish()` waits for them,
    /// so an answer given on another thread is not lost when the widget's closure lets the app
    /// finish the recording before the step is queued.
    let stepsInFlight = Atomic<Int>(0)

    /// Opens (creating or migrating) the database at `databasePath`, creates the session and
    /// starts the writer thread.
    public convenience init(
        databasePath: String, session: NewSession, catalog: WidgetCatalog, options: Options = Options()
    ) throws(StoreError) {
        try self.init(
            handingOver: AuditStore(path: databasePath, access: .write), session: session, catalog: catalog,
            options: options)
    }

    /// Records through `store`, opened to write on this thread and handed over to the writer
    /// thread, which alone uses it from here: the caller keeps no reference to it.
    convenience init(
        handingOver store: AuditStore, session: NewSession, catalog: WidgetCatalog, options: Options = Options()
    ) throws(StoreError) {
        try storeOperation { try store.prepareForRecording() }
        try self.init(store: store, session: session, catalog: catalog, options: options, inline: false)
    }

    /// Records a session through `store`, an open store the caller keeps using after `finish()`
    /// (a replay job records many sessions through one connection).
    ///
    /// No writer thread: the events wait in memory until `finish()`, which makes the session and
    /// writes them on the calling thread, so the queue never blocks the caller and the store is
    /// used only in `finish()` (the jobs of a replay share one, each finishing in its turn); no
    /// checkpoint is run (the store's automatic ones go on). Memory holds one session's events
    /// at a time.
    package convenience init(
        recordingInline store: AuditStore, session: NewSession, catalog: WidgetCatalog, options: Options = Options()
    ) throws(StoreError) {
        var options = options
        options.capacity = .max
        options.maximumDelay = .infinity
        try self.init(store: store, session: session, catalog: catalog, options: options, inline: true)
    }

    private init(
        store: AuditStore, session: NewSession, catalog: WidgetCatalog, options: Options, inline: Bool
    ) throws(StoreError) {
        self.databasePath = store.path
        self.catalog = catalog
        describesTree = session.scenarioSource.isEmpty
        tree = Mutex(StoredTree(name: session.scenario))
        sessionID = Atomic(inline ? 0 : try storeOperation { try store.createSession(session) })
        queue = EventQueue(
            capacity: options.capacity, batchSize: options.batchSize,
            maximumDelay: Int64(min(options.maximumDelay, 1e9) * 1e9))
        clockOrigin = monotonicNanoseconds()  // after opening and migrating: times count from here
        writer = EventWriter(
            store: store, session: sessionID.load(ordering: .relaxed), creating: inline ? session : nil,
            patience: options.patience, ownsStore: !inline)
        writesInline = inline
        guard !inline else { return }
        let (queue, writer, done, interval) = (queue, writer, writerDone, options.flushInterval)
        let thread = Thread {
            writer.run(queue: queue, interval: interval)
            done.signal()
        }
        thread.name = "auditctl.writer"
        thread.start()
    }

    deinit {
        // A recorder writing inline that is never finished stores nothing (its session is made
        // when it is written): its store may be one the jobs of a replay use each in its turn.
        guard !writesInline else { return }
        _ = finish()
    }

    // MARK: Finishing

    /// Ends the recording and encodes what it captured, ahead of `finish()`, which then only
    /// stores it: for a recorder writing inline, whose `finish()` a replay job runs in its turn at
    /// the shared writer. Events captured afterwards are not stored, as after `finish()`. Returns
    /// the fingerprints of the events captured, which are those of the session stored once
    /// `finish()` has written it whole (`wroteWhole`); nil for any other recorder.
    package func prepareToFinish() -> [EventFingerprint]? {
        guard writesInline, summary.withLock({ $0 == nil }) else { return nil }
        endWaitingAsks()
        queue.close()
        return writer.prepare(queue: queue)
    }

    /// The events and widgets captured, once `prepareToFinish()` has taken them: a caller that
    /// compares runs in memory and stores only some (explore) reads them here and never calls
    /// `finish()` on the others, which then store nothing. Empty for any other recorder.
    package var captured: (events: [CapturedEvent], widgets: [WidgetRecord]) {
        writesInline ? writer.prepared : ([], [])
    }

    /// Whether `finish()` wrote every event at once, with no write failed (a recorder writing
    /// inline only).
    package var wroteWhole: Bool { writer.wroteWhole }

    /// Stops recording: commits everything captured, marks the session complete (or interrupted
    /// when events were lost) and returns what was recorded. Later calls return the same summary.
    /// Call it once the widgets are no longer driven; events captured afterwards are not stored.
    ///
    /// Writes that failed are tried again first, for as long as while recording (`Options.patience`),
    /// so `finish()` may take that long on a database that stays busy or a disk that stays full.
    @discardableResult
    public func finish() -> RecordingSummary {
        if let done = summary.withLock({ $0 }) { return done }
        endWaitingAsks()
        queue.close()
        if writesInline
            && wroteInline.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        {
            writer.run(queue: queue, interval: 0)
            writerDone.signal()
        }
        writerDone.wait()
        writerDone.signal()  // let a concurrent finish() through as well
        return summary.withLock { stored in
            if let stored { return stored }
            var result = writer.summary(queue: queue)
            result.refusedInputs = refusals.withLock { $0 }
            sessionID.store(result.session, ordering: .releasing)
            result.seconds = Double(monotonicNanoseconds() - opened) / 1e9
            stored = result
            return result
        }
    }

    /// Notes an input of an audited widget refused by its check (`View.performInput`).
    func noteRefusal(_ message: String) {
        refusals.withLock { $0.append(message) }
    }

    // MARK: Capturing (the caller's thread)

    /// Records one callback a widget asks: asks `target` (or takes the default), queues the event,
    /// and returns what `target` returned. `widgetID` is the widget's number in the session.
    ///
    /// Who wins: the app's delegate, always. It is called with the same arguments, in the same
    /// order, exactly once, and the widget gets exactly what it returned; when there is no
    /// delegate, or it does not implement the callback, the callback's declared default, which is
    /// what the widget would have used unaudited. Inlinable so that a callback declared outside this
    /// module is specialized for its types.
    @inlinable
    func record<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, widget widgetID: Int32
    ) -> Result {
        let frame = beginCall()
        let result: Result
        if let target {
            result = callback.invoke(target, widget, arguments)
        } else {
            result = callback.answer.defaultResult(arguments)
        }
        endCall(
            frame, callback.descriptor, widget: widgetID, arguments: callback.arguments.encode(arguments),
            result: callback.answer.coding?.encode(result),
            answer: callback.answer.outcome(arguments, result, implemented: target != nil))
        return result
    }

    /// An audited call in progress: its number, the call it is nested in, when it started, and the
    /// thread's "default used" mark as it was before (restored by `endCall`).
    @usableFromInline
    struct CallFrame {
        @usableFromInline let seq: Int64
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

    /// Queues the call `frame` began. `answer` says implemented when a delegate was there to
    /// call; it stays so unless the call fell through to the protocol's default implementation.
    @usableFromInline
    func endCall(
        _ frame: CallFrame, _ descriptor: CallbackDescriptor, widget: Int32, arguments: CapturedArguments,
        result: AuditValue?, answer: AnswerOutcome, later: LaterStep? = nil
    ) {
        let (end, answer) = closeFrame(frame, answer)
        queue.append(
            CapturedEvent(
                seq: frame.seq, time: frame.start - clockOrigin, widget: widget, descriptor: descriptor,
                answer: answer, arguments: arguments, result: result,
                duration: end - frame.start, parent: frame.parent, later: later))
    }

    /// Ends the call `frame` began, on its thread: the time it ends, and `answer` saying not
    /// implemented if the call fell through to the protocol's default implementation.
    @inline(__always)
    func closeFrame(_ frame: CallFrame, _ answer: AnswerOutcome) -> (end: Int64, answer: AnswerOutcome) {
        let end = monotonicNanoseconds()
        let context = frame.context
        let answer = context.defaultUsed ? answer.implemented(false) : answer
        context.defaultUsed = frame.outerDefaultUsed
        context.frames.removeLast()
        return (end, answer)
    }

    /// Runs `body` as one audited event: numbers it, nests it under the event in progress on this
    /// thread, times it and queues what `body` reports.
    @inline(__always)
    func capture<Result>(
        _ descriptor: CallbackDescriptor, widget: Int32, arguments: CapturedArguments,
        _ body: (ThreadContext) -> (result: Result, answer: AnswerOutcome, recorded: AuditValue?)
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
                seq: seq, time: start - clockOrigin, widget: widget, descriptor: descriptor, answer: outcome.answer,
                arguments: arguments, result: outcome.recorded, duration: end - start, parent: parent))
        return outcome.result
    }
}
