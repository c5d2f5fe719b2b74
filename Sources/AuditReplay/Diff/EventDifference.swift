import AuditKit
import AuditModel
import AuditStorage

/// One way two sessions differ, at one event.
public struct EventDifference: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        /// The same callback with the same arguments gave another veto.
        case vetoChanged = "veto_changed"
        /// The same callback with the same arguments overrode its proposal where the other did not
        /// (or the other way round).
        case overrideChanged = "override_changed"
        /// The same callback with the same arguments gave another answer (or, for an input,
        /// left the widget in another state).
        case resultChanged = "result_changed"
        /// The same answer, but one delegate implements the callback and the other falls back to
        /// the default (or the other way round).
        case implementedChanged = "implemented_changed"
        /// The same callback at the same place, called with other arguments.
        case argumentsChanged = "arguments_changed"
        /// A delegate's mistake with a completion handler (never called, called twice, called after
        /// the widget gave up) that one side made and the other did not.
        case mistake = "mistake"
        case onlyInA = "only_in_a"
        case onlyInB = "only_in_b"

        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }

        /// How two answers to the same call differ, given their outcomes and whether their results
        /// do: a veto or an override first, then the result, then whether the callback was
        /// implemented; nil when none does.
        static func answer(_ a: AnswerOutcome, _ b: AnswerOutcome, resultDiffers: Bool) -> Kind? {
            if a.vetoed != b.vetoed { return .vetoChanged }
            if a.overridden != b.overridden { return .overrideChanged }
            if resultDiffers { return .resultChanged }
            if a.implemented != b.implemented { return .implementedChanged }
            return nil
        }

        /// The same difference seen from the other side (`diff B A`).
        public var swapped: Kind {
            switch self {
            case .onlyInA: .onlyInB
            case .onlyInB: .onlyInA
            default: self
            }
        }
    }

    public var kind: Kind
    /// The event in session A; nil when it is only in B.
    public var a: TimelineEvent?
    /// The event in session B; nil when it is only in A.
    public var b: TimelineEvent?

    /// Whichever side has the event: for naming its widget and callback.
    public var event: TimelineEvent { (a ?? b)! }

    public var swapped: EventDifference { EventDifference(kind: kind.swapped, a: b, b: a) }
}

/// How two sessions' timelines differ, ignoring times and durations.
public struct SessionDiff: Sendable {
    public var a: SessionSummary
    public var b: SessionSummary
    public var differences: [EventDifference]
    public var eventsA: Int
    public var eventsB: Int
    /// Set when the sessions' inputs differ too much to be aligned (more than a thousand inputs
    /// apart): each input's events were compared with those of the input at the same place.
    public var pairedInOrder = false

    public var identical: Bool { differences.isEmpty }
    public var sameScenario: Bool { a.scenario == b.scenario }

    /// Differences grouped by widget and callback, in order of first appearance, with counts per
    /// kind.
    public var groups: [DifferenceGroup] {
        var groups: [DifferenceGroup] = []
        var index: [String: Int] = [:]
        for difference in differences {
            let event = difference.event
            let key = "\(event.widget ?? "")\u{0}\(event.protocolName ?? "")\u{0}\(event.callback)"
            if index[key] == nil {
                index[key] = groups.count
                groups.append(
                    DifferenceGroup(widget: event.widget, protocolName: event.protocolName, callback: event.callback))
            }
            groups[index[key]!].counts[difference.kind, default: 0] += 1
        }
        return groups
    }

    /// Differences per kind, every kind present (zero when none).
    public var counts: [EventDifference.Kind: Int] {
        var counts = Dictionary(uniqueKeysWithValues: EventDifference.Kind.allCases.map { ($0, 0) })
        for difference in differences { counts[difference.kind, default: 0] += 1 }
        return counts
    }
}

/// The differences at one widget's callback.
public struct DifferenceGroup: Sendable, Equatable {
    public var widget: String?
    public var protocolName: String?
    public var callback: String
    public var counts: [EventDifference.Kind: Int] = [:]

    public var total: Int { counts.values.reduce(0, +) }
}

extension StoredAnswer {
    /// How this answer differs from `other`, as the differ classifies it; nil when they are the same.
    func difference(from other: StoredAnswer) -> EventDifference.Kind? {
        .answer(outcome, other.outcome, resultDiffers: result != other.result)
    }
}
