import AuditModel
import AuditStorage
import Foundation
import Synchronization

extension Recorder {
    /// Records one ask of a callback answered later: the ask now, as an event with no result
    /// (`LaterStep.asked`), then each step of its answer as an event of its own that names the
    /// ask, nested under whatever event is in progress on the thread that takes it. The widget gets
    /// what the delegate answered, exactly as unaudited. Returns the ask, for the widget to hold.
    ///
    /// Inlinable so that a callback declared outside this module is specialized for its types,
    /// and with it the observer made here, which the answer's way back runs through.
    @inlinable
    func recordLater<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, then deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void,
        widget widgetID: Int32
    ) -> LaterAskState {
        let frame = beginCall()
        let ask = LaterAsk(
            deliver, ifNeverAnswered: ifNeverAnswered,
            observer: stepRecorder(callback, arguments, answering: frame.seq, widget: widgetID))
        let implemented = callback.call(target, widget, arguments, ask)
        ask.called(implemented: implemented)
        // An ask answered during the call (most are) has nothing left for `finish()` to end.
        if ask.isWaiting { awaitAnswer(to: ask) }
        endCall(
            frame, callback.descriptor, widget: widgetID, arguments: callback.arguments.encode(arguments),
            result: nil, answer: AnswerOutcome(answering: .none, tookEffect: false, implemented: implemented),
            later: .asked)
        return ask
    }

    /// The observer of ask `seq`: each step it hears of becomes an event naming the ask. It holds
    /// only what the events need of the callback: its descriptor, answer coding and judgement.
    @inlinable
    func stepRecorder<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, _ arguments: Arguments,
        answering seq: Int64, widget widgetID: Int32
    ) -> LaterObserver<Result> {
        let descriptor = callback.descriptor
        let kind = callback.answer.kind
        let takesEffect = callback.answer.takesEffect
        let encode = callback.answer.coding?.encode
        let arguments = UncheckedSendable(arguments)
        return { [self] step, result, implemented, deliver in
            let answer: AnswerOutcome
            if let result {
                let tookEffect = (kind == .veto || kind == .override) && takesEffect(arguments.value, result)
                answer = AnswerOutcome(answering: kind, tookEffect: tookEffect, implemented: implemented)
            } else {
                answer = .input.implemented(implemented)
            }
            captureStep(
                step, answering: seq, descriptor, widget: widgetID, result: result.flatMap { encode?($0) },
                answer: answer, deliver)
        }
    }

    /// Keeps `ask`, which still waits once the call that asked returned, to end at `finish()`
    /// should it still wait then.
    @usableFromInline
    func awaitAnswer(to ask: LaterAskState) {
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
    @usableFromInline
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

/// An ask the recorder ends as "never answered" if it still waits when the recording ends. Weak:
/// the recording does not keep an ask alive, whose handler's end is what tells "never answered".
struct WaitingAsk: Sendable {
    weak var ask: LaterAskState?

    init(_ ask: LaterAskState) { self.ask = ask }
}
