import AuditKit
import AuditModel
import AuditStorage
import Foundation

/// Replays stored sessions against a candidate delegate and compares the behaviour.
///
/// The candidate run is stored as a new session marked `replay_of` the original, so it can be
/// shown, queried and diffed like any other. The comparison is returned as a value
/// (`ReplayReport`); printing it and choosing an exit status is the caller's business.
///
/// A replay goes in four stages, each with its own type: plan (`ReplayPlan`: the recorded session
/// read, its scenario parsed), run (the candidate asked, `IsolatedRun`, or driven under a
/// recorder), store (the candidate's session written, `StoredRun`), and compare (`verdict`: the
/// `ReplayReport`). `replayAll` runs the same stages for many sessions at once.
public struct Replayer: Sendable {
    public var databasePath: String
    public var registry: DelegateRegistry
    public var catalog: WidgetCatalog

    public init(databasePath: String, registry: DelegateRegistry, catalog: WidgetCatalog) {
        self.databasePath = databasePath
        self.registry = registry
        self.catalog = catalog
    }

    /// Replays session `id` against the registered delegate `delegateName`.
    ///
    /// - Complexity: O(*e*) to read, run and store a session of *e* events, then the comparison:
    ///   isolated, made as each answer is given (O(*e*) in all, only the differing events stored);
    ///   interaction, `SessionDiffer/diff(_:_:)` of the recording and the candidate.
    public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode) throws -> ReplayReport {
        let entry = try registry.entry(named: delegateName)
        return try replay(session: id, candidate: entry.make, named: delegateName, mode: mode)
    }

    /// Replays session `id` against delegates made by `makeCandidate` (called once per run: the
    /// candidate is fresh, and keeps its state across the run). `name` is stored as the replay
    /// session's delegate.
    ///
    /// - Complexity: as `replay(session:delegate:mode:)`: O(*e*) for a session of *e* events, and
    ///   the comparison.
    public func replay(
        session id: Int64, candidate makeCandidate: () -> AnyObject, named name: String, mode: ReplayMode
    ) throws -> ReplayReport {
        try replay(session: id, candidate: makeCandidate, named: name, mode: mode, through: Stores(self))
    }

    /// `replay(session:delegate:mode:)` reading through `store`, an open store of this replayer's
    /// database that the caller goes on using on this thread (to draw the comparison, say). Opened
    /// to write, it also stores the candidate of an isolated replay; opened to read, the candidate
    /// is stored through a store opened to write. An interaction replay's recorder always writes
    /// through a connection of its own, on its writer thread.
    ///
    /// - Complexity: as `replay(session:delegate:mode:)`: O(*e*) for a session of *e* events, and
    ///   the comparison.
    public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode, reading store: AuditStore)
        throws -> ReplayReport
    {
        let entry = try registry.entry(named: delegateName)
        return try replay(
            session: id, candidate: entry.make, named: delegateName, mode: mode, through: Stores(self, store))
    }

    /// `replay`, reading and writing through `stores`: a replay job's store, confined to this
    /// thread, or the stores of this one replay, each opened once.
    func replay(
        session id: Int64, candidate makeCandidate: () -> AnyObject, named name: String, mode: ReplayMode,
        through stores: Stores
    ) throws -> ReplayReport {
        let pending = try prepare(session: id, candidate: makeCandidate, named: name, mode: mode, through: stores)
        // Stored and compared through the store written through (a job's, in its turn); an
        // interaction replay outside a job has stored its candidate through its recorder's writer.
        return try mode == .isolated ? stores.writing(pending.complete) : stores.comparing(pending.complete)
    }

    /// A replay whose candidate has run and is not yet stored and compared: `complete` does both,
    /// through the store `replay(…through:)` gives it (a job's shared writer, in its turn).
    struct PendingReplay {
        let complete: (AuditStore) throws -> ReplayReport
    }

    /// The first part of `replay(…through:)`: reads the recorded session through `stores` and runs
    /// the candidate (asking it, or driving it under a recorder), writing nothing through a job's
    /// shared writer.
    func prepare(
        session id: Int64, candidate makeCandidate: () -> AnyObject, named name: String, mode: ReplayMode,
        through stores: Stores
    ) throws -> PendingReplay {
        let started = monotonicNanoseconds()
        let plan = try ReplayPlan(
            session: id, store: stores.planStore(for: mode), catalog: catalog, parsed: stores.job?.parsed,
            fingerprinting: mode == .interaction)
        let loaded = monotonicNanoseconds()
        // A session with no callback: an isolated replay, which compares what the delegate
        // answers, would compare nothing.
        if mode == .isolated && plan.callbacks == 0 && !plan.steps.isEmpty {
            throw ReplayError.noCallbacks(session: id)
        }
        let session = NewSession(
            name: "replay of \(id)", scenario: plan.scenario.name, source: plan.scenario.source,
            delegate: name, replayOf: id, replayMode: mode)
        let last = plan.events.last?.seq
        let clock = StageClock(started: started, loaded: loaded)
        if mode == .isolated {
            let run = try askIsolated(plan, candidate: makeCandidate(), named: name)
            let asked = monotonicNanoseconds()
            return PendingReplay { [self] store in
                let stored = StoredRun.isolated(
                    run, as: try storeIsolated(run, of: plan, as: session, in: store), at: asked)
                return try verdict(on: stored, of: plan, mode: mode, found: run, aligned: nil, clock: clock, in: store)
            }
        }
        let driven = try drive(plan, candidate: makeCandidate, named: name, as: session, through: stores.job)
        // A job's recorder encodes and fingerprints the events before its turn at the shared
        // writer, and they are aligned with the recorded ones here: in the turn, the events are
        // stored, and only those that differ are read (the alignment stands if they are all
        // written at once).
        let fingerprints = driven.recorder.prepareToFinish()
        let aligned = plan.fingerprints.flatMap { recorded in
            fingerprints.map { SessionDiffer.Aligned(id, recorded, .max, $0, upTo: last) }
        }
        return PendingReplay { store in
            let stored = driven.finish()
            return try verdict(
                on: stored, of: plan, mode: mode, found: nil, aligned: driven.recorder.wroteWhole ? aligned : nil,
                clock: clock, in: store)
        }
    }

    /// The last stage, compare: the verdict on the candidate of `plan` once stored as `stored`,
    /// compared through `store`, which sees it. An isolated run brings the differences it `found`
    /// as it ran; an interaction run's are found here, from its fingerprints `aligned` already
    /// when its recorder wrote them whole.
    private func verdict(
        on stored: StoredRun, of plan: ReplayPlan, mode: ReplayMode, found run: IsolatedRun?,
        aligned: SessionDiffer.Aligned?, clock: StageClock, in store: AuditStore
    ) throws -> ReplayReport {
        let ran = monotonicNanoseconds()
        let recorded = plan.session.id
        let differ = SessionDiffer(store)
        let diff =
            try run.map { try differ.diff(recorded, stored.session, found: $0.found, events: plan.events.count) }
            ?? differ.diff(recorded, stored.session, upTo: plan.events.last?.seq, aligned: aligned)
        var report = ReplayReport(
            mode: mode, diff: diff, inputsReplayed: plan.steps.count - stored.skipped.count,
            inputsSkipped: stored.skipped.count, cutShort: plan.cutShort,
            nestingRefused: stored.refused.map { ReplayReport.NestingRefusal(step: $0.step, error: $0.error) },
            recordingFailures: stored.failures,
            firstDivergence: try Divergence(of: diff, in: store),
            timings: ReplayReport.Timings(
                load: seconds(clock.loaded - clock.started), run: seconds(stored.finishedRun - clock.loaded),
                store: seconds(ran - stored.finishedRun), compare: seconds(monotonicNanoseconds() - ran),
                callbacks: plan.callbacks))
        report.leftCourse = run?.leftCourseAt.map { event in
            ReplayReport.LeftCourse(event: event, uncompared: plan.events.count { $0.seq > event })
        }
        return report
    }

    /// When a replay started and when its plan was loaded, on the monotonic clock.
    private struct StageClock {
        let started: Int64
        let loaded: Int64
    }

    private func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds) / 1e9 }

    /// The candidate's session once stored.
    private struct StoredRun {
        var session: Int64
        /// Recorded inputs the candidate's run could not take.
        var skipped: [Int] = []
        /// Failed writes that lost events (0 when none lost any).
        var failures = 0
        /// When the candidate finished running (a recorder's writer may still have been storing).
        var finishedRun: Int64
        /// The first input refused for nesting too deep, and the step it happened in.
        var refused: (step: Int, error: InputNestingError)?

        /// An isolated run, stored as `session`.
        static func isolated(_ run: IsolatedRun, as session: Int64, at finishedRun: Int64) -> StoredRun {
            StoredRun(session: session, skipped: run.skipped, finishedRun: finishedRun, refused: run.refused)
        }
    }

    /// A candidate driven under its recorder, not yet finished.
    private struct Driven {
        let recorder: Recorder
        let skipped: [Int]
        let refused: (step: Int, error: InputNestingError)?
        let finishedRun: Int64

        /// Finishes the recorder: a replay job's, in its turn at the shared writer, stores the
        /// events there; any other's writer thread has been storing them meanwhile.
        func finish() -> StoredRun {
            let summary = recorder.finish()
            return StoredRun(
                session: summary.session, skipped: skipped,
                failures: summary.lostEvents > 0 ? summary.failedWrites : 0, finishedRun: finishedRun,
                refused: refused)
        }
    }

    /// Drives the recorded inputs on a fresh tree whose delegate is the candidate, under a
    /// recorder: the interaction mode. A replay job's recorder holds the events until it is
    /// finished, in the job's turn at the shared writer; any other writes them through a
    /// connection of its own, on its writer thread, while the candidate runs on this one.
    private func drive(
        _ plan: ReplayPlan, candidate makeCandidate: () -> AnyObject, named name: String, as session: NewSession,
        through job: Job?
    ) throws -> Driven {
        let candidate = makeCandidate()
        // A candidate that adopts no delegate protocol of the tree is refused, as `record` refuses
        // it, before the recorder makes its session: the database is left as it was. Checked on a
        // tree of its own, whose widgets take the candidate as the run's will.
        try ScenarioRunner.checkAdopted({ candidate }, named: name, by: plan.scenario, at: "delegate")
        let secrets = plan.scenario.secureTextPaths.isEmpty ? nil : try SecretHasher(databasePath: databasePath)
        let recorder =
            try job?.recorder(for: session, catalog: catalog)
            ?? Recorder(databasePath: databasePath, session: session, catalog: catalog)
        if let secrets { recorder.useSecrets(secrets) }
        var refused: (step: Int, error: InputNestingError)?
        let skipped = withExtendedLifetime(candidate) {
            (try? ScenarioRunner.run(
                plan.scenario, steps: plan.steps, delegate: candidate, recorder: recorder, invalid: .skip,
                refused: &refused))?
                .skipped ?? []
        }
        // The candidate's answers still on their way (given on threads of its own) are waited for,
        // up to `AnswerPin.answerWait`, as an isolated replay waits for them, until no more asks
        // wait than the recording left waiting when it ended (its last events, with no parent).
        let leftWaiting = plan.events.reversed().prefix { $0.later == .neverAnswered && $0.parent == nil }.count
        _ = recorder.waitForAnswers(leavingWaiting: leftWaiting, before: .now() + AnswerPin.answerWait)
        return Driven(recorder: recorder, skipped: skipped, refused: refused, finishedRun: monotonicNanoseconds())
    }
}

