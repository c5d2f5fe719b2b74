import AuditKit
import AuditModel
import AuditStorage
import CSQLite
import Foundation
import Synchronization

/// The writer the jobs of one `replayAll` share, and the checkpoints it asks for.
extension Replayer {
    /// The one connection the jobs of a `replayAll` store their candidates through, one job at a
    /// time, committing the sessions of every job a batch at a time: jobs never wait for each
    /// other's commits or re-read pages another writer changed, and a commit is paid once per
    /// batch, not per session.
    ///
    /// A batch is committed once it holds `BatchPolicy.sessionsPerBatch` finished sessions or is
    /// `BatchPolicy.batchAge` old (checked as each session ends), when a job is about to wait, and at
    /// the end. Each candidate is written in one turn, so in one batch; when a batch cannot be
    /// committed, each session that wrote in it fails.
    final class SharedWriter: @unchecked Sendable {
        // @unchecked: `store` and every var are used only under `lock`, one thread at a time, as
        // SQLite's connections opened without their own mutex allow (a recorder writing inline
        // holds the store, and uses it only when finished under `lock`).
        private let lock = NSLock()
        let store: AuditStore
        /// The number of the open batch, or of the next one when none is open.
        private var batch = 0
        private var isOpen = false
        /// Sessions finished in the open batch, and when it began: read without the lock, so that
        /// a job ending a session takes it only to commit (a count that races with a commit only
        /// moves the next one a session earlier or later).
        private let finished = Atomic<Int>(0)
        private let began = Atomic<Int64>(0)
        /// How many batches are settled (committed, or failed): those numbered below it. Read
        /// without the lock, so that a job asking whether what it holds is committed does not wait
        /// for the other jobs' turns; `anyFailed` says when `failed` must be looked at, under it.
        private let settled = Atomic<Int>(0)
        private let anyFailed = Atomic<Bool>(false)
        /// The batches whose commit failed, with the error.
        private var failed: [Int: any Error] = [:]
        /// Copies the WAL into the database while the jobs go on; nil when the policy has none.
        private let checkpointer: Checkpointer?
        /// When the checkpointer was last asked for a checkpoint.
        private var checkpointed = monotonicNanoseconds()

        let policy: BatchPolicy

        init(path: String, policy: BatchPolicy) throws(StoreError) {
            self.policy = policy
            let store = try AuditStore(path: path, access: .write)
            // With a checkpointer, its checkpoints rather than SQLite's automatic one every
            // thousand pages, run by the writer while the jobs wait for it.
            if policy.checkpointInterval != nil { try storeOperation { try store.prepareForRecording() } }
            self.store = store
            checkpointer = policy.checkpointInterval.map { _ in Checkpointer(path: path) }
        }

        private func locked<T>(_ body: () throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }

        /// Runs `body` in the open batch (opening one first), returning what it returned and the
        /// batch's number.
        func write<T>(_ body: (AuditStore) throws -> T) throws -> (T, batch: Int) {
            try locked { try inOpenBatch(body) }
        }

        /// `write(_:)` if no other job holds the writer; nil, having run nothing, if one does.
        func writeIfFree<T>(_ body: (AuditStore) throws -> T) throws -> (T, batch: Int)? {
            guard lock.try() else { return nil }
            defer { lock.unlock() }
            return try inOpenBatch(body)
        }

        private func inOpenBatch<T>(_ body: (AuditStore) throws -> T) throws -> (T, batch: Int) {
            if !isOpen {
                try storeOperation { try store.connection.beginBatch() }
                isOpen = true
                finished.store(0, ordering: .relaxed)
                began.store(monotonicNanoseconds(), ordering: .relaxed)
            }
            return (try body(store), batch)
        }

        /// Counts `sessions` finished sessions into the open batch and commits it when it is full
        /// or old enough, unless another job holds the writer: that one counts its own when its
        /// turn ends, and commits then.
        func sessionsEnded(_ sessions: Int = 1) {
            finished.add(sessions, ordering: .relaxed)
            guard isDue, lock.try() else { return }
            defer { lock.unlock() }
            if isDue { commitOpenBatch() }
        }

        private var isDue: Bool {
            finished.load(ordering: .relaxed) >= policy.sessionsPerBatch
                || monotonicNanoseconds() - began.load(ordering: .relaxed) >= policy.batchAge.nanoseconds
        }

        /// Commits the open batch, if any.
        func commit() { locked { commitOpenBatch() } }

        private func commitOpenBatch() {
            guard isOpen else { return }
            do {
                try storeOperation { try store.connection.commitBatch() }
            } catch {
                failed[batch] = error
                anyFailed.store(true, ordering: .releasing)
                store.forgetCallbackNames()  // names interned in the batch are gone with it
            }
            (isOpen, batch) = (false, batch + 1)
            settled.store(batch, ordering: .releasing)
            if let checkpointer, let interval = policy.checkpointInterval,
                monotonicNanoseconds() - checkpointed > interval.nanoseconds
            {
                checkpointer.checkpoint()
                checkpointed = monotonicNanoseconds()
            }
        }

        /// Whether what a session wrote in `batches` is committed: nil while one of them is open;
        /// the error of the first that failed to commit, if any.
        func committed(_ batches: ClosedRange<Int>) -> Result<Void, any Error>? {
            guard batches.upperBound < settled.load(ordering: .acquiring) else { return nil }
            guard anyFailed.load(ordering: .acquiring) else { return .success(()) }
            return locked {
                if let failure = batches.lazy.compactMap({ self.failed[$0] }).first { return .failure(failure) }
                return .success(())
            }
        }

        /// Commits the open batch, if any, and truncates the WAL: once every job is done.
        func close() {
            locked {
                commitOpenBatch()
                checkpointer?.stop()
                try? store.checkpoint(.truncate)  // an untruncated WAL loses nothing
            }
        }
    }

    /// Runs passive checkpoints of a database on a thread and connection of its own when asked,
    /// while its writer goes on writing (a passive checkpoint never takes the write lock): what a
    /// replay stores is copied from the WAL into the database file as it goes, not by its writer
    /// while the jobs wait, nor all at the end.
    final class Checkpointer: Sendable {
        private let asked = DispatchSemaphore(value: 0)
        private let stopped = DispatchSemaphore(value: 0)
        private let stopping = Atomic<Bool>(false)

        init(path: String) {
            let thread = Thread { [self] in
                do {
                    // One that cannot be opened checkpoints nothing: the writer's truncating
                    // checkpoint at the end copies everything then.
                    let connection = try? Connection(path: path, mode: .readWrite(create: false))
                    var last = false
                    while !last {
                        asked.wait()
                        // Read before the checkpoint begins: the last one begins after `stop()`
                        // is called, so it copies everything committed before.
                        last = stopping.load(ordering: .acquiring)
                        // One that fails or finds readers in the way loses nothing: the WAL keeps it.
                        if let handle = connection?.handle {
                            sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                        }
                    }
                }  // the connection closes here, on its own thread
                stopped.signal()
            }
            thread.name = "auditctl.checkpoint"
            thread.start()
        }

        /// Asks for a passive checkpoint, which runs once the one running, if any, is done.
        func checkpoint() { asked.signal() }

        /// Ends the thread after one more checkpoint, begun after this call (those asked for and
        /// not yet begun are that one).
        func stop() {
            stopping.store(true, ordering: .releasing)
            asked.signal()
            stopped.wait()
        }
    }
}
