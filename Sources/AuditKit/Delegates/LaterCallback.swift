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
    /// is delivered where the recording had it.
    @discardableResult
    public func ask(
        _ delegate: Delegate?, _ widget: Widget, _ arguments: Arguments, then deliver: @escaping (Result) -> Void,
        ifNeverAnswered: @escaping () -> Void = {}
    ) -> PendingAnswer {
        let ask = LaterAsk<Result>(deliver, ifNeverAnswered: ifNeverAnswered)
        switch widget.auditLink?.sink {
        case .recorder(let recorder)?:
            recorder.recordLater(self, to: delegate, widget, arguments, ask, widget: widget.auditLink!.widget)
        case .pin(let pin)?:
            pin.answerLater(self, to: delegate, widget, arguments, ask, widgetID: widget.auditLink!.widget)
        case nil:
            let context = ThreadContext.current
            let outer = context.defaultUsed
            defer { context.defaultUsed = outer }
            call(delegate, widget, arguments, ask)
        }
        return PendingAnswer(ask)
    }

    /// Calls `delegate` (or answers the default) with a handler that reports to `ask`; returns
    /// whether the delegate implemented the callback, as far as this thread saw.
    @discardableResult
    package func call(_ delegate: Delegate?, _ widget: Widget, _ arguments: Arguments, _ ask: LaterAsk<Result>) -> Bool
    {
        let handler = LaterHandler(ask)
        let context = ThreadContext.current
        guard let delegate else {
            // No delegate: the default, marked as one, as the recorder reads it while it is given.
            context.defaultUsed = true
            handler.call(answer.defaultResult(arguments))
            return false
        }
        context.defaultUsed = false
        start(delegate, widget, arguments) { handler.call($0) }
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

/// The widget's hold on an answer that comes later: what `LaterCallback.ask` returns.
public final class PendingAnswer: Sendable {
    private let ask: any LaterAskState

    init(_ ask: any LaterAskState) { self.ask = ask }

    /// Whether the answer has not come yet and the widget still waits for it.
    public var isWaiting: Bool { ask.isWaiting }

    /// Stops waiting (a navigation cancelled by another one, a widget going away): the answer,
    /// should it come, is not delivered, and a delegate that still calls the handler makes the
    /// mistake "answered after giving up". Nothing happens once the answer has come.
    public func giveUp() { ask.giveUp() }

    /// Blocks the calling thread until the ask no longer waits: the answer has come (and the
    /// widget's closure has run), the widget gave up, or the delegate let go of the handler
    /// uncalled (and `ifNeverAnswered` has run). For a widget that must answer its own caller
    /// before it returns; never call it on the thread the delegate answers on.
    public func wait() { _ = ask.settle(before: .distantFuture) }
}

/// Whoever hears of an ask's steps: the recorder, or an isolated replay's pin. Each method is
/// called at most once per step, outside the ask's lock.
package protocol LaterObserver<Result>: AnyObject, Sendable {
    associatedtype Result: Sendable
    /// The first answer: `deliver` hands it to the widget, and is called exactly once.
    func answered(_ result: Result, deliver: () -> Void)
    /// A step the widget takes no answer from: `gaveUp`, or a mistake (with its answer, for a
    /// handler called again).
    func noted(_ step: LaterStep, _ result: Result?)
}

/// What `PendingAnswer`, the recorder and the pin need of an ask, whatever its result type.
package protocol LaterAskState: AnyObject, Sendable {
    var isWaiting: Bool { get }
    func giveUp()
    /// The recording (or replay) that observes the ask ends while it still waits: its observer
    /// hears "never answered" and hears nothing more; the ask itself goes on unobserved, as it
    /// would have unaudited.
    func observationEnded()
    /// Waits until the ask no longer waits (answered, given up, or its handler let go of
    /// uncalled), or until `deadline`; returns whether it came to that.
    func settle(before deadline: DispatchTime) -> Bool
}

/// One ask of a `LaterCallback`: where its answer stands, and what the widget does with it.
@usableFromInline
package final class LaterAsk<Result: Sendable>: LaterAskState, @unchecked Sendable {
    // @unchecked: `deliver` and `ifNeverAnswered` are the widget's closures, one of them called
    // once, on the thread that answers or lets go of the handler, as the widget's own code would
    // be; everything else is under `state`.
    private enum Stage {
        case waiting
        case answered
        case gaveUp
        case neverAnswered
    }

    private struct State {
        var stage = Stage.waiting
        var observer: (any LaterObserver<Result>)?
    }

    private let state = Mutex(State())
    private let deliver: (Result) -> Void
    private let ifNeverAnswered: () -> Void
    /// Signalled once, when the ask stops waiting.
    private let settled = DispatchSemaphore(value: 0)

    package init(_ deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void = {}) {
        self.deliver = deliver
        self.ifNeverAnswered = ifNeverAnswered
    }

    /// Sets who hears of the steps, before the delegate is asked.
    package func observe(_ observer: any LaterObserver<Result>) { state.withLock { $0.observer = observer } }

    package var isWaiting: Bool { state.withLock { $0.stage == .waiting } }

    /// The delegate called the handler.
    package func answer(_ result: Result) {
        let (before, observer) = state.withLock { state in
            defer { if state.stage == .waiting { state.stage = .answered } }
            return (state.stage, state.observer)
        }
        switch before {
        case .waiting:
            if let observer { observer.answered(result) { deliver(result) } } else { deliver(result) }
            settled.signal()
        case .answered, .neverAnswered: observer?.noted(.answeredTwice, result)
        case .gaveUp: observer?.noted(.answeredAfterGivingUp, result)
        }
    }

    package func giveUp() {
        if let observer = leaveWaiting(for: .gaveUp) { observer?.noted(.gaveUp, nil) }
    }

    /// The delegate let go of the handler without calling it: the mistake "never answered", and
    /// the widget hears of it.
    package func handlerReleased() {
        guard let observer = leaveWaiting(for: .neverAnswered) else { return }
        observer?.noted(.neverAnswered, nil)
        ifNeverAnswered()
    }

    package func observationEnded() {
        let observer = state.withLock { state in
            defer { state.observer = nil }
            return state.stage == .waiting ? state.observer : nil
        }
        observer?.noted(.neverAnswered, nil)
    }

    package func settle(before deadline: DispatchTime) -> Bool {
        guard settled.wait(timeout: deadline) == .success else { return false }
        settled.signal()  // for whoever waits next
        return true
    }

    /// Moves from waiting to `next`, returning the observer to tell (itself optional); nil when
    /// the ask was no longer waiting.
    private func leaveWaiting(for next: Stage) -> (any LaterObserver<Result>)?? {
        let left: (any LaterObserver<Result>)?? = state.withLock { state in
            guard state.stage == .waiting else { return .none }
            state.stage = next
            return .some(state.observer)
        }
        if left != nil { settled.signal() }
        return left
    }
}

/// The completion handler a delegate holds: calling it answers the ask; letting go of it
/// uncalled is the mistake "never answered".
final class LaterHandler<Result: Sendable>: Sendable {
    private let ask: LaterAsk<Result>

    init(_ ask: LaterAsk<Result>) { self.ask = ask }

    func call(_ result: Result) { ask.answer(result) }

    deinit { ask.handlerReleased() }
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
/// threads at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}
