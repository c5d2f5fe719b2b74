import AuditKit
import AuditModel
import AuditStorage

/// Compares stored sessions (any two: they need not share a scenario or a delegate), reading them
/// from a store: what `auditctl diff` prints, and what a replay's verdict is made of.
public struct SessionDiffer {
    /// The store both sessions are in.
    public let store: AuditStore

    /// A differ of the sessions in `store`.
    public init(_ store: AuditStore) {
        self.store = store
    }

    /// Input edits beyond which `diff` compares two sessions in order instead of aligning them.
    public static var maximumBlockEdits: Int { TimelineAligner.maximumBlockEdits }

    /// Compares two stored sessions (any two: they need not share a scenario or a delegate).
    ///
    /// Reads fingerprints, not events, and reads the events themselves only where they differ, so
    /// two sessions of a million events take seconds and tens of megabytes. When several minimal
    /// alignments exist, Myers' algorithm picks one depending on which side is A; the older
    /// session is therefore always aligned first, so `diff B A` is exactly `diff A B` with the
    /// sides swapped.
    ///
    /// - Complexity: O(*n* + *m* + *k*·*E* + Σ *s*·*d*) time and O(*n* + *m*) memory for sessions of *n* and
    ///   *m* events: their fingerprints read once; the *k* inputs aligned with at most *E* input edits
    ///   (`maximumBlockEdits`, beyond which the inputs are paired in order); inside each pair of aligned
    ///   inputs, *s* events with *d* differences aligned by Myers; then one indexed read per difference.
    public func diff(_ a: Int64, _ b: Int64) throws(StoreError) -> SessionDiff {
        try diff(a, b, upTo: nil)
    }

    /// `diff(a, b)` with A's events after `last` left out (the cut tail of an interrupted session).
    /// `aligned`: the sessions' fingerprints aligned already, when the caller has them (a replay
    /// job reads the recorded session's with its events and makes the candidate's as it writes
    /// them, and aligns them outside its turn at the shared writer).
    package func diff(_ a: Int64, _ b: Int64, upTo last: Int64?, aligned: Aligned? = nil) throws(StoreError)
        -> SessionDiff
    {
        let comparison = try compare(a, b, upTo: last, aligned: aligned)
        var diff = try diff(
            comparison.a, comparison.b, found: comparison.found, eventsA: comparison.eventsA,
            eventsB: comparison.eventsB)
        diff.pairedInOrder = comparison.pairedInOrder
        return diff
    }

    /// Whether two runs captured in memory, their fingerprints with A's first, differ as `diff`
    /// would find once both were stored: explore checks every run this way and stores only one
    /// that differs.
    ///
    /// - Complexity: as aligning two sessions of *n* and *m* events in `diff(_:_:)`, with nothing read.
    package static func differ(_ a: [EventFingerprint], _ b: [EventFingerprint]) -> Bool {
        !TimelineAligner.differences(a, b).found.isEmpty
    }

    /// Two sessions' fingerprints aligned: what `diff` finds before it reads any event.
    package struct Aligned {
        let alignment: TimelineAligner.Alignment
        let eventsA: Int
        let eventsB: Int

        /// Aligns session `a`'s fingerprints, those after `last` left out, with session `b`'s. When
        /// several minimal alignments exist, Myers' algorithm picks one depending on which side is
        /// A, so the older session is always aligned first. `b` is `.max` for a candidate not
        /// stored yet: it will be newer than any stored session.
        package init(
            _ a: Int64, _ fingerprintsA: [EventFingerprint], _ b: Int64, _ fingerprintsB: [EventFingerprint],
            upTo last: Int64?
        ) {
            let kept = Array(fingerprintsA.prefix { $0.seq <= last ?? .max })
            alignment =
                a <= b
                ? TimelineAligner.differences(kept, fingerprintsB)
                : TimelineAligner.differences(fingerprintsB, kept).swapped
            eventsA = kept.count
            eventsB = fingerprintsB.count
        }
    }

    /// Compares two stored sessions as `diff(_:_:)` does, without reading the events that differ:
    /// `forEachDifference(in:_:)` reads them, a few hundred at a time.
    ///
    /// - Complexity: as `diff(_:_:)` without its last part: O(*n* + *m* + *k*·*E* + Σ *s*·*d*) time and
    ///   O(*n* + *m*) memory for sessions of *n* and *m* events; no event that differs is read.
    public func compare(_ a: Int64, _ b: Int64) throws(StoreError) -> SessionComparison {
        try compare(a, b, upTo: nil)
    }

