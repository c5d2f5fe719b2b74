import AuditKit
import AuditModel
import AuditStorage

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
final class AnswerPin: AnswerPinning, @unchecked Sendable {
    // @unchecked: a pin is made, driven and read on the one thread that runs the replay's widgets,
    // like the widgets themselves; it crosses no thread.
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

    /// Ends the run: recorded events the live run never reached are missing from it.
    func finish() {
        if !derailed && cursor < events.count { derail() }
        // An answer is compared when the call returns, so a callback's answer comes after those of
        // the calls nested in it: the run reports them in `seq` order, as the differ does.
        run.found.sort { ($0.a ?? 0) < ($1.a ?? 0) }
        run.changed.sort { $0.seq < $1.seq }
    }

    /// Runs an input when it is the recording's next event; an input the recording does not have
    /// there (the candidate's own, from inside a callback) is not performed.
    package func input(_ descriptor: CallbackDescriptor, widget: Int32, _ body: () -> AuditValue?) {
        if derailed || matches(descriptor, widget) {
            if !derailed { cursor += 1 }
            _ = body()
        }
    }

    /// Asks the candidate, compares its answer with the recorded one, and returns the recorded one.
    package func answer<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, widgetID: Int32
    ) -> Result {
        let index = follow(callback.descriptor, widgetID)
        let (result, outcome) = callback.ask(target, widget, arguments, on: .current)
        guard let index else { return result }
        let seq = events[index].seq
        performDelegateInputs(of: seq)
        let answer = StoredAnswer(result: callback.answer.coding?.encode(result), outcome: outcome)
        if outcome.vetoed == true { run.vetoes += 1 }
        guard let kind = answer.difference(from: events[index].answer) else { return result }
        run.changed.append((seq, answer))
        run.found.append(TimelineAligner.Found(kind: kind, a: seq, b: seq))
        guard let coding = callback.answer.coding, let recorded = events[index].result,
            let value = coding.decode(recorded, in: root)
        else { return result }
        return value
    }

    /// The index of the recorded event that the live event now starting is, or nil once the run
    /// has left the recording's course.
    private func follow(_ declaration: CallbackDescriptor, _ widget: Int32) -> Int? {
        guard !derailed else { return nil }
        guard matches(declaration, widget) else {
            derail()
            return nil
        }
        cursor += 1
        return cursor - 1
    }

    private func matches(_ declaration: CallbackDescriptor, _ widget: Int32) -> Bool {
        cursor < events.count && declarations[cursor] === declaration && events[cursor].widgetID == Int64(widget)
    }

    /// Performs the inputs the recording's delegate made inside callback `seq` that the candidate
    /// did not make: they are next in the recording once the candidate has answered.
    private func performDelegateInputs(of seq: Int64) {
        while !derailed, cursor < events.count, events[cursor].parent == seq, let step = delegateInputs[cursor],
            let root
        {
            let before = cursor
            step.perform(in: root)
            if cursor == before { derail() }
        }
    }

    private func derail() {
        derailed = true
        guard cursor < events.count else { return }
        run.found.append(TimelineAligner.Found(kind: .onlyInA, a: events[cursor].seq, b: nil))
        run.leftCourseAt = events[cursor].seq
    }
}
