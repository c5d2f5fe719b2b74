/// What a replay found: the comparison of the recorded session (A) with the candidate's run (B).
public struct ReplayReport: Sendable {
    public var mode: ReplayMode
    public var diff: SessionDiff
    public var inputsReplayed: Int
    /// Recorded inputs the candidate's run could not take (it left the widget in another state,
    /// say a shorter text for a recorded range); their events show as only in the recording.
    public var inputsSkipped: Int
    /// Set when the recorded session was interrupted: where it stops and what was replayed.
    public var cutShort: String?
    /// Writes of the candidate session that failed (the comparison still ran).
    public var recordingFailures: Int
    var recordedEvents: [TimelineEvent]
    var candidateEvents: [TimelineEvent]

    public var identical: Bool { diff.identical }
    public var recorded: SessionSummary { diff.a }
    public var candidate: SessionSummary { diff.b }

    /// The first place where behaviour diverged, with the recorded input that led to it. A
    /// delegate's answer is preferred to an input's result: the widget state an input left is a
    /// consequence of the answers given inside it.
    public var firstDivergence: Divergence? {
        guard let first = diff.differences.first(where: { $0.event.kind == .callback }) ?? diff.differences.first
        else { return nil }
        let events = first.a != nil ? recordedEvents : candidateEvents
        return Divergence(difference: first, input: Self.topLevelInput(of: first.event, in: events))
    }

    /// Follows `parent_seq` up to the input that started the chain of events.
    static func topLevelInput(of event: TimelineEvent, in events: [TimelineEvent]) -> TimelineEvent? {
        let bySeq = Dictionary(events.map { ($0.seq, $0) }) { first, _ in first }
        var current: TimelineEvent? = event
        var visited: Set<Int64> = []
        while let node = current, visited.insert(node.seq).inserted {  // a tampered parent cycle ends here
            guard let parent = node.parentSeq, let next = bySeq[parent] else {
                return node.kind == .input ? node : nil
            }
            current = next
        }
        return nil
    }
}

/// The first divergence of a replay: the difference and the recorded input that led to it.
public struct Divergence: Sendable {
    public var difference: EventDifference
    public var input: TimelineEvent?
}
