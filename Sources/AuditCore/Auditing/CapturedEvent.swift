import Foundation

/// One event as the proxy captures it on the caller's thread: plain values, no encoding. The
/// writer thread turns it into a row.
@usableFromInline
struct CapturedEvent: Sendable {
    @usableFromInline static let implemented: UInt8 = 1
    /// The answer is a veto (`AnswerKind.veto`).
    @usableFromInline static let veto: UInt8 = 2
    /// The answer took effect: a veto vetoed, an override differs from its proposal.
    @usableFromInline static let tookEffect: UInt8 = 4
    /// The answer is an override (`AnswerKind.override`).
    @usableFromInline static let override: UInt8 = 8

    /// Whether `flags` say the answer vetoed (an override that overrode is no veto).
    static func isVeto(_ flags: UInt8) -> Bool { flags & (veto | tookEffect) == veto | tookEffect }

    var seq: Int64
    /// Nanoseconds since the session started (monotonic clock).
    var time: Int64
    var widget: Int32
    var descriptor: CallbackDescriptor
    var flags: UInt8
    var arguments: CapturedArguments
    /// nil for void callbacks and inputs (stored as SQL NULL).
    var result: AuditValue?
    var duration: Int64
    /// 0 when the event did not happen inside another audited event.
    var parent: Int64
}

/// A callback's arguments as captured: up to three held inline, so capturing allocates nothing.
@usableFromInline
enum CapturedArguments: Sendable {
    case none
    case one(AuditValue)
    case two(AuditValue, AuditValue)
    case three(AuditValue, AuditValue, AuditValue)
    case many([AuditValue])

    init(_ values: [AuditValue]) {
        switch values.count {
        case 0: self = .none
        case 1: self = .one(values[0])
        case 2: self = .two(values[0], values[1])
        case 3: self = .three(values[0], values[1], values[2])
        default: self = .many(values)
        }
    }

    var values: [AuditValue] {
        switch self {
        case .none: []
        case .one(let a): [a]
        case .two(let a, let b): [a, b]
        case .three(let a, let b, let c): [a, b, c]
        case .many(let values): values
        }
    }

    /// Writes the arguments as a JSON array, in label order.
    func appendJSON(to bytes: inout [UInt8]) {
        switch self {
        case .none: bytes.append("[]")
        case .one(let a):
            bytes.append(UInt8(ascii: "["))
            a.appendJSON(to: &bytes)
            bytes.append(UInt8(ascii: "]"))
        default: AuditValue.appendArray(values, to: &bytes)
        }
    }
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
