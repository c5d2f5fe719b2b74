/// The isolated mode: every recorded callback asked again, with its recorded arguments, of a
/// candidate whose widgets are not driven.
///
/// The candidate's events are the recorded ones, one for one, with its own answers; so its
/// answers are compared with the recorded ones as they come, and its session shares the recorded
/// rows and keeps only the events whose answer differs. Nothing is aligned and nothing is read
/// back but the events that differ.
extension Replayer {
    /// What the candidate answered differently, found while asking it.
    struct IsolatedRun {
        /// The candidate's answer at each event where it differs from the recorded one.
        var changed: [(seq: Int64, answer: StoredAnswer)] = []
        var found: [TimelineAligner.Found] = []
        /// Callbacks the candidate vetoed.
        var vetoes = 0
    }

    /// Asks `candidate` every callback of `plan`, in order.
    func askIsolated(_ plan: ReplayPlan, candidate: AnyObject) -> IsolatedRun {
        withExtendedLifetime(candidate) {
            // The tree that receives the calls holds the state the recorded inputs left, with no
            // delegate and no recorder, so the candidate's own side effects cause no events.
            let live = plan.scenario.root.build()
            var run = IsolatedRun()
            // Seqs run from the first event's without gaps: an event is found by position.
            let first = plan.events.first?.seq ?? 1
            func parent(of seq: Int64) -> Int64? {
                let index = Int(seq - first)
                guard plan.events.indices.contains(index), plan.events[index].seq == seq else { return nil }
                return plan.events[index].parent
            }
            var objects = IDTable<AnyObject?>()
            // Inputs in progress, innermost last: a widget takes the state its input recorded when
            // that input's events are over, so the callbacks made during an input see the state
            // from before it (the text a should-change is asked about), and later ones the state
            // after it.
            var open: [(seq: Int64, widget: (any AuditStateRestoring)?, state: AuditValue?)] = []
            func isInside(_ seq: Int64, _ ancestor: Int64) -> Bool {
                var current = parent(of: seq)
                var steps = 0
                while let node = current, steps < 10_000 {
                    if node == ancestor { return true }
                    current = parent(of: node)
                    steps += 1
                }
                return false
            }
            for (index, event) in plan.events.enumerated() {
                while let innermost = open.last, !isInside(event.seq, innermost.seq) {
                    if let state = innermost.state { innermost.widget?.restoreAuditState(state) }
                    open.removeLast()
                }
                let widget = event.widget.flatMap { path in
                    if let object = objects[event.widgetID] { return object }
                    let object = live.auditedObject(atPath: path)
                    objects[event.widgetID] = object
                    return object
                }
                guard let invoker = plan.invokers[index] else {
                    open.append((event.seq, widget as? any AuditStateRestoring, event.result))
                    continue
                }
                let outcome = widget.flatMap {
                    invoker.invoke(on: candidate, widget: $0, values: event.arguments, root: live)
                }
                let answer = StoredAnswer(kind: .callback, result: outcome?.result, flags: outcome?.flags ?? 0)
                if answer.isVeto { run.vetoes += 1 }
                if let kind = answer.difference(from: event.answer) {
                    run.changed.append((event.seq, answer))
                    run.found.append(TimelineAligner.Found(kind: kind, a: event.seq, b: event.seq))
                }
            }
            return run
        }
    }

    /// Stores `run` as the candidate's session, in one transaction.
    func storeIsolated(_ run: IsolatedRun, of plan: ReplayPlan, as session: NewSession) throws -> Int64 {
        let store = try AuditStore(path: databasePath, access: .write)
        var counters = AuditStore.SessionCounters()
        counters.events = plan.events.count
        counters.callbacks = plan.callbacks
        counters.inputs = counters.events - counters.callbacks
        counters.vetoes = run.vetoes
        return try storeOperation {
            try store.storeIsolatedReplay(
                of: plan.session.id, upTo: plan.events.last?.seq ?? 0, as: session, counters: counters,
                changed: run.changed)
        }
    }
}
