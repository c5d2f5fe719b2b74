import AuditModel
import AuditStorage
import Dispatch
import Synchronization

/// One audited delegate callback whose answer comes later: through a completion handler the
/// delegate calls, now or later, or as an `async` method's return. Declared once, like a
/// `Callback`, as a stored property of a `CallbackTable`:
///
/// ```swift
/// public struct PageCallbacks: CallbackTable {
///     public let decidePolicy = LaterCallback<any PageDelegate, Page, String, Bool>(
///         "page(_:decidePolicyFor:decisionHandler:)", arguments: .one("url", .string), answer: .veto(),
///         invoke: { $0.page($1, decidePolicyFor: $2, decisionHandler: $3) })
/// }
/// ```
///
/// The widget asks through `ask(_:_:_:then:)` and goes on when its closure gets the answer. The
/// audit records the ask when it is made and the answer when it is given, linked (`LaterStep`),
/// and records as findings what a delegate must never do: let go of the handler without calling
/// it, call it twice, or call it after the widget gave up. The widget takes the first answer
/// only, audited or not: auditing never changes behaviour.
public struct LaterCallback<Delegate, Widget: Auditable, Arguments, Result: Sendable>: Sendable, CallbackDeclaration {
    public let descriptor: CallbackDescriptor
    @usableFromInline let arguments: ArgumentList<Arguments>
    @usableFromInline package let answer: Answer<Arguments, Result>
    /// Calls the delegate, handing it the handler (the async form awaits the method, then calls it).
    @usableFromInline let start: @Sendable (Delegate, Widget, Arguments, @escaping @Sendable (Result) -> Void) -> Void
    /// What the recorder's asks hold of the callback.
    @usableFromInline let recording: LaterRecording<Arguments, Result>

    /// Declares the callback `name` whose delegate answers by calling a completion handler:
    /// `invoke` calls the delegate's method with the handler it is given.
    public init(
        _ name: String, arguments: ArgumentList<Arguments>, answer: Answer<Arguments, Result>,
        invoke: @escaping @Sendable (Delegate, Widget, Arguments, @escaping @Sendable (Result) -> Void) -> Void
    ) {
        self.init(name, timing: .handler, arguments: arguments, answer: answer, start: invoke)
    }

    /// Declares the callback `name` whose delegate answers as an `async` method's return:
    /// `invokeAsync` awaits it.
    ///
    /// The widget's thread waits for the answer, running the method's work itself (it is not handed
    /// to other threads), so the answer reaches the widget before `ask` returns and no input
    /// happens in between: on the virtual clock an `async` answer takes no time. A method that
    /// waits for something only that thread would do (an actor whose executor it is) never
    /// returns.
    public init(
        _ name: String, arguments: ArgumentList<Arguments>, answer: Answer<Arguments, Result>,
        invokeAsync: @escaping @Sendable (Delegate, Widget, Arguments) async -> Result
    ) {
        self.init(
            name, timing: .async, arguments: arguments, answer: answer,
            start: { delegate, widget, arguments, handler in
                // The method runs on this thread's executor while this thread waits: nothing
                // else touches the delegate, the widget or the arguments meanwhile.
                let call = UncheckedSendable((delegate, widget, arguments))
                handler(AskingThread.await { await invokeAsync(call.value.0, call.value.1, call.value.2) })
            })
    }

    private init(
        _ name: String, timing: AnswerTiming, arguments: ArgumentList<Arguments>, answer: Answer<Arguments, Result>,
        start: @escaping @Sendable (Delegate, Widget, Arguments, @escaping @Sendable (Result) -> Void) -> Void
    ) {
        descriptor = CallbackDescriptor(
            kind: .callback, protocolName: String(describing: Delegate.self), name: name,
            argumentLabels: arguments.labels, answer: answer.kind, defaultAnswer: answer.defaultDescription,
            answered: timing)
        self.arguments = arguments
        self.answer = answer
        self.start = start
        recording = LaterRecording(descriptor, answer)
    }

    /// UIKit's answer when the delegate does not implement the callback.
    public func defaultResult(_ arguments: Arguments) -> Result { answer.defaultResult(arguments) }

    /// What the protocol's default implementation does: answers the declared default through
    /// `handler` at once, marked so the audit records "not implemented, default used".
    /// `func page(_ page: Page, decidePolicyFor url: String, decisionHandler: @escaping @Sendable (Bool) -> Void) { Page.callbacks.decidePolicy.unimplemented(url, decisionHandler) }`.
    public func unimplemented(_ arguments: Arguments, _ handler: @Sendable (Result) -> Void) {
        ThreadContext.current.defaultUsed = true
        handler(answer.defaultResult(arguments))
    }

    /// What an `async` method's default implementation returns: the declared default, marked so
    /// the audit records "not implemented, default used".
    public func unimplemented(_ arguments: Arguments) -> Result {
        ThreadContext.current.defaultUsed = true
        return answer.defaultResult(arguments)
    }

