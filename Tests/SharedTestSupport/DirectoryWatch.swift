import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for something a writer does to the files of one directory — a batch committed to the WAL,
/// a database created — on the file system's own events (inotify), never by sleeping and looking
/// again.
///
/// Create the watch before starting what it waits for, or at least before the first look: events
/// are queued from then on, so a change made between a look and the wait still wakes the wait.
public final class DirectoryWatch {
    private let descriptor: Int32

    /// Watches `directory` for files created, written or moved in.
    public init(_ directory: String) throws {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit { close(descriptor) }

    /// Returns whether `condition` holds, asked at once and again after each change in the
    /// directory. Stops asking when `other` (a pipe's read end, say one written when a process
    /// exits) becomes readable, and returns the condition's last answer.
    ///
    /// `silence` only keeps a broken test from hanging: once no change has come for that long, the
    /// wait gives up and returns the condition's answer, which the caller's expectation then checks.
    public func wait(
        until condition: () throws -> Bool, orUntilReadable other: Int32? = nil, silence: Duration = .seconds(300)
    ) rethrows -> Bool {
        let milliseconds = Int32(silence.components.seconds * 1_000)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while try !condition() {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if let other { descriptors.append(pollfd(fd: other, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, descriptors.count == 1 || descriptors[1].revents == 0 else { return try condition() }
            // Take every queued event at once: one look answers for all of them.
            _ = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        }
        return true
    }
}
