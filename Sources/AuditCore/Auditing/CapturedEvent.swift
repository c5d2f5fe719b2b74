import Foundation

/// One event as the proxy captures it on the caller's thread: plain values, no encoding. The
/// writer thread turns it into a row.
struct CapturedEvent {
    static let implemented: UInt8 = 1
    static let canVeto: UInt8 = 2
    static let vetoed: UInt8 = 4

    var seq: Int64
    /// Nanoseconds since the session started (monotonic clock).
    var time: Int64
    var widget: Int32
    var descriptor: CallbackDescriptor
    var flags: UInt8
    var arguments: [AuditValue]
    /// nil for void callbacks and inputs (stored as SQL NULL).
    var result: AuditValue?
    var duration: Int64
    /// 0 when the event did not happen inside another audited event.
    var parent: Int64
}

/// A widget of the session, registered when the recorder first sees it.
struct WidgetRecord: Sendable {
    var id: Int32
    var path: String
    var kind: String
    var parent: Int32?
}

/// Nanoseconds on the monotonic clock.
@inline(__always)
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
