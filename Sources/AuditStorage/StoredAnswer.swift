import AuditModel

/// An event's answer as the `events` table stores it: what the differ compares, and what a
/// candidate's answer is compared with during an isolated replay.
package struct StoredAnswer: Sendable, Equatable {
    package var result: StoredResult
    package var outcome: AnswerOutcome

    package init(result: StoredResult, outcome: AnswerOutcome) {
        self.result = result
        self.outcome = outcome
    }

    /// What the recorder stores for an event that answered `result` with `outcome`.
    package init(result: AuditValue?, outcome: AnswerOutcome) {
        self.init(result: StoredResult(result), outcome: outcome)
    }
}

extension AnswerOutcome {
    /// The outcome stored in a row's `implemented`, `vetoed` and `overridden` columns, at these
    /// indexes.
    package init(_ row: Statement, implemented: Int, vetoed: Int, overridden: Int) {
        let flag = { (column: Int) in row.isNull(column) ? nil : row.int64(column) != 0 }
        self.init(implemented: flag(implemented), vetoed: flag(vetoed), overridden: flag(overridden))
    }

    /// The three columns' values, in that order, for an `INSERT`.
    package var columns: (implemented: SQLValue, vetoed: SQLValue, overridden: SQLValue) {
        let value = { (flag: Bool?) in flag.map { SQLValue.integer($0 ? 1 : 0) } ?? .null }
        return (value(implemented), value(vetoed), value(overridden))
    }
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

extension Statement {
    /// The `later` column at `column` of the current row: nil when NULL (or a name no build knows).
    package func laterStep(_ column: Int) -> LaterStep? {
        isNull(column) ? nil : string(column).flatMap(LaterStep.init(name:))
    }
}
