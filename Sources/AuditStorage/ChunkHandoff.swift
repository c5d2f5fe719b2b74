import AuditModel
import Dispatch
import Synchronization

/// Chunks handed from a thread that makes them to one that uses them, in order, at most
/// `waiting` waiting between the two: how a replay reads a session's events (`EventFeed`) and how
/// import scans a file (`ImportChunk.scanning`) a step ahead of the thread that uses them.
///
/// The making thread calls `put(_:)` for each chunk and `finish(_:)` once; the using thread
/// calls `next()` until it gives nil, and `stop()` before it lets go of what the maker uses.
/// The user may hand a chunk it is done with back (`giveBack(_:)`), for the maker to fill again
/// (`spare()`) instead of allocating a new one.
package final class ChunkHandoff<Chunk: Sendable, Failure: Error>: Sendable {
    private struct State {
        var chunks: [Chunk] = []
        var spares: [Chunk] = []
        var end: Result<Void, Failure>?
        var stopped = false
        var finished = false
    }

    private let state = Mutex(State())
    /// Signalled for each chunk put and at the end; for each chunk taken; once the maker is done.
    private let ready = DispatchSemaphore(value: 0)
    private let room = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    private let waiting: Int

    package init(waiting: Int) {
        self.waiting = waiting
        // Made at 0 and raised: libdispatch refuses to free a semaphore left below the value it
        // was made with.
        for _ in 0..<waiting { room.signal() }
    }

    /// Hands over a chunk, waiting for room; false once the user has stopped (the maker stops).
    package func put(_ chunk: Chunk) -> Bool {
        room.wait()
        let taken = state.withLock { state in
            guard !state.stopped else { return false }
            state.chunks.append(chunk)
            return true
        }
        if taken { ready.signal() }
        return taken
    }

    /// Keeps a chunk the user is done with for the maker to fill again; at most `waiting` wait.
    /// The chunk is consumed, so that the maker, filling it again, holds its memory alone.
    func giveBack(_ chunk: consuming Chunk) {
        var given: Chunk? = consume chunk
        state.withLock { state in
            if state.spares.count < waiting, let chunk = given.take() { state.spares.append(chunk) }
        }
    }

    /// A chunk the user gave back, if one waits.
    func spare() -> Chunk? {
        state.withLock { $0.spares.popLast() }
    }

    /// Says the maker is done, with what it ended on; it must no longer touch what the user owns.
    package func finish(_ end: Result<Void, Failure>) {
        state.withLock { $0.end = end }
        ready.signal()
        done.signal()
    }

    /// The next chunk, waiting for it; nil after the last (and on every call after). Throws what
    /// the maker ended on.
    package func next() throws(Failure) -> Chunk? {
        let finished: Bool = state.withLock { $0.finished }
        if finished { return nil }
        ready.wait()
        let taken: (chunk: Chunk?, end: Result<Void, Failure>?) = state.withLock { state in
            if state.chunks.isEmpty {
                state.finished = true
                return (nil, state.end)
            }
            return (state.chunks.removeFirst(), nil)
        }
        let (chunk, end) = taken
        if let chunk {
            room.signal()
            return chunk
        }
        try end?.get()
        return nil
    }

    /// Stops the maker at its next chunk, and waits until it is done; a second call returns at once.
    package func stop() {
        state.withLock { $0.stopped = true }
        room.signal()
        done.wait()
        done.signal()
    }
}