    private func compare(_ a: Int64, _ b: Int64, upTo last: Int64?, aligned given: Aligned? = nil)
        throws(StoreError) -> SessionComparison
    {
        let sessionA = try store.session(a)
        let sessionB = try store.session(b)
        let aligned: Aligned
        if let given {
            aligned = given
        } else {
            aligned = Aligned(a, try store.fingerprints(of: a), b, try store.fingerprints(of: b), upTo: last)
        }
        return SessionComparison(
            a: sessionA, b: sessionB, eventsA: aligned.eventsA, eventsB: aligned.eventsB,
            pairedInOrder: aligned.alignment.inOrder, found: aligned.alignment.found)
    }

    /// Calls `body` with each difference of `comparison`, in the order `diff(_:_:)` lists them,
    /// reading their events `chunk` differences at a time: the memory used does not grow with the
    /// differences (`diff --format json` streams them this way).
    ///
    /// - Complexity: O(*D* log *n*) for the *D* differences of `comparison`, each read through the
    ///   events' index; memory grows with `chunk`, not with *D*.
    public func forEachDifference(
        in comparison: SessionComparison, chunk: Int = 500, _ body: (EventDifference) -> Void
    ) throws(StoreError) {
        for start in stride(from: 0, to: comparison.found.count, by: max(chunk, 1)) {
            let part = Array(comparison.found[start..<min(comparison.found.count, start + max(chunk, 1))])
            for difference in try diff(
                comparison.a, comparison.b, found: part, eventsA: comparison.eventsA, eventsB: comparison.eventsB
            ).differences {
                body(difference)
            }
        }
    }

    /// The diff of an isolated replay `b` of session `a`, whose differences were found as it ran
    /// (its events are the recorded ones, one for one).
    func diff(_ a: Int64, _ b: Int64, found: [TimelineAligner.Found], events: Int) throws(StoreError) -> SessionDiff {
        try diff(try store.session(a), try store.session(b), found: found, eventsA: events, eventsB: events)
    }

    /// Reads the events `found` names and pairs them.
    private func diff(
        _ a: SessionSummary, _ b: SessionSummary, found: [TimelineAligner.Found], eventsA: Int, eventsB: Int
    ) throws(StoreError) -> SessionDiff {
        let timelineA = try withAskArguments(try store.timeline(of: a.id, seqs: found.compactMap(\.a)), in: a.id)
        let timelineB = try withAskArguments(try store.timeline(of: b.id, seqs: found.compactMap(\.b)), in: b.id)
        let differences = found.map { found in
            var difference = EventDifference(
                kind: found.kind, a: found.a.flatMap { timelineA[$0] }, b: found.b.flatMap { timelineB[$0] })
            // An event only one side has that is a handler mistake is a difference of its own kind.
            if difference.a == nil || difference.b == nil, difference.event.later?.isMistake == true {
                difference.kind = .mistake
            }
            return difference
        }
        return SessionDiff(a: a, b: b, differences: differences, eventsA: eventsA, eventsB: eventsB)
    }

    /// `events` with each later step of an ask (an answer, a give-up, a mistake), whose own row
    /// has no arguments, showing its ask's: what a difference there is about.
    private func withAskArguments(_ events: [Int64: TimelineEvent], in id: Int64) throws(StoreError)
        -> [Int64: TimelineEvent]
    {
        let steps = events.values.filter { $0.later != nil && $0.later != .asked && $0.answers != nil }
        guard !steps.isEmpty else { return events }
        let asks = try store.timeline(of: id, seqs: steps.compactMap(\.answers))
        var events = events
        for step in steps {
            if let ask = step.answers.flatMap({ asks[$0] }) { events[step.seq]?.arguments = ask.arguments }
        }
        return events
    }

    /// The top-level input that led to `event` in session `id`: its `parent_seq` chain followed
    /// up through the store (a tampered cycle ends the walk).
    package func topLevelInput(of event: TimelineEvent, in id: Int64) throws(StoreError) -> TimelineEvent? {
        var current = event
        var visited: Set<Int64> = [event.seq]
        while let parent = current.parentSeq, visited.insert(parent).inserted {
            guard let next = try store.timeline(of: id, seqs: [parent])[parent] else { break }
            current = next
        }
        return current.kind == .input ? current : nil
    }
}
