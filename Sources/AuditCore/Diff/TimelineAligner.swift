/// Aligns two event streams and classifies where they differ.
///
/// Events are first reduced to an identity — kind, widget, protocol, callback and arguments — and
/// the two identity sequences are aligned with the standard library's Myers difference
/// (`difference(from:)`, O((N+M)·D) for D differences). Aligned pairs are then compared on their
/// answer (veto, result, implemented); unaligned runs between two aligned pairs are paired by
/// callback and widget (arguments changed), and what is left is only in A or only in B. Times
/// and durations are never compared.
enum TimelineAligner {
    static func differences(_ a: [TimelineEvent], _ b: [TimelineEvent]) -> [EventDifference] {
        // Identities as small integers, so the O(N·D) comparisons are integer compares.
        var identities: [Identity: Int] = [:]
        func code(_ event: TimelineEvent) -> Int {
            let identity = Identity(event, withArguments: true)
            if let code = identities[identity] { return code }
            let code = identities.count
            identities[identity] = code
            return code
        }
        let codesA = a.map(code)
        let codesB = b.map(code)
        let edits = codesB.difference(from: codesA)
        var removed: [Int] = []
        var inserted: [Int] = []
        for change in edits {
            switch change {
            case .remove(let offset, _, _): removed.append(offset)
            case .insert(let offset, _, _): inserted.append(offset)
            }
        }
        removed.sort()
        inserted.sort()

        var result: [EventDifference] = []
        var pendingA: [Int] = []
        var pendingB: [Int] = []
        var i = 0
        var j = 0
        var nextRemoved = 0
        var nextInserted = 0
        while i < a.count || j < b.count {
            if nextRemoved < removed.count && removed[nextRemoved] == i {
                pendingA.append(i)
                i += 1
                nextRemoved += 1
            } else if nextInserted < inserted.count && inserted[nextInserted] == j {
                pendingB.append(j)
                j += 1
                nextInserted += 1
            } else {
                pair(pendingA, pendingB, a, b, into: &result)
                pendingA.removeAll(keepingCapacity: true)
                pendingB.removeAll(keepingCapacity: true)
                if let kind = answerDifference(a[i], b[j]) {
                    result.append(EventDifference(kind: kind, a: a[i], b: b[j]))
                }
                i += 1
                j += 1
            }
        }
        pair(pendingA, pendingB, a, b, into: &result)
        return result
    }

    /// Classifies two aligned events (same identity) by their answers.
    private static func answerDifference(_ a: TimelineEvent, _ b: TimelineEvent) -> EventDifference.Kind? {
        if a.vetoed != b.vetoed { return .vetoChanged }
        if a.result != b.result { return .resultChanged }
        if a.implemented != b.implemented { return .implementedChanged }
        return nil
    }

    /// Pairs the unaligned events between two aligned ones: the same callback on the same widget
    /// with other arguments is one change; the rest are only on one side.
    private static func pair(
        _ pendingA: [Int], _ pendingB: [Int], _ a: [TimelineEvent], _ b: [TimelineEvent],
        into result: inout [EventDifference]
    ) {
        // Candidates on B's side by identity, each list in order, consumed from the front.
        var candidates: [Identity: (indexes: [Int], next: Int)] = [:]
        for index in pendingB {
            candidates[Identity(b[index], withArguments: false), default: ([], 0)].indexes.append(index)
        }
        var paired = Set<Int>()
        for index in pendingA {
            let identity = Identity(a[index], withArguments: false)
            if let entry = candidates[identity], entry.next < entry.indexes.count {
                let other = entry.indexes[entry.next]
                candidates[identity]!.next += 1
                paired.insert(other)
                result.append(EventDifference(kind: .argumentsChanged, a: a[index], b: b[other]))
            } else {
                result.append(EventDifference(kind: .onlyInA, a: a[index], b: nil))
            }
        }
        for index in pendingB where !paired.contains(index) {
            result.append(EventDifference(kind: .onlyInB, a: nil, b: b[index]))
        }
    }

    private struct Identity: Hashable {
        let kind: EventKind
        let widget: String?
        let protocolName: String?
        let callback: String
        let arguments: String?

        init(_ event: TimelineEvent, withArguments: Bool) {
            kind = event.kind
            widget = event.widget
            protocolName = event.protocolName
            callback = event.callback
            arguments = withArguments ? event.arguments : nil
        }
    }
}

extension AuditStore {
    /// Compares two stored sessions (any two: they need not share a scenario or a delegate).
    ///
    /// When several minimal alignments exist, Myers' algorithm picks one depending on which side
    /// is A; the older session is therefore always aligned first, so `diff B A` is exactly
    /// `diff A B` with the sides swapped.
    public func diff(_ a: Int64, _ b: Int64) throws(StoreError) -> SessionDiff {
        let sessionA = try session(a)
        let sessionB = try session(b)
        let eventsA = try timeline(of: a)
        let eventsB = try timeline(of: b)
        let differences =
            a <= b
            ? TimelineAligner.differences(eventsA, eventsB)
            : TimelineAligner.differences(eventsB, eventsA).map(\.swapped)
        return SessionDiff(
            a: sessionA, b: sessionB, differences: differences, eventsA: eventsA.count, eventsB: eventsB.count)
    }
}
