import AuditModel

/// An event's answer as the `events` table stores it: what the differ compares, and what a
/// candidate's answer is compared with during an isolated replay.
package struct StoredAnswer: Sendable, Equatable {
    package var result: StoredResult
    /// nil unless the answer is a veto; then whether it vetoed.
    package var vetoed: Bool?
    /// nil for inputs.
    package var implemented: Bool?
    /// nil unless the answer is an override; then whether it differs from the proposal.
    package var overridden: Bool?

    package init(result: StoredResult, vetoed: Bool?, implemented: Bool?, overridden: Bool? = nil) {
        self.result = result
        self.vetoed = vetoed
        self.implemented = implemented
        self.overridden = overridden
    }

    /// What the recorder stores for an event of `kind` that answered `result` with `flags`
    /// (`CapturedEvent`'s bits).
    package init(kind: EventKind, result: AuditValue?, flags: UInt8) {
        self.result = StoredResult(result)
        let tookEffect = flags & CapturedEvent.tookEffect != 0
        vetoed = flags & CapturedEvent.veto == 0 ? nil : tookEffect
        implemented = kind == .callback ? flags & CapturedEvent.implemented != 0 : nil
        overridden = flags & CapturedEvent.override == 0 ? nil : tookEffect
    }

    /// Whether the answer vetoed.
    package var isVeto: Bool { vetoed == true }
}

/// A result column: NULL for a void callback, the integer 0 or 1 for a boolean answer, JSON text
/// otherwise.
package enum StoredResult: Sendable, Equatable {
    case none
    case flag(Bool)
    case json(String)

    package init(_ value: AuditValue?) {
        switch value {
        case nil: self = .none
        case .bool(let answer)?: self = .flag(answer)
        case let value?: self = .json(value.json)
        }
    }

    var sqlValue: SQLValue {
        switch self {
        case .none: .null
        case .flag(let answer): .integer(answer ? 1 : 0)
        case .json(let text): .text(text)
        }
    }
}
