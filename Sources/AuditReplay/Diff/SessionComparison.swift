import AuditKit
import AuditModel
import AuditStorage

/// Two stored sessions aligned, before the events that differ are read: what a `SessionDiff`
/// holds but its `differences`, which `SessionDiffer.forEachDifference(in:chunk:_:)` reads a few at
/// a time. Its memory grows with the number of differences by three words each, not by their
/// events.
public struct SessionComparison: Sendable {
    public let a: SessionSummary
    public let b: SessionSummary
    public let eventsA: Int
    public let eventsB: Int
    /// Set when the sessions' inputs differ too much to be aligned (see `SessionDiff`).
    public let pairedInOrder: Bool
    /// The differences, by the `seq` of the event on each side, in the order `diff` lists them.
    let found: [TimelineAligner.Found]

    public var identical: Bool { found.isEmpty }
    public var sameScenario: Bool { a.scenario == b.scenario }
    public var differenceCount: Int { found.count }

    /// Differences per kind, every kind present (zero when none), as `SessionDiff.counts`.
    public var counts: [EventDifference.Kind: Int] {
        var counts = Dictionary(uniqueKeysWithValues: EventDifference.Kind.allCases.map { ($0, 0) })
        for difference in found { counts[difference.kind, default: 0] += 1 }
        return counts
    }
}
