import AuditKit
import AuditModel
import AuditStorage
import CSQLite
import Foundation
import Synchronization

extension Replayer {
    /// One worker of `replayAll`: a connection that reads the recorded sessions, kept open from
    /// one session to the next on the worker's thread, and the writer every worker stores its
    /// candidates through.
    ///
    /// Replaying through a job costs no database opening, writer thread, checkpoint or lock file
    /// per session: the candidate runs on the job's thread with its events held in memory
    /// (`Recorder.init(recordingInline:…)`), and is then written and compared through the shared
    /// writer, in the batch it has open.
    public final class Job {
        let replayer: Replayer
        /// Reads the recorded sessions, which are committed: a connection of this job's own, so
        /// that jobs read in parallel.
        let reader: AuditStore
        let writer: SharedWriter
        /// The scenarios and arguments of the sessions replayed so far, parsed once.
        let parsed = ParsedOnce()
        /// The batches the session in progress wrote in, if it wrote.
        private var wroteIn: ClosedRange<Int>?

        init(_ replayer: Replayer, writer: SharedWriter) throws(StoreError) {
            self.replayer = replayer
            self.writer = writer
            reader = try AuditStore(path: replayer.databasePath, access: .read)
        }

        /// Runs `body` with the shared writer's store, in its turn among the jobs, and notes the
        /// batch it ran in.
        func write<T>(_ body: (AuditStore) throws -> T) throws -> T {
            let (result, batch) = try writer.write(body)
            wroteIn = (wroteIn?.lowerBound ?? batch)...batch
            return result
        }

        /// A recorder for a candidate: it writes inline, and uses the shared writer's store only
        /// in `finish()`, which the job runs in `write`.
        func recorder(for session: NewSession, catalog: WidgetCatalog) throws(StoreError) -> Recorder {
            try Recorder(recordingInline: writer.store, session: session, catalog: catalog)
        }

        /// Ends the session in progress: returns the batches it wrote in, and lets the writer
        /// commit when its batch is full or old enough.
        func endSession() -> ClosedRange<Int>? {
            defer { wroteIn = nil }
            if wroteIn != nil { writer.sessionsEnded() }
            return wroteIn
        }

        /// `Replayer.replay(session:delegate:mode:)` through this job's reader and shared writer,
        /// waiting for its turn there.
        ///
        /// - Complexity: as `Replayer.replay(session:delegate:mode:)`: O(*e*) for a session of *e*
        ///   events, and the comparison.
        public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode) throws -> ReplayReport {
            try write(prepare(session: id, delegate: delegateName, mode: mode).complete)
        }

        /// The first part of `replay(session:delegate:mode:)`: the candidate run, to be stored and
        /// compared in a turn at the shared writer.
        func prepare(session id: Int64, delegate delegateName: String, mode: ReplayMode) throws -> PendingReplay {
            let entry = try replayer.registry.entry(named: delegateName)
            return try replayer.prepare(
                session: id, candidate: entry.make, named: delegateName, mode: mode, through: Stores(job: self))
        }

