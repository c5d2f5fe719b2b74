import AuditModel
import AuditStorage
import Foundation

/// Per-thread audit state: which audited calls are running on this thread (for `parent_seq`) and
/// whether the last delegate call fell through to a protocol's default implementation.
///
/// Delegates are called on the thread that drives the widget, as in UIKit; keeping this state per
/// thread lets several threads drive widgets under one recorder without sharing a stack.
@usableFromInline
package final class ThreadContext {
    // Not checked for exclusive access at run time (`@exclusivity(unchecked)`): a context is
    // only ever reached through `current`, on its own thread, and no access to a property
    // overlaps another of the same (each is a read, an assignment or one append or removal).
    // The checks cost more than the audited call's own work here.

    /// Audited calls in progress on this thread, innermost last.
    @exclusivity(unchecked) var frames: [(owner: ObjectIdentifier, seq: Int64)] = []
    @exclusivity(unchecked) @usableFromInline package var defaultUsed = false
    /// Steps of asks this thread is capturing now (`Recorder.captureStep`), which a `finish()`
    /// called from inside one must not wait for.
    @exclusivity(unchecked) var stepsInProgress = 0

    init() { frames.reserveCapacity(16) }

    /// The innermost call in progress on this thread that belongs to `owner`.
    func parent(of owner: ObjectIdentifier) -> Int64? {
        frames.last(where: { $0.owner == owner })?.seq
    }

    @usableFromInline package static var current: ThreadContext {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ThreadContext()
        pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
        return context
    }

    /// Created once; the destructor releases a thread's context when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
        return key
    }()
}
