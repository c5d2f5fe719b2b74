import Foundation
import Synchronization

extension Replayer {
    /// One worker of `replayAll`: a connection that reads the recorded sessions and stores the
    /// candidates, kept open from one session to the next, on the worker's thread only.
    ///
    /// Replaying through a job costs no database opening, writer thread, checkpoint or lock file
    /// per session: the candidate's events are written on the job's thread once it has run
    /// (`Recorder.init(recordingInline:…)`), and the file is checked once, before the first.
    public final class Job {
        let replayer: Replayer
        let store: AuditStore
        /// The scenarios and arguments of the sessions replayed so far, parsed once.
        let parsed = ParsedOnce()

        /// When this job last checkpointed the WAL.
        private var checkpointed = monotonicNanoseconds()
        /// Whether the job commits its sessions a batch at a time (it is the only job: a batch
        /// holds the database's write lock, which another job would wait for while this one runs).
        let batching: Bool
        /// Sessions replayed in the open batch, and when it began.
        private var batched = 0
        private var batchBegan: Int64 = 0
        /// The most sessions, and the longest time, a batch is kept open.
        static let batchSessions = 32
        static let batchNanoseconds: Int64 = 100_000_000

        init(_ replayer: Replayer, batching: Bool = false) throws(StoreError) {
            self.replayer = replayer
            self.batching = batching
            store = try AuditStore(path: replayer.databasePath, access: .write)
            // Checkpoints about once a second, as a recorder's writer does, rather than SQLite's
            // automatic one every thousand pages, each waiting for the disk.
            try storeOperation { try store.prepareForRecording() }
        }

        /// Runs a passive checkpoint when the last is a second old (one that fails loses nothing),
        /// outside a batch.
        private func checkpointNow() {
            guard !store.connection.inBatch, monotonicNanoseconds() - checkpointed > 1_000_000_000 else { return }
            try? store.checkpoint(.passive)
            checkpointed = monotonicNanoseconds()
        }

        /// Counts a session into the open batch, opening one first when the job batches and none
        /// is open.
        private func beginSession() throws {
            guard batching else { return }
            if !store.connection.inBatch {
                try storeOperation { try store.connection.beginBatch() }
                batched = 0
                batchBegan = monotonicNanoseconds()
            }
            batched += 1
        }

        /// Whether the outcomes held should be delivered now: no batch is open, or the open one
        /// holds enough sessions, or is old enough, to be committed.
        var deliversNow: Bool {
            !store.connection.inBatch || batched >= Self.batchSessions
                || monotonicNanoseconds() - batchBegan >= Self.batchNanoseconds
        }

        /// Commits the open batch, if any. When that fails, the sessions stored in it are gone.
        func commitBatch() throws(StoreError) {
            guard store.connection.inBatch else { return }
            do {
                try storeOperation { try store.connection.commitBatch() }
            } catch {
                store.forgetCallbackNames()  // names interned in the batch are gone with it
                throw error
            }
            checkpointNow()
        }

        /// `Replayer.replay(session:delegate:mode:)` through this job's connection.
        public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode) throws -> ReplayReport {
            defer { checkpointNow() }
            try beginSession()
            let entry = try replayer.registry.entry(named: delegateName)
            return try replayer.replay(
                session: id, candidate: entry.make, named: delegateName, mode: mode, through: Stores(job: self))
        }