        /// `Replayer.replay(session:delegate:mode:noiseRuns:)` through this job's reader and shared
        /// writer.
        ///
        /// - Complexity: (1 + `noiseRuns`) replays of the session, as
        ///   `Replayer.replay(session:delegate:mode:noiseRuns:)`.
        public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode, noiseRuns: Int)
            throws -> ReplayReport
        {
            try replayer.replay(
                session: id, delegate: delegateName, mode: mode, noiseRuns: noiseRuns, through: Stores(job: self))
        }
    }

    /// How `replayAll` schedules what its jobs store: each piece of the machinery, which can be
    /// turned off on its own to measure what it pays for (`auditbench --only scheduler`).
    /// `standard` is what `replay --all` runs.
    package struct BatchPolicy: Sendable {
        /// A batch of the shared writer is committed once this many sessions have ended in it (1:
        /// a commit per session) or once it is `batchAge` old, checked as each session ends.
        package var sessionsPerBatch = 32
        package var batchAge = Duration.milliseconds(100)
        /// The turns at the shared writer the jobs together put off while another job holds it,
        /// replaying their next sessions meanwhile, at least 2 a job (0: a job waits for the
        /// writer after each session). A commit may wait for the disk, which SQLite syncs when it
        /// starts the WAL over after a checkpoint copied all of it.
        package var turnsPutOff = 64
        /// How often the WAL is copied into the database by a passive checkpoint on a thread and
        /// connection of its own, asked for as a batch is committed (nil: SQLite's automatic
        /// checkpoint every thousand pages, run by the writer while the jobs wait for it).
        package var checkpointInterval: Duration? = .milliseconds(250)

        /// What `replay --all` runs.
        package static let standard = BatchPolicy()

        /// The most turns a job holds before it waits for the writer (1: it waits at once).
        func turnsHeld(jobs: Int) -> Int { turnsPutOff == 0 ? 1 : max(2, turnsPutOff / jobs) }

        /// The most sessions `replayAll` has running, stored or waiting to be delivered: each
        /// job's running one, those it holds and one more, and two batches, so that the jobs go on
        /// while the sessions of a full batch wait for its commit, and while the outcomes of a
        /// committed one wait to be delivered. Memory depends on it, not on how many sessions
        /// there are.
        func window(jobs: Int) -> Int { jobs * (turnsHeld(jobs: jobs) + 2) + 2 * sessionsPerBatch }
    }

    /// Runs `work` for each of `sessions` on `jobs` threads, each with a `Job` of its own, and
    /// hands the results to `deliver` on the calling thread, in the order of `sessions`, as soon as
    /// each and those before it are done and what they stored is committed. Returns once every job
    /// has closed its connection.
    ///
    /// At most a window of sessions (a few dozen a job, and two batches) are running, stored or
    /// waiting to be delivered at any time, so memory depends on the jobs, not on how many
    /// sessions there are.
    /// When the database cannot be opened to write, each session fails with that error; a job that
    /// cannot open it to read fails each session it takes, and the others go on. A batch whose
    /// commit fails fails each session that wrote in it.
    ///
    /// - Complexity: Σ O(*e*ᵢ) for sessions of *e*ᵢ events, each replayed as
    ///   `replay(session:delegate:mode:)`, on `jobs` threads; memory bounded by the window of sessions
    ///   in flight, not by the number of sessions.
    public func replayAll<Outcome: Sendable>(
        _ sessions: [Int64], jobs: Int, work: @escaping @Sendable (Job, Int64) throws -> Outcome,
        deliver: (_ index: Int, _ outcome: Result<Outcome, any Error>) -> Void
    ) {
        replayAll(sessions, jobs: jobs, policy: .standard, steps: { .outcome(try work($0, $1)) }, deliver: deliver)
    }

    /// `replayAll(_:jobs:work:deliver:)` replaying each session against `delegate` in `mode`, the
    /// outcome made of its report by `outcome` on the job's thread. A job whose candidate has run
    /// while another job holds the shared writer does not wait for it: it replays its next session
    /// and stores both in its next turn.
    ///
    /// - Complexity: Σ O(*e*ᵢ) for sessions of *e*ᵢ events, each replayed as
    ///   `replay(session:delegate:mode:)`, on `jobs` threads; memory bounded by the window of sessions
    ///   in flight, not by the number of sessions.
    public func replayAll<Outcome: Sendable>(
        _ sessions: [Int64], jobs: Int, delegate: String, mode: ReplayMode,
        outcome: @escaping @Sendable (ReplayReport) -> Outcome,
        deliver: (_ index: Int, _ outcome: Result<Outcome, any Error>) -> Void
    ) {
        replayAll(
            sessions, jobs: jobs, policy: .standard,
            steps: Self.steps(delegate: delegate, mode: mode, outcome: outcome),
            deliver: deliver)
    }

    /// Each session's work in `replayAll(_:jobs:delegate:mode:outcome:deliver:)`: the candidate
    /// run, then a turn at the shared writer that stores and compares it.
    package static func steps<Outcome>(
        delegate: String, mode: ReplayMode, outcome: @escaping @Sendable (ReplayReport) -> Outcome
    ) -> @Sendable (Job, Int64) throws -> Step<Outcome> {
        { job, id in
            let pending = try job.prepare(session: id, delegate: delegate, mode: mode)
            return .turn { store in outcome(try pending.complete(store)) }
        }
    }

    /// What a job's work on one session gives: its outcome, or the turn at the shared writer that
    /// makes it, which the job runs when the writer is free.
    package enum Step<Outcome> {
        case outcome(Outcome)
        case turn((AuditStore) throws -> Outcome)
    }

    /// `replayAll` scheduled by `policy`, each session's work done by `steps`.
    package func replayAll<Outcome: Sendable>(
        _ sessions: [Int64], jobs: Int, policy: BatchPolicy,
        steps: @escaping @Sendable (Job, Int64) throws -> Step<Outcome>,
        deliver: (_ index: Int, _ outcome: Result<Outcome, any Error>) -> Void
    ) {
        precondition(jobs >= 1, "jobs must be at least 1")
        let workers = min(jobs, sessions.count)
        guard workers > 0 else { return }
        let writer = Result { () throws(StoreError) in try SharedWriter(path: databasePath, policy: policy) }
        let batch = BatchState<Outcome>(count: sessions.count, window: policy.window(jobs: jobs))
        let ended = DispatchSemaphore(value: 0)
        for _ in 0..<workers {
            let thread = Thread { [self] in
                do {
                    let job = Result { () throws(StoreError) in try Job(self, writer: writer.get()) }
                    var held: [(index: Int, outcome: Result<Outcome, any Error>, wroteIn: ClosedRange<Int>)] = []
                    var putOff: [(index: Int, turn: (AuditStore) throws -> Outcome)] = []
                    // Outcomes are delivered once what they stored is committed; with `all`, the
                    // open batch is committed first, so that every one held is.
                    func deliverCommitted(all: Bool) {
                        if all, !held.isEmpty { try? writer.get().commit() }
                        held.removeAll { index, outcome, wroteIn in
                            guard let committed = try? writer.get().committed(wroteIn) else { return false }
                            if case .success = outcome, case .failure(let error) = committed {
                                batch.finish(index, .failure(error))
                            } else {
                                batch.finish(index, outcome)
                            }
                            return true
                        }
                    }
                    // The turns put off, in one turn at the writer: once it is free, or at once
                    // when `waiting`. A turn that fails is delivered with its error at once; when
                    // the writer cannot begin a batch, each fails with that error.
                    func runPutOff(waiting: Bool) {
                        guard !putOff.isEmpty else { return }
                        let turns = putOff
                        let body = { (store: AuditStore) in
                            turns.map { index, turn in (index, Result { try turn(store) }) }
                        }
                        let ran: (outcomes: [(Int, Result<Outcome, any Error>)], batch: Int)
                        do {
                            let writer = try writer.get()
                            guard let done = waiting ? try writer.write(body) : try writer.writeIfFree(body) else {
                                return  // busy: the job replays another session first
                            }
                            ran = done
                        } catch {
                            putOff = []
                            for (index, _) in turns { batch.finish(index, .failure(error)) }
                            return
                        }
                        putOff = []
                        for (index, outcome) in ran.outcomes {
                            if case .success = outcome {
                                held.append((index, outcome, ran.batch...ran.batch))
                            } else {
                                batch.finish(index, outcome)
                            }
                        }
                        try? writer.get().sessionsEnded(ran.outcomes.count)
                    }
                    // Before waiting for room, a job stores and delivers all it holds: the room
                    // may be its.
                    while let index = batch.nextIndex(beforeWaiting: {
                        runPutOff(waiting: true)
                        deliverCommitted(all: true)
                    }) {
                        // An outcome that wrote is held until its batch is committed.
                        func settle(_ outcome: Result<Outcome, any Error>) {
                            if let wroteIn = try? job.get().endSession() {
                                held.append((index, outcome, wroteIn))
                            } else {
                                batch.finish(index, outcome)
                            }
                        }
                        switch Result(catching: { try steps(job.get(), sessions[index]) }) {
                        case .success(.turn(let turn)):
                            putOff.append((index, turn))
                            runPutOff(waiting: putOff.count >= policy.turnsHeld(jobs: jobs))
                        case .success(.outcome(let outcome)): settle(.success(outcome))
                        case .failure(let error): settle(.failure(error))
                        }
                        deliverCommitted(all: false)
                    }
                    runPutOff(waiting: true)
                    deliverCommitted(all: true)
                }  // the job's connection closes here, on its own thread
                ended.signal()
            }
            thread.name = "auditctl.replay"
            thread.stackSize = 8 << 20  // as the main thread's: delegates nest inputs in callbacks
            thread.start()
        }
        for index in sessions.indices { deliver(index, batch.take(index)) }
        for _ in 0..<workers { ended.wait() }
        try? writer.get().close()
    }
}

