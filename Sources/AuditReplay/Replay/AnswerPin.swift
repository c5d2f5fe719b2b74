import AuditKit
import AuditModel
import AuditStorage
import Dispatch
import Foundation
import Synchronization

/// What an isolated replay puts in the widgets' audit links instead of a recorder: it follows the
/// recording event by event, asks the candidate each callback, keeps the candidate's answer where
/// it differs from the recorded one, and gives the widget the recorded answer, so the run takes
/// the recording's course and every widget holds the state the recording saw.
///
/// The course is the recording's in what delegates do to widgets too: an input the candidate makes
/// from inside a callback that the recording does not have is not performed, and one the recording
/// has that the candidate does not make is performed by the pin, as recorded. So isolated replay
/// compares answers only; what a delegate does to its widgets shows in interaction mode.
///
/// The live run's events are matched to the recorded ones in order, by their declaration and
/// widget. Should a callback still not match (a widget that behaves differently from one run to
/// the next), the course has left the recording: the pin reports the recorded event there as
/// missing and stops comparing.
///
/// Widgets may ask from other threads than the one that drives the inputs (a widget whose
/// delegate calls come on a queue of its own), and a candidate may answer later from any thread:
/// the pin's state is under a lock, which it never holds while it calls a widget or a delegate.
final class AnswerPin: AnswerPinning, @unchecked Sendable {
    // @unchecked: every `var` below is read and written under `lock` only.
    private let lock = NSLock()
    private let events: [StoredEvent]
    private let delegateInputs: [Int: ScenarioStep]
    private let widgetIDs: [String: Int32]
    /// For each of `events`, the declaration of its callback or input (compared by identity).
    private let declarations: [CallbackDescriptor?]
    private weak var root: View?
    private var cursor = 0
    private var derailed = false
    private(set) var run = Replayer.IsolatedRun()
    package let secrets = SecretHasher.ephemeral()
    /// For each recorded ask the run has reached, by its seq: hands the widget the recorded answer.
    private var recordedAnswers: [Int64: (LaterStep, AuditValue?) -> Void] = [:]
    /// For each recorded ask the run has reached: the candidate's own ask, answered to no widget.
    /// Held weakly, as every ask is but by its handler: the candidate letting go of the handler
    /// ends it.
    private var candidateAsks: [Int64: WeakAsk] = [:]
    /// The later steps the candidate took (answered, mistakes), by the recorded ask's seq.
    private var candidateSteps: [Int64: [LaterStep]] = [:]
    /// The recorded later steps of each ask, by its seq: indexes into `events`.
    private lazy var recordedSteps: [Int64: [Int]] = {
        var steps: [Int64: [Int]] = [:]
        for (index, event) in events.enumerated() {
            if let ask = event.answers, event.later != nil { steps[ask, default: []].append(index) }
        }
        return steps
    }()

    init(_ plan: ReplayPlan, root: View) {
        events = plan.events
        delegateInputs = plan.delegateInputs
        widgetIDs = plan.widgetIDs
        declarations = zip(plan.invokers, plan.inputs).map { $0?.descriptor ?? $1 }
        self.root = root
    }

    /// Links every widget and recognizer under `root` to this pin, each with the id its path has
    /// in the recorded session (widgets added during the run too).
    package func attach(to root: View) {
        root.visit { view in
            view.auditLink = AuditLink(pin: self, widget: widgetIDs[view.path] ?? 0)
            for recognizer in view.gestureRecognizers { attach(recognizer) }
        }
    }

    package func attach(_ recognizer: GestureRecognizer) {
        recognizer.auditLink = AuditLink(pin: self, widget: widgetIDs[recognizer.path] ?? 0)
    }

    /// How long `finish()` waits, in all, for the candidate's answers still on their way to asks
    /// the recording has an answer for.
    static let answerWait = DispatchTimeInterval.seconds(10)

