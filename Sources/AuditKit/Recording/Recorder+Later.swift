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
    /// An answer given during the call, on its thread (most are), is numbered and timed when it
    /// is given, as any step, and queued carried by the ask's event when the call returns: it
    /// could not be stored before the ask's, which has the smaller `seq`.
    ///
    /// Inlinable so that a callback declared outside this module is specialized for its types,
    /// and with it the ask made here, which the answer's way back runs through.
    @inlinable
    func recordLater<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, then deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void,
        widget widgetID: Int32
    ) -> LaterAskState {
        let frame = beginCall()
        var ask = RecordedAsk(
            deliver, ifNeverAnswered: ifNeverAnswered, recorder: self, callback.recording, arguments,
            seq: frame.seq, widget: widgetID)
        let implemented = callback.call(target, widget, arguments, ask)
        let asked = AnswerOutcome(answering: .none, tookEffect: false, implemented: implemented)
        if let early = ask.early.take() {
            ask.calledAndSettled(implemented: implemented)
            endCall(
                frame, callback.descriptor, widget: widgetID, arguments: callback.arguments.encode(arguments),
                answer: asked, answered: early, result: ask.earlyResult.take())
            return ask
        }
        ask.called(implemented: implemented)
        LaterAskState.endIfLetGoOf(&ask)
        // An ask answered during the call (most are) has nothing left for `finish()` to end.
        if ask.isWaiting { awaitAnswer(to: ask) }
        endCall(
            frame, callback.descriptor, widget: widgetID, arguments: callback.arguments.encode(arguments),
            result: nil, answer: asked, later: .asked)
        return ask
    }

    /// Keeps `ask`, which still waits once the call that asked returned, to end at `finish()`
    /// should it still wait then.
    @usableFromInline
    func awaitAnswer(to ask: LaterAskState) {
        waitingAsks.withLock { asks in
            if asks.count >= 1_024 { asks.removeAll { $0.ask == nil || $0.ask?.isWaiting == false } }
            asks.append(WeakAsk(ask))
        }
    }

    /// Waits until no more than `left` of the asks still waiting once their call returned wait
    /// now, or until `deadline`; returns whether it came to that. For a replay whose candidate
    /// answers on threads of its own: its answers still on their way when the inputs are done are
    /// recorded before `finish()` ends what still waits. Holds no ask while asleep (its handler's
    /// end may be what ends it).
    ///
    /// It sleeps on one waiting ask at a time, a few milliseconds at most before counting again:
    /// any of them may be the next to end.
    package func waitForAnswers(leavingWaiting left: Int, before deadline: DispatchTime) -> Bool {
        var next = 0
        while true {
            // Copied under the lock and looked at outside it: an ask let go of meanwhile ends
            // (and tells its widget) on this thread, which then holds no lock.
            let asks = waitingAsks.withLock { $0 }
            let sleepers = asks.compactMap { $0.ask?.sleeper() }
            guard sleepers.count > left else { return true }
            guard DispatchTime.now() < deadline else { return false }
            next = (next + 1) % sleepers.count
            _ = LaterAskState.sleep(on: sleepers[next], before: min(deadline, .now() + .milliseconds(5)))
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

    /// The answer to ask `ask` (`answer`), given during the call that asked, on its thread:
    /// numbered, nested under the event in progress and timed around `body` (the widget taking the
    /// answer, which nests under it) as `captureStep` does, but not queued: the ask's event carries
    /// it (`endCall`). nil, and `body` not run, on any other thread or once the call has returned:
    /// only the asking thread's frames hold the ask's, and only while its call runs.
    ///
    /// Not counted in `stepsInFlight`: a `finish()` on another thread could not store it before
    /// the ask's event, which it does not wait for either.
    @usableFromInline
    func stepInCall(
        of ask: Int64, on context: ThreadContext, answer: AnswerOutcome, _ body: () -> Void
    ) -> AnswerInCall? {
        guard let (seq, parent) = enterStep(answering: ask, &context.frames) else { return nil }
        let start = monotonicNanoseconds()
        body()
        let end = monotonicNanoseconds()
        context.frames.removeLast()
        return AnswerInCall(seq: seq, time: start - clockOrigin, duration: end - start, parent: parent, answer: answer)
    }

    /// When `frames` (this thread's) hold ask `ask`'s: numbers the step, pushes its frame and
    /// returns its number and parent (the innermost call of this recorder in progress). In one
    /// access to the frames.
    private func enterStep(answering ask: Int64, _ frames: inout [(owner: ObjectIdentifier, seq: Int64)]) -> (
        seq: Int64, parent: Int64
    )? {
        let owner = ObjectIdentifier(self)
        var parent: Int64?
        var index = frames.endIndex
        while index > frames.startIndex {
            index -= 1
            guard frames[index].owner == owner else { continue }
            if parent == nil { parent = frames[index].seq }
            guard frames[index].seq == ask, let parent else { continue }
            let seq = nextSeq.add(1, ordering: .relaxed).oldValue
            frames.append((owner, seq))
            return (seq, parent)
        }
        return nil
    }

    /// Queues the call `frame` began, an ask, carrying its answer given during the call
    /// (`answered`, with its `result`): one event to queue, which the writer makes two.
    @usableFromInline
    func endCall(
        _ frame: CallFrame, _ descriptor: CallbackDescriptor, widget: Int32, arguments: CapturedArguments,
        answer: AnswerOutcome, answered: AnswerInCall, result: AuditValue?
    ) {
        let (end, answer) = closeFrame(frame, answer)
        var ask = CapturedEvent(
            seq: frame.seq, time: frame.start - clockOrigin, widget: widget, descriptor: descriptor, answer: answer,
            arguments: arguments, result: result, duration: end - frame.start, parent: frame.parent, later: .asked)
        ask.answeredInCall = answered
        queue.append(ask)
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
