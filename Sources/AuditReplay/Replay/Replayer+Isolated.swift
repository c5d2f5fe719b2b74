import AuditKit
import AuditModel
import AuditStorage

/// The isolated mode: the recorded inputs driven again on a fresh tree whose delegate is the
/// candidate, with every answer pinned to the recorded one.
///
/// The candidate is asked every callback the recording made, with the arguments the widget has
/// then, and sees the widget in the state the recording saw (a selected index, a text and its
/// selection, a recognizer's state, location, translation and velocity), because the widgets get
/// the recorded answers and so go exactly the recorded way. Its own answers are compared with the
/// recorded ones as they come; its session shares the recorded rows and keeps only the events
/// whose answer differs. Nothing is aligned, and nothing is read back but the events that differ.
extension Replayer {
    /// What the candidate answered differently, found while asking it.
    struct IsolatedRun {
        /// The candidate's answer at each event where it differs from the recorded one.
        var changed: [(seq: Int64, answer: StoredAnswer)] = []
        var found: [TimelineAligner.Found] = []
        /// Callbacks the candidate vetoed.
        var vetoes = 0
        /// The recorded event where the run left the recording's course, if it did.
        var leftCourseAt: Int64?
        /// Recorded inputs that could not be driven.
        var skipped: [Int] = []
        /// The first input refused for nesting too deep, and its step.
        var refused: (step: Int, error: InputNestingError)?
    }

    /// Drives `plan`'s inputs with `candidate` as every widget's delegate and the answers pinned.
    /// A candidate, named `name`, that adopts no delegate protocol of the tree is refused before
    /// anything runs, as `record` refuses it.
    func askIsolated(_ plan: ReplayPlan, candidate: AnyObject, named name: String) throws(ScenarioError)
        -> IsolatedRun
    {
        try withExtendedLifetime(candidate) { () throws(ScenarioError) -> IsolatedRun in
            let root = plan.scenario.root.build()
            if ScenarioRunner.adopt(candidate, in: root, catalog: plan.scenario.catalog) == 0,
                let error = ScenarioError(unadopted: candidate, in: root, catalog: plan.scenario.catalog)
            {
                throw error.naming(name)
            }
            let pin = AnswerPin(plan, root: root)
            pin.attach(to: root)
            var refused: (step: Int, error: InputNestingError)?
            let skipped = (try? ScenarioRunner.drive(root, steps: plan.steps, refused: &refused)) ?? []
            pin.finish()
            var run = pin.run
            run.skipped = skipped
            run.refused = refused
            return run
        }
    }

    /// Stores `run` as the candidate's session, in one transaction.
    func storeIsolated(_ run: IsolatedRun, of plan: ReplayPlan, as session: NewSession, in store: AuditStore)
        throws(StoreError) -> Int64
    {
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