        /// `Replayer.replay(session:delegate:mode:noiseRuns:)` through this job's connection.
        public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode, noiseRuns: Int)
            throws -> NoiseFilteredReplay
        {
            defer { checkpointNow() }
            try beginSession()
            return try replayer.replay(
                session: id, delegate: delegateName, mode: mode, noiseRuns: noiseRuns, through: Stores(job: self))
        }

        deinit {
            try? commitBatch()
            try? store.checkpoint(.truncate)  // an untruncated WAL loses nothing
        }
    }

    /// Runs `work` for each of `sessions` on `jobs` threads, each with a `Job` of its own, and
    /// hands the results to `deliver` on the calling thread, in the order of `sessions`, as soon as
    /// each and those before it are done. Returns once every job has closed its connection.
    ///
    /// At most `2 × jobs` sessions are running or waiting to be delivered at any time (`2 +
    /// Job.batchSessions` for one job, which commits its sessions a batch at a time and delivers
    /// their outcomes once they are committed), so memory depends on the jobs, not on how many
    /// sessions there are. A job whose database cannot be opened fails each session it takes with
    /// that error; the others go on. A batch whose commit fails fails each of its sessions.
    public func replayAll<Outcome: Sendable>(
        _ sessions: [Int64], jobs: Int, work: @escaping @Sendable (Job, Int64) throws -> Outcome,
        deliver: (_ index: Int, _ outcome: Result<Outcome, any Error>) -> Void
    ) {
        precondition(jobs >= 1, "jobs must be at least 1")
        let workers = min(jobs, sessions.count)
        let batching = workers == 1
        let batch = BatchState<Outcome>(
            count: sessions.count, window: 2 * jobs + (batching ? Job.batchSessions : 0))
        let ended = DispatchSemaphore(value: 0)
        for _ in 0..<workers {
            let thread = Thread { [self] in
                do {
                    let job = Result { () throws(StoreError) in try Job(self, batching: batching) }
                    var held: [(index: Int, outcome: Result<Outcome, any Error>)] = []
                    // Outcomes are delivered once what they stored is committed.
                    func deliverHeld() {
                        var uncommitted: (any Error)?
                        do { try job.get().commitBatch() } catch { uncommitted = error }
                        for (index, outcome) in held {
                            if case .success = outcome, let uncommitted {
                                batch.finish(index, .failure(uncommitted))
                            } else {
                                batch.finish(index, outcome)
                            }
                        }
                        held.removeAll()
                    }
                    while let index = batch.nextIndex() {
                        held.append((index, Result { try work(job.get(), sessions[index]) }))
                        if (try? job.get())?.deliversNow ?? true { deliverHeld() }
                    }
                    deliverHeld()
                }  // the job's connection closes here, on its own thread
                ended.signal()
            }
            thread.name = "auditctl.replay"
            thread.stackSize = 8 << 20  // as the main thread's: delegates nest inputs in callbacks
            thread.start()
        }
        for index in sessions.indices { deliver(index, batch.take(index)) }
        for _ in 0..<workers { ended.wait() }
    }
}

/// What the workers of `replayAll` share: the next session to take, and the outcomes not yet
/// delivered.
private final class BatchState<Outcome: Sendable>: Sendable {
    private struct State {
        var next = 0
        var outcomes: [Int: Result<Outcome, any Error>] = [:]
    }

    private let count: Int
    private let state = Mutex(State())
    /// Places for sessions taken and not yet delivered.
    private let room: DispatchSemaphore
    /// Signalled once per outcome.
    private let done = DispatchSemaphore(value: 0)

    init(count: Int, window: Int) {
        self.count = count
        room = DispatchSemaphore(value: window)
    }

    /// The next session for a worker, once there is room for it; nil when none is left.
    func nextIndex() -> Int? {
        room.wait()
        let index = state.withLock { state -> Int? in
            guard state.next < count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        if index == nil { room.signal() }  // the next worker finds none left too
        return index
    }

    func finish(_ index: Int, _ outcome: Result<Outcome, any Error>) {
        state.withLock { $0.outcomes[index] = outcome }
        done.signal()
    }

    /// Waits for session `index`'s outcome and frees its place.
    func take(_ index: Int) -> Result<Outcome, any Error> {
        while true {
            if let outcome = state.withLock({ $0.outcomes.removeValue(forKey: index) }) {
                room.signal()
                return outcome
            }
            done.wait()
        }
    }
}
