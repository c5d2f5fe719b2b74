import Foundation

/// One event as the proxy captures it on the caller's thread: plain values, no encoding. The
/// writer thread turns it into a row.
@usableFromInline
package struct CapturedEvent: Sendable {
    @usableFromInline package var seq: Int64
    /// Nanoseconds since the session started (monotonic clock).
    @usableFromInline package var time: Int64
    @usableFromInline package var widget: Int32
    @usableFromInline package var descriptor: CallbackDescriptor
    @usableFromInline package var answer: AnswerOutcome
    @usableFromInline package var arguments: CapturedArguments
    /// nil for void callbacks and inputs (stored as SQL NULL). For an ask that carries its
    /// answer (`answeredInCall`), the answer's result.
    @usableFromInline package var result: AuditValue?
    @usableFromInline package var duration: Int64
    /// 0 when the event did not happen inside another audited event.
    @usableFromInline package var parent: Int64
    /// nil unless the callback answers later; then which event of its ask this is.
    @usableFromInline package var later: LaterStep?
    /// For an event after an ask (`later` other than `asked`): the ask's `seq`; 0 otherwise.
    @usableFromInline package var answers: Int64
    /// For an ask answered during its call, on its thread: the answer's event (its result in
    /// `result`), carried by the ask's until the writer makes it one of its own
    /// (`appendSplittingAnswers`).
    @usableFromInline package var answeredInCall: AnswerInCall?

    @inlinable
    package init(
        seq: Int64, time: Int64, widget: Int32, descriptor: CallbackDescriptor, answer: AnswerOutcome,
        arguments: CapturedArguments, result: AuditValue?, duration: Int64, parent: Int64, later: LaterStep? = nil,
        answers: Int64 = 0
    ) {
        self.seq = seq
        self.time = time
        self.widget = widget
        self.descriptor = descriptor
        self.answer = answer
        self.arguments = arguments
        self.result = result
        self.duration = duration
        self.parent = parent
        self.later = later
        self.answers = answers
        answeredInCall = nil
    }
}

/// An answer given during the call that asked, on its thread (most are), as its event records
/// it, but for its result. The ask's event carries both (an ask's own result is always nil), so
/// that the asking thread queues the two with the work of one; the writer's thread makes them the
/// event that follows the ask's (`later` `answered`). Plain values only, so that carrying it
/// costs an event without one nothing more than its bytes.
@usableFromInline
package struct AnswerInCall: Sendable {
    @usableFromInline package var seq: Int64
    /// Nanoseconds since the session started, as `CapturedEvent.time`.
    @usableFromInline package var time: Int64
    @usableFromInline package var duration: Int64
    @usableFromInline package var parent: Int64
    @usableFromInline package var answer: AnswerOutcome

    @inlinable
    package init(seq: Int64, time: Int64, duration: Int64, parent: Int64, answer: AnswerOutcome) {
        self.seq = seq
        self.time = time
        self.duration = duration
        self.parent = parent
        self.answer = answer
    }
}

extension Array where Element == CapturedEvent {
    /// Appends `events`, each answer an ask's event carries (`answeredInCall`) as an event of its
    /// own right after the ask's: the events as the recorder numbered them.
    package mutating func appendSplittingAnswers(_ events: [CapturedEvent]) {
        // By index, as iterating would copy each event.
        guard events.indices.contains(where: { events[$0].answeredInCall != nil }) else {
            append(contentsOf: events)
            return
        }
        for index in events.indices {
            append(events[index])
            guard let answered = events[index].answeredInCall else { continue }
            self[endIndex - 1].answeredInCall = nil
            self[endIndex - 1].result = nil
            append(
                CapturedEvent(
                    seq: answered.seq, time: answered.time, widget: events[index].widget,
                    descriptor: events[index].descriptor, answer: answered.answer, arguments: .none,
                    result: events[index].result, duration: answered.duration, parent: answered.parent,
                    later: .answered, answers: events[index].seq))
        }
    }
}

/// A callback's arguments as captured: up to three held inline, so capturing allocates nothing.
@usableFromInline
package enum CapturedArguments: Sendable {
    case none
    case one(AuditValue)
    case two(AuditValue, AuditValue)
    case three(AuditValue, AuditValue, AuditValue)
    case many([AuditValue])

    package init(_ values: [AuditValue]) {
        switch values.count {
        case 0: self = .none
        case 1: self = .one(values[0])
        case 2: self = .two(values[0], values[1])
        case 3: self = .three(values[0], values[1], values[2])
        default: self = .many(values)
        }
    }

    package var values: [AuditValue] {
        switch self {
        case .none: []
        case .one(let a): [a]
        case .two(let a, let b): [a, b]
        case .three(let a, let b, let c): [a, b, c]
        case .many(let values): values
        }
    }

    /// Writes the arguments as a JSON array, in label order.
    package func appendJSON(to bytes: inout [UInt8]) {
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
package struct WidgetRecord: Sendable {
    package var id: Int32
    package var path: String
    package var kind: String
    package var parent: Int32?

    package init(id: Int32, path: String, kind: String, parent: Int32?) {
        self.id = id
        self.path = path
        self.kind = kind
        self.parent = parent
    }
}

/// Nanoseconds on the monotonic clock.
@inline(__always)
package func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
