import AuditModel

/// What the recorder needs of a `LaterCallback` to record the steps of its asks: made once with
/// the callback, so that an ask holds it with one reference.
@usableFromInline
final class LaterRecording<Arguments, Result>: Sendable {
    @usableFromInline let descriptor: CallbackDescriptor
    @usableFromInline let kind: AnswerKind
    /// The answer's `takesEffect` and `coding?.encode`: read alone, as an ask reads the whole
    /// `Answer` by copying it.
    @usableFromInline let takesEffect: @Sendable (Arguments, Result) -> Bool
    @usableFromInline let encode: (@Sendable (Result) -> AuditValue)?

    init(_ descriptor: CallbackDescriptor, _ answer: Answer<Arguments, Result>) {
        self.descriptor = descriptor
        kind = answer.kind
        takesEffect = answer.takesEffect
        encode = answer.coding?.encode
    }

    /// What answering `result` to `arguments` did: `Answer.outcome`.
    @inlinable
    func outcome(_ arguments: Arguments, _ result: Result, implemented: Bool) -> AnswerOutcome {
        let tookEffect = (kind == .veto || kind == .override) && takesEffect(arguments, result)
        return AnswerOutcome(answering: kind, tookEffect: tookEffect, implemented: implemented)
    }
}

/// One ask the recorder observes: the widget's closure and what the events of its steps need, in
/// one object. Each step it hears of becomes an event naming the ask (`seq`); an answer given
/// during the call that asked, on its thread, is kept (`early`) for `recordLater` to queue with
/// the ask's event.
@usableFromInline
final class RecordedAsk<Arguments, Result: Sendable>: LaterAskState, LaterAnswering, @unchecked Sendable {
    // @unchecked: `deliver` is the widget's closure, called once, on the thread that answers, as
    // the widget's own code would be, and `arguments` are read there, as the widget's own code
    // would read them. `early` and `earlyResult` are written only by `answer` on the path
    // `Recorder.stepInCall` takes, which is only ever on the asking thread while its call runs
    // (no other thread's frames hold the ask's), and read by `recordLater` on that thread once
    // the call has returned: one thread, in program order. The rest is immutable or the state's.
    @usableFromInline let deliver: (Result) -> Void
    @usableFromInline let recorder: Recorder
    @usableFromInline let recording: LaterRecording<Arguments, Result>
    /// The ask's event.
    @usableFromInline let seq: Int64
    @usableFromInline let widget: Int32
    /// The answer given during the call, on its thread, as its event records it, and its result.
    /// Two fields of types that are not generic, rather than one optional tuple or struct, so that
    /// the ask's deinit (which is not specialized) destroys them without any type's metadata (a
    /// tuple's is made at run time); not checked for exclusive access at run time, as one thread
    /// alone touches them (see above).
    @exclusivity(unchecked) @usableFromInline var early: AnswerInCall?
    @exclusivity(unchecked) @usableFromInline var earlyResult: AuditValue?
    /// Last, after the fields whose size does not depend on the callback's types.
    @usableFromInline let arguments: Arguments

    @inlinable
    init(
        _ deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void, recorder: Recorder,
        _ recording: LaterRecording<Arguments, Result>, _ arguments: Arguments, seq: Int64, widget: Int32
    ) {
        self.deliver = deliver
        self.recorder = recorder
        self.recording = recording
        self.seq = seq
        self.widget = widget
        self.arguments = arguments
        super.init(ifNeverAnswered: ifNeverAnswered, observed: true)
    }

    /// The handler's closure let go of the ask (nothing else keeps it once the call that asked
    /// has returned: the recorder's waiting asks and the widget's `PendingAnswer` are weak): if
    /// it still waits, the delegate never answered.
    deinit { handlerReleased() }

    /// The delegate called the handler. Inlinable, so that an answer runs code specialized for
    /// the callback's types all the way to the recorder.
    @inlinable
    func answer(_ result: Result) {
        let old = leave(for: Self.answered)
        let observed = old & Self.unobserved == 0
        switch old & Self.stageBits {
        case Self.waiting:
            if observed {
                // What the answer did, judged before the widget takes it, as it always was.
                let context = ThreadContext.current
                let outcome = recording.outcome(arguments, result, implemented: isImplemented(old, on: context))
                let recorded = recording.encode?(result)
                if old & Self.implementationKnown == 0,
                    let answered = recorder.stepInCall(of: seq, on: context, answer: outcome, { deliver(result) })
                {
                    // Over once the call returns (`calledAndSettled`): until `ask` returns nobody
                    // can wait for the ask (the widget has no `PendingAnswer` yet, and no recorder
                    // keeps it among its waiting asks).
                    early = answered
                    earlyResult = recorded
                    return
                }
                recorder.captureStep(
                    .answered, answering: seq, recording.descriptor, widget: widget, result: recorded,
                    answer: outcome
                ) { deliver(result) }
            } else {
                deliver(result)
            }
            settled()
        case Self.gaveUp: if observed { captured(.answeredAfterGivingUp, result, implemented: isImplemented(old)) {} }
        default: if observed { captured(.answeredTwice, result, implemented: isImplemented(old)) {} }
        }
    }

    /// Queues `step` as an event naming the ask, around `body`. A step with a result is an answer
    /// the widget never takes (answered twice, or after it gave up): its result is kept, and it
    /// vetoed or overrode nothing.
    @inlinable
    func captured(_ step: LaterStep, _ result: Result?, implemented: Bool, _ body: () -> Void) {
        let answer: AnswerOutcome
        let recorded: AuditValue?
        if let result {
            answer = AnswerOutcome(answering: recording.kind, tookEffect: false, implemented: implemented)
            recorded = recording.encode?(result)
        } else {
            answer = .input.implemented(implemented)
            recorded = nil
        }
        recorder.captureStep(
            step, answering: seq, recording.descriptor, widget: widget, result: recorded, answer: answer, body)
    }

    @usableFromInline
    override func noted(_ step: LaterStep, _ word: UInt8) { captured(step, nil, implemented: isImplemented(word)) {} }
}