/// What the workers of `replayAll` share: the next session to take, and the outcomes not yet
/// delivered.
private final class BatchState<Outcome: Sendable>: Sendable {
    private struct State {
        var next = 0
        var outcomes: [Int: Result<Outcome, any Error>] = [:]
        /// The outcome `take` sleeps until, if it sleeps.
        var awaited: Int?
    }

    private let count: Int
    private let state = Mutex(State())
    /// Places for sessions taken and not yet delivered.
    private let room: DispatchSemaphore
    /// Signalled when the outcome `take` sleeps until arrives: once per sleep, so that outcomes
    /// finished out of order do not wake the delivering thread, which would take a core from a job.
    private let done = DispatchSemaphore(value: 0)

    init(count: Int, window: Int) {
        self.count = count
        room = DispatchSemaphore(value: window)
    }

    /// The next session for a worker, once there is room for it; nil when none is left. When
    /// there is no room yet, `beforeWaiting` runs first.
    func nextIndex(beforeWaiting: () -> Void) -> Int? {
        if room.wait(timeout: .now()) == .timedOut {
            beforeWaiting()
            room.wait()
        }
        let index = state.withLock { state -> Int? in
            guard state.next < count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        if index == nil { room.signal() }  // the next worker finds none left too
        return index
    }

    func finish(_ index: Int, _ outcome: Result<Outcome, any Error>) {
        let awaited = state.withLock { state in
            state.outcomes[index] = outcome
            guard state.awaited == index else { return false }
            state.awaited = nil
            return true
        }
        if awaited { done.signal() }
    }

    /// Waits for session `index`'s outcome and frees its place.
    func take(_ index: Int) -> Result<Outcome, any Error> {
        let ready = state.withLock { state in
            let outcome = state.outcomes.removeValue(forKey: index)
            if outcome == nil { state.awaited = index }
            return outcome
        }
        if ready == nil { done.wait() }
        room.signal()
        return ready ?? state.withLock { $0.outcomes.removeValue(forKey: index)! }
    }
}