    /// Asks `delegate` (the widget's own, as it is now), or takes the default when there is none,
    /// and hands the answer to `deliver` when it comes: during this call when the delegate answers
    /// at once (and always for an `async` method), later otherwise, on the thread that calls the
    /// handler. `deliver` runs once at most; a handler called again, or after the widget gave up
    /// (`PendingAnswer.giveUp()`), is not passed on. When the delegate lets go of the handler
    /// without calling it, `ifNeverAnswered` runs instead, on the thread that let go of it (a
    /// widget that waits for the answer stops waiting there). While the widget is audited the ask,
    /// the answer and any such mistake are recorded; during an isolated replay the recorded answer
    /// is delivered where the recording had it. Inlinable so that a callback declared outside
    /// this module is specialized for its types.
    @inlinable @inline(__always) @discardableResult
    public func ask(
        _ delegate: Delegate?, _ widget: Widget, _ arguments: Arguments, then deliver: @escaping (Result) -> Void,
        ifNeverAnswered: @escaping () -> Void = {}
    ) -> PendingAnswer {
        guard let link = widget.auditLink else {
            var ask = LaterAsk<Result>(deliver, ifNeverAnswered: ifNeverAnswered)
            let context = ThreadContext.current
            let outer = context.defaultUsed
            call(delegate, widget, arguments, ask)
            context.defaultUsed = outer
            LaterAskState.endIfLetGoOf(&ask)
            return PendingAnswer.holding(ask)
        }
        return PendingAnswer.holding(
            link.forward(self, to: delegate, widget, arguments, then: deliver, ifNeverAnswered: ifNeverAnswered))
    }

    /// Calls `delegate` (or answers the default) with a handler that reports to `ask`; returns
    /// whether the delegate implemented the callback, as far as this thread saw.
    @inlinable @discardableResult
    package func call<Ask: LaterAnswering>(_ delegate: Delegate?, _ widget: Widget, _ arguments: Arguments, _ ask: Ask)
        -> Bool where Ask.Result == Result
    {
        let context = ThreadContext.current
        guard let delegate else {
            // No delegate: the default, marked as one, as the recorder reads it while it is given.
            context.defaultUsed = true
            ask.answer(answer.defaultResult(arguments))
            return false
        }
        context.defaultUsed = false
        // The handler's closure holds the ask, and nothing else does once the caller has let go
        // of it (the widget's `PendingAnswer`, the recorder and the pin keep it weakly): the
        // ask's end while it waits is the mistake "never answered".
        start(delegate, widget, arguments) { result in ask.answer(result) }
        return !context.defaultUsed
    }

    /// This callback, callable by name with recorded values: for `auditctl callbacks`, the
    /// scenario action `ask`, and isolated replay of a callback asked outside any input. Invoked by
    /// name, it reports the answer the delegate gave before the call returned, if any.
    public var invoker: CallbackInvoker {
        CallbackInvoker(
            descriptor: descriptor,
            call: { candidate, widget, values, root in
                guard let widget = widget as? Widget, let arguments = arguments.decode(values, root) else { return nil }
                let answered = FirstAnswer<Result>()
                let ask = LaterAsk<Result> { answered.keep($0) }
                let context = ThreadContext.current
                let outer = context.defaultUsed
                defer { context.defaultUsed = outer }
                let implemented = call(candidate as? Delegate, widget, arguments, ask)
                guard let result = answered.value else {
                    return InvocationOutcome(
                        result: nil,
                        answer: AnswerOutcome(answering: .none, tookEffect: false, implemented: implemented))
                }
                return InvocationOutcome(
                    result: answer.coding?.encode(result),
                    answer: answer.outcome(arguments, result, implemented: implemented))
            },
            accepts: { $0 is Widget }, decodes: { values, root in arguments.decode(values, root) != nil },
            askAudited: { delegate, widget, values, root in
                guard let widget = widget as? Widget, let arguments = arguments.decode(values, root) else { return }
                ask(delegate as? Delegate, widget, arguments) { _ in }
            })
    }
}

/// Runs an `async` delegate method to its end on the thread that asks: its jobs run here, in
/// the order they are enqueued, so the method's work is not spread over other threads.
final class AskingThread: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is under its mutex; the semaphore is thread-safe.
    private let jobs = Mutex<[UnownedJob]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        arrived.signal()
    }

    /// `operation`'s result, run with this thread as its executor until it returns.
    static func await<Result: Sendable>(_ operation: @escaping @Sendable () async -> Result) -> Result {
        let executor = AskingThread()
        let result = FirstAnswer<Result>()
        Task(executorPreference: executor) {
            result.keep(await operation())
            executor.arrived.signal()  // the method may have ended on another executor
        }
        while true {
            if let value = result.value { return value }
            executor.arrived.wait()
            while let job = executor.jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                job.runSynchronously(on: executor.asUnownedTaskExecutor())
            }
        }
    }
}

/// The first value kept, shared between threads.
package final class FirstAnswer<Value: Sendable>: Sendable {
    private let kept = Mutex<Value?>(nil)

    package var value: Value? { kept.withLock { $0 } }

    package init() {}

    package func keep(_ value: Value) { kept.withLock { $0 = $0 ?? value } }
}

/// A value handed to another executor while its owner waits for it there, so never used by two
/// threads at once; or a callback's arguments, read by its answer's observer on the thread that
/// answers, as the widget's own code would read them.
@usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline package let value: Value

    @inlinable package init(_ value: Value) { self.value = value }
}