    /// Ends the run: recorded events the live run never reached are missing from it. A candidate's
    /// answer still on its way (given on another thread) to an ask the recording has an answer
    /// for is waited for, up to `answerWait` in all; an ask still waiting after that, or one the
    /// recording never answered, is the candidate's "never answered".
    func finish() {
        catchUp()
        let waiting = locked {
            candidateAsks.filter { seq, weak in
                weak.ask?.isWaiting == true && recordedSteps[seq]?.contains { events[$0].later == .answered } == true
            }.map(\.value)
        }
        let deadline = DispatchTime.now() + Self.answerWait
        // Not holding an ask while asleep: its handler's end may be what ends it.
        for weak in waiting where !LaterAskState.sleep(on: weak.ask?.sleeper(), before: deadline) { break }
        for weak in locked({ Array(candidateAsks.values) }) { weak.ask?.observationEnded() }
        lock.lock()
        defer { lock.unlock() }
        compareLaterSteps()
        if !derailed && cursor < events.count { derail() }
        // An answer is compared when the call returns, so a callback's answer comes after those of
        // the calls nested in it: the run reports them in `seq` order, as the differ does.
        run.found.sort { ($0.a ?? 0) < ($1.a ?? 0) }
        run.changed.sort { $0.seq < $1.seq }
    }

    /// Runs an input when it is the recording's next event; an input the recording does not have
    /// there (the candidate's own, from inside a callback) is not performed.
    package func input(_ descriptor: CallbackDescriptor, widget: Int32, _ body: () -> AuditValue?) {
        catchUp()
        let performed = locked {
            guard derailed || matches(descriptor, widget) else { return false }
            if !derailed { cursor += 1 }
            return true
        }
        if performed { _ = body() }
        catchUp()
    }

