import AuditModel
import AuditStorage
import Foundation
import Synchronization

extension Recorder {
    /// Records one ask of a callback answered later: the ask now, as an event with no result
    /// (`LaterStep.asked`), then each step of its answer as an event of its own that names the
    /// ask, nested under whatever event is in progress on the thread that takes it. The widget gets
    /// what the delegate answered, exactly as unaudited. Inlinable so that a callback declared
    /// outside this module is specialized for its types.
    @inlinable
    func recordLater<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, _ ask: LaterAsk<Result>, widget widgetID: Int32
    ) {
        let frame = beginCall()
        let recorded = RecordedAsk<Result>(
            recorder: self, seq: frame.seq, widget: widgetID, descriptor: callback.descriptor,
            encode: { callback.answer.coding?.encode($0) },
            outcome: { [arguments = UncheckedSendable(arguments)] in
                callback.answer.outcome(arguments.value, $0, implemented: $1)
            })
        ask.observe(recorded)
        awaitAnswer(to: ask)
        let implemented = callback.call(target, widget, arguments, ask)
        recorded.implemented.store(implemented ? 1 : 0, ordering: .releasing)
        endCall(
            frame, callback.descriptor, widget: widgetID, arguments: callback.arguments.encode(arguments),
            result: nil, answer: AnswerOutcome(answering: .none, tookEffect: false, implemented: implemented),
            later: .asked)
    }

    /// Keeps `ask` to end at `finish()` should it still wait then.
    @usableFromInline
    func awaitAnswer(to ask: any LaterAskState) {
        waitingAsks.withLock { asks in
            if asks.count >= 1_024 { asks.removeAll { $0.ask == nil || $0.ask?.isWaiting == false } }
            asks.append(WaitingAsk(ask))
        }
    }

    /// Ends the observation of every ask still waiting when the recording ends: the mistake
    /// "never answered". The asks go on unobserved, as they would have unaudited.
    func endWaitingAsks() {
        // The steps other threads are capturing now: queued once the widget's closure returns.
        let own = ThreadContext.current.stepsInProgress
        while stepsInFlight.load(ordering: .acquiring) > own { sched_yield() }
        let asks = waitingAsks.withLock { asks in
            defer { asks.removeAll() }
            return asks
        }
        for waiting in asks { waiting.ask?.observationEnded() }
    }

    /// Queues one step of an ask (`answers` its seq) as an event: nested under the event in
    /// progress on this thread, and holding whatever `body` makes happen (the widget taking the
    /// answer), which nests under it.
    func captureStep(
        _ step: LaterStep, answering ask: Int64, _ descriptor: CallbackDescriptor, widget: Int32, result: AuditValue?,
        answer: AnswerOutcome, _ body: () -> Void = {}
    ) {
        let context = ThreadContext.current
        stepsInFlight.add(1, ordering: .relaxed)
        context.stepsInProgress += 1
        defer {
            context.stepsInProgress -= 1
            stepsInFlight.subtract(1, ordering: .releasing)
        }
        let owner = ObjectIdentifier(self)
        let seq = nextSeq.add(1, ordering: .relaxed).oldValue
        let parent = context.parent(of: owner) ?? 0
        context.frames.append((owner, seq))
        let start = monotonicNanoseconds()
        body()
        let end = monotonicNanoseconds()
        context.frames.removeLast()
        queue.append(
            CapturedEvent(
                seq: seq, time: start - clockOrigin, widget: widget, descriptor: descriptor, answer: answer,
                arguments: .none, result: result, duration: end - start, parent: parent, later: step, answers: ask))
    }
}

/// An ask the recorder ends as "never answered" if it still waits when the recording ends.
struct WaitingAsk: Sendable {
    weak var ask: (any LaterAskState)?

    init(_ ask: any LaterAskState) { self.ask = ask }
}

/// What the recorder hears of one ask: each step becomes an event naming the ask.
@usableFromInline
final class RecordedAsk<Result: Sendable>: LaterObserver, Sendable {
    private let recorder: Recorder
    private let seq: Int64
    private let widget: Int32
    private let descriptor: CallbackDescriptor
    private let encode: @Sendable (Result) -> AuditValue?
    private let outcome: @Sendable (Result, Bool) -> AnswerOutcome
    /// Whether the delegate implemented the callback: -1 until the call that asked returns.
    @usableFromInline let implemented = Atomic<Int8>(-1)

    @usableFromInline
    init(
        recorder: Recorder, seq: Int64, widget: Int32, descriptor: CallbackDescriptor,
        encode: @escaping @Sendable (Result) -> AuditValue?,
        outcome: @escaping @Sendable (Result, Bool) -> AnswerOutcome
    ) {
        self.recorder = recorder
        self.seq = seq
        self.widget = widget
        self.descriptor = descriptor
        self.encode = encode
        self.outcome = outcome
    }

    /// Whether the delegate implemented the callback; while the call that asked is still running
    /// (an answer given at once), as this thread has seen so far.
    private var isImplemented: Bool {
        switch implemented.load(ordering: .acquiring) {
        case -1: !ThreadContext.current.defaultUsed
        case let known: known == 1
        }
    }

    @usableFromInline func answered(_ result: Result, deliver: () -> Void) {
        recorder.captureStep(
            .answered, answering: seq, descriptor, widget: widget, result: encode(result),
            answer: outcome(result, isImplemented), deliver)
    }

    @usableFromInline func noted(_ step: LaterStep, _ result: Result?) {
        let answer = result.map { outcome($0, isImplemented) } ?? .input.implemented(isImplemented)
        recorder.captureStep(
            step, answering: seq, descriptor, widget: widget, result: result.flatMap(encode), answer: answer)
    }
}
