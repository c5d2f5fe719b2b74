import AuditModel
import AuditStorage

/// What a finished recording wrote.
public struct RecordingSummary: Sendable, Equatable {
    /// The session stored; 0 when none was (a recorder that attached to nothing: `lastError` says so).
    public var session: Int64
    public var events: Int
    public var inputs: Int
    public var callbacks: Int
    public var vetoes: Int
    /// Write attempts that failed: batches, each tried again with the next one, and marking the
    /// session finished. The session's `failure_count` stores it.
    public var failedWrites: Int
    /// Events not stored: those of writes that failed for good, and those whose predecessors
    /// never completed (a callback still running at `finish()`), so the stored prefix has no hole.
    public var lostEvents: Int
    /// The failed write that lost events, else the last one that failed: the operation and
    /// SQLite's message (`writing events 4097–8192 failed: database or disk is full`).
    public var lastError: String?
    /// How often a caller waited because the queue was full.
    public var timesBlocked: Int
    /// `complete`, or `interrupted` when events were lost or the final status could not be written.
    public var status: SessionStatus
    /// Whether `status` is written in the database. When it is not (the disk full at the end), the
    /// session's row still says `recording`, which readers show as `interrupted` once the process
    /// is gone and the next process that opens the database to write stores.
    public var statusWritten = true
    /// How long the writer waited to write, in seconds: for its turn among the database's writers
    /// (other processes recording into it) and for SQLite's write lock.
    public var secondsWaitedForDatabase: Double = 0
    /// How long finishing took after the last event, in seconds: committing what was left, trying
    /// failed writes again, and marking the session finished.
    public var secondsFinishing: Double = 0
    /// Audited calls made after `finish()`: not stored.
    public var eventsAfterFinish = 0
    /// Wall time from the recorder's start (opening the database) to the last commit.
    public var seconds: Double = 0
    /// Inputs performed in code on an audited widget that their check refused, in order:
    /// `"drag on screen/volume refused: value 1.2 is outside 0...1"`. A refused input does nothing
    /// and is not recorded; `AuditTesting` fails a check whose recording refused one.
    public var refusedInputs: [String] = []
}