    /// Asks the candidate, compares its answer with the recorded one, and returns the recorded one.
    package func answer<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, widgetID: Int32
    ) -> Result {
        let index = follow(callback.descriptor, widgetID)
        let (result, outcome) = callback.ask(target, widget, arguments, on: .current)
        guard let index else { return result }
        defer { catchUp() }
        let seq = events[index].seq
        performDelegateInputs(of: seq)
        let answer = StoredAnswer(result: callback.answer.coding?.encode(result), outcome: outcome)
        let changed = locked {
            if outcome.vetoed == true { run.vetoes += 1 }
            guard let kind = answer.difference(from: events[index].answer) else { return false }
            run.changed.append((seq, answer))
            run.found.append(TimelineAligner.Found(kind: kind, a: seq, b: seq))
            return true
        }
        guard changed, let coding = callback.answer.coding, let recorded = events[index].result,
            let value = coding.decode(recorded, in: root)
        else { return result }
        return value
    }

    /// The index of the recorded event that the live event now starting is, or nil once the run
    /// has left the recording's course.
    private func follow(_ declaration: CallbackDescriptor, _ widget: Int32) -> Int? {
        catchUp()
        return locked {
            guard !derailed else { return nil }
            guard matches(declaration, widget) else {
                derail()
                return nil
            }
            cursor += 1
            return cursor - 1
        }
    }

    /// `body`'s result, run under the lock.
    private func locked<Value>(_ body: () throws -> Value) rethrows -> Value {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func matches(_ declaration: CallbackDescriptor, _ widget: Int32) -> Bool {
        cursor < events.count && declarations[cursor] === declaration && events[cursor].widgetID == Int64(widget)
    }

    /// Performs the inputs the recording's delegate made inside callback `seq` that the candidate
    /// did not make: they are next in the recording once the candidate has answered.
    private func performDelegateInputs(of seq: Int64) {
        while let root, let next = nextDelegateInput(of: seq) {
            next.step.perform(in: root)
            locked { if cursor == next.index { derail() } }
        }
    }

    /// The next recorded input the recording's delegate made inside callback `seq`, if the run
    /// is there.
    private func nextDelegateInput(of seq: Int64) -> (step: ScenarioStep, index: Int)? {
        locked {
            guard !derailed, cursor < events.count, events[cursor].parent == seq, let step = delegateInputs[cursor]
            else { return nil }
            return (step, cursor)
        }
    }

    // MARK: Answers that come later

    package func answerLater<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, then deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void,
        widgetID: Int32
    ) -> LaterAskState {
        guard let index = follow(callback.descriptor, widgetID) else {
            // Off the recording's course: the candidate answers.
            var ask = LaterAsk(deliver, ifNeverAnswered: ifNeverAnswered)
            callback.call(target, widget, arguments, ask)
            LaterAskState.endIfLetGoOf(&ask)
            return ask
        }
        let seq = events[index].seq
        // The widget's side: it gets the recorded answer from the pin, and its giving up is
        // followed along the recording.
        let ask = LaterAsk(
            deliver, ifNeverAnswered: ifNeverAnswered,
            observer: { [self] step, _, _, deliver in
                if step == .answered { deliver() } else if step == .gaveUp { gaveUp(seq) }
            })
        let root = self.root
        // The candidate's side: its answer is compared, never delivered; its mistakes are counted.
        let encode = callback.answer.coding?.encode
        let answer = callback.answer
        let asked = UncheckedSendable(arguments)
        var candidate = LaterAsk<Result>(
            { _ in },
            observer: { [self] step, result, implemented, _ in
                guard step == .answered, let result else { return candidateNoted(seq, step) }
                let outcome = answer.outcome(asked.value, result, implemented: implemented)
                candidateAnswered(seq, StoredAnswer(result: encode?(result), outcome: outcome))
            })
        locked {
            candidateAsks[seq] = WeakAsk(candidate)
            recordedAnswers[seq] = { step, recorded in
                if step == .neverAnswered {
                    ask.handlerReleased()  // the widget hears of it, as it did
                } else if let coding = callback.answer.coding {
                    if let recorded, let value = coding.decode(recorded, in: root) { ask.answer(value) }
                } else if let none = () as? Result {
                    ask.answer(none)
                }
            }
        }
        candidate.called(implemented: callback.call(target, widget, arguments, candidate))
        LaterAskState.endIfLetGoOf(&candidate)
        performDelegateInputs(of: seq)
        catchUp()
        return ask
    }

    /// Takes the recording's next events while they are later steps of an ask the run has
    /// reached: hands the widget a recorded answer, or tells it that the handler was let go of
    /// uncalled (a widget that waits for its answer stops waiting, as it did), and passes over the
    /// other recorded mistakes (the recorded delegate's, which leave the widget as it was). A
    /// recorded give-up is the widget's own: followed when the live widget gives up (`gaveUp(_:)`).
    private func catchUp() {
        let deliveries = locked {
            var deliveries: [() -> Void] = []
            while !derailed, cursor < events.count, let step = events[cursor].later, step != .asked, step != .gaveUp,
                let ask = events[cursor].answers
            {
                let recorded = events[cursor].result
                cursor += 1
                if step == .answered || step == .neverAnswered, let deliver = recordedAnswers.removeValue(forKey: ask) {
                    deliveries.append { deliver(step, recorded) }
                }
            }
            return deliveries
        }
        for deliver in deliveries { deliver() }
    }

    /// The live widget gave up on ask `seq`: the recording's next event must be that give-up.
    fileprivate func gaveUp(_ seq: Int64) {
        catchUp()
        locked { candidateAsks[seq]?.ask }?.giveUp()
        locked {
            guard !derailed else { return }
            guard cursor < events.count, events[cursor].later == .gaveUp, events[cursor].answers == seq else {
                return derail()
            }
            recordedAnswers[seq] = nil
            cursor += 1
        }
    }

    /// The candidate's first answer to ask `seq`, compared with the recorded one.
    fileprivate func candidateAnswered(_ seq: Int64, _ answer: StoredAnswer) {
        lock.lock()
        defer { lock.unlock() }
        candidateSteps[seq, default: []].append(.answered)
        if answer.outcome.vetoed == true { run.vetoes += 1 }
        guard let index = recordedSteps[seq]?.first(where: { events[$0].later == .answered }) else { return }
        guard let kind = answer.difference(from: events[index].answer) else { return }
        run.changed.append((events[index].seq, answer))
        run.found.append(TimelineAligner.Found(kind: kind, a: events[index].seq, b: events[index].seq))
    }

    fileprivate func candidateNoted(_ seq: Int64, _ step: LaterStep) {
        guard step.isMistake else { return }
        locked { candidateSteps[seq, default: []].append(step) }
    }

    /// Each reached ask's mistakes, the recording's against the candidate's: one the recording
    /// has that the candidate did not make, or the other way round, is a `mistake` difference.
    private func compareLaterSteps() {
        for ask in candidateAsks.keys.sorted() {
            var recorded = (recordedSteps[ask] ?? []).filter { events[$0].later?.isMistake == true }
            for step in candidateSteps[ask] ?? [] where step.isMistake {
                if let match = recorded.firstIndex(where: { events[$0].later == step }) {
                    recorded.remove(at: match)
                } else {
                    run.found.append(TimelineAligner.Found(kind: .mistake, a: ask, b: ask))
                }
            }
            for index in recorded {
                run.found.append(TimelineAligner.Found(kind: .mistake, a: events[index].seq, b: nil))
            }
        }
    }

    private func derail() {
        derailed = true
        guard cursor < events.count else { return }
        run.found.append(TimelineAligner.Found(kind: .onlyInA, a: events[cursor].seq, b: nil))
        run.leftCourseAt = events[cursor].seq
    }
}