extension Replayer {
    /// The stores one replay operation reads and writes through on the calling thread: a replay
    /// job's reader and shared writer, or a store opened to read and, where the operation writes
    /// on this thread (an isolated replay stores its candidate), one opened to write, which then
    /// serves the reads too, each opened at most once.
    final class Stores {
        /// The replay job whose stores these are, if any.
        let job: Job?
        private let databasePath: String
        private var reader: AuditStore?
        private var writer: AuditStore?

        /// The stores of one replay by `replayer`, starting from `store` when given (a store of
        /// its database, opened to read or to write).
        init(_ replayer: Replayer, _ store: AuditStore? = nil) {
            job = nil
            databasePath = replayer.databasePath
            if store?.access == .write { writer = store } else { reader = store }
        }

        /// A replay job's stores: its reader, and the writer it shares with the other jobs.
        init(job: Job) {
            self.job = job
            databasePath = job.replayer.databasePath
            reader = job.reader
        }

        /// The store to read committed sessions through: the one opened to write when there is
        /// one (outside a job).
        func reading() throws(StoreError) -> AuditStore {
            if let store = writer ?? reader { return store }
            let store = try AuditStore(path: databasePath, access: .read)
            reader = store
            return store
        }

        /// The store to write through, opened to write the first time (never made: a replay reads
        /// a stored session first); outside a job only.
        private func openedToWrite() throws(StoreError) -> AuditStore {
            if let writer { return writer }
            let store = try AuditStore(existingAt: databasePath, access: .write)
            writer = store
            return store
        }

        /// Runs `body` with the store to write through: a job's shared writer, in its turn, or
        /// this replay's own.
        func writing<T>(_ body: (AuditStore) throws -> T) throws -> T {
            if let job { return try job.write(body) }
            return try body(try openedToWrite())
        }

        /// Runs `body` with a store that sees the candidate just stored: a job's shared writer (its
        /// batch may not be committed yet), in its turn, or the store read through.
        func comparing<T>(_ body: (AuditStore) throws -> T) throws -> T {
            if let job { return try job.write(body) }
            return try body(try reading())
        }

        /// The store a replay in `mode` reads the recorded session through: an isolated replay
        /// outside a job stores its candidate on this thread, so it reads through the store it
        /// writes with.
        func planStore(for mode: ReplayMode) throws(StoreError) -> AuditStore {
            mode == .isolated && job == nil ? try openedToWrite() : try reading()
        }
    }
}
