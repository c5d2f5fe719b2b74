import AuditKit
import AuditModel
import AuditStorage

/// What a replay found: the comparison of the recorded session (A) with the candidate's run (B).
public struct ReplayReport: Sendable {
    public var mode: ReplayMode
    public var diff: SessionDiff
    public var inputsReplayed: Int
    /// Recorded inputs the candidate's run could not take (it left the widget in another state,
    /// say a shorter text for a recorded range); their events show as only in the recording.
    public var inputsSkipped: Int
    /// Set when the recorded session was interrupted: where it stops and what was replayed.
    public var cutShort: CutShort?
    /// The first input the candidate's run started past the nesting limit (`InputNesting`), which
    /// did nothing, with its step. The recording made no such input (recording refuses it), so the
    /// candidate behaves differently even where the events it left compare equal.
    public var nestingRefused: NestingRefusal?
    /// Where an isolated replay's run left the recording's course; nil when it followed it to the end.
    public var leftCourse: LeftCourse? = nil
    /// Writes of the candidate session that failed and lost events (0 when every failed write
    /// succeeded on a later try); the comparison is then not to be trusted.
    public var recordingFailures: Int
    /// The first place where behaviour diverged, with the top-level input that led to it. A
    /// delegate's answer is preferred to an input's result: the widget state an input left is a
    /// consequence of the answers given inside it.
    public var firstDivergence: Divergence?
    /// Where the time went, in seconds.
    public var timings: Timings
    /// Set when the replay was filtered for noise (`noiseRuns`): the differences the runs against
    /// the recording delegate showed too, which `diff` and `firstDivergence` leave out.
    public var noise: Noise? = nil

    /// What a replay filtered for noise left out of its report.
    public struct Noise: Sendable {
        /// The candidate's differences that the baseline runs showed too.
        public var differences: [EventDifference]
        /// How many times the session was replayed against the recording delegate.
        public var runs: Int
        /// The replay sessions the baseline runs were stored as.
        public var sessions: [Int64]
    }

    public struct Timings: Sendable {
        /// Reading the recorded session and checking it can be replayed.
        public var load: Double
        /// Driving the inputs (interaction) or asking every recorded callback (isolated), with the
        /// candidate's events queued for the writer.
        public var run: Double
        /// Waiting for the writer to commit what was still queued.
        public var store: Double
        /// Aligning the two sessions and reading the differing events.
        public var compare: Double
        /// Recorded callbacks in the replayed part of the session.
        public var callbacks: Int

        public var total: Double { load + run + store + compare }
    }

    /// Where an interrupted recording stops, and the part of it a replay took: the inputs recorded
    /// completely, the last input's events being possibly cut off.
    public struct CutShort: Sendable, Equatable, CustomStringConvertible {
        public let session: Int64
        /// The last event the recording stored.
        public let lastEvent: Int64
        /// The top-level inputs replayed, and the last event of theirs.
        public let inputsReplayed: Int
        public let replayedThrough: Int64

        public var description: String {
            "session \(session) is interrupted: its recording stops at event \(lastEvent); replayed the "
                + "\(inputsReplayed) input\(inputsReplayed == 1 ? "" : "s") recorded completely (events 1–\(replayedThrough))"
        }
    }

    /// Where an isolated replay's run left the recording's course (the live run asked another
    /// callback, or another widget, than the recording's next event), and the recorded events
    /// after it, which were not compared: `event 7: the 12 recorded events after it were not
    /// compared`. An interaction replay aligns instead, and never leaves a course.
    public struct LeftCourse: Sendable, Equatable, CustomStringConvertible {
        /// The recorded event the run did not reach in order, listed as only in the recording.
        public let event: Int64
        /// Recorded events after it, not compared.
        public let uncompared: Int

        public var description: String {
            "the candidate's run left the recording's course at event \(event): the \(uncompared) recorded "
                + "event\(uncompared == 1 ? "" : "s") after it \(uncompared == 1 ? "was" : "were") not compared "
                + "(replay in interaction mode to compare them)"
        }
    }

    /// An input the candidate's run refused for nesting too deep, with the step it happened in:
    /// `steps[0]: input selectSegment on root/c32 would nest …`.
    public struct NestingRefusal: Sendable, Equatable, CustomStringConvertible {
        public let step: Int
        public let error: InputNestingError

        public var description: String { "steps[\(step)]: \(error)" }
    }

    /// No difference, and no input refused for nesting in the candidate's run.
    public var identical: Bool { diff.identical && nestingRefused == nil }
    public var recorded: SessionSummary { diff.a }
    public var candidate: SessionSummary { diff.b }

    /// The difference `firstDivergence` names: the first callback difference, else the first.
    package static func firstDifference(in diff: SessionDiff) -> EventDifference? {
        diff.differences.first(where: { $0.event.kind == .callback }) ?? diff.differences.first
    }
}

/// The first divergence of a replay: the difference and the recorded input that led to it.
public struct Divergence: Sendable {
    public var difference: EventDifference
    public var input: TimelineEvent?

    /// The first divergence of `diff` (`ReplayReport.firstDifference`) with the top-level input it
    /// happened under, read through `store`; nil when `diff` has none.
    init?(of diff: SessionDiff, in store: AuditStore) throws {
        guard let first = ReplayReport.firstDifference(in: diff) else { return nil }
        difference = first
        input =
            try first.a.map { try SessionDiffer(store).topLevelInput(of: $0, in: diff.a.id) }
            ?? first.b.map { try SessionDiffer(store).topLevelInput(of: $0, in: diff.b.id) } ?? nil
    }
}

extension Divergence: CustomStringConvertible {
    /// The difference in one line: its kind, where, and both answers.
    public var description: String {
        let event = difference.event
        return "\(difference.kind.rawValue) at \(event.widget ?? "-") "
            + "\(event.protocolName.map { $0 + "." } ?? "")\(event.callback) \(event.arguments): recorded "
            + "\(difference.a?.result ?? "nothing"), candidate \(difference.b?.result ?? "nothing")"
    }
}

extension ReplayReport: CustomStringConvertible {
    /// The verdict in one line, as a failing test prints it: identical, or how many differences
    /// and the first divergence.
    public var description: String {
        let replay = "replay of session \(recorded.id) as session \(candidate.id) (\(mode) mode)"
        if identical { return "\(replay): identical, \(diff.eventsA) events compared" }
        var text = "\(replay): \(diff.differences.count) differences"
        if let nestingRefused { text += "; input refused for nesting at \(nestingRefused)" }
        if let firstDivergence { text += "; first divergence: \(firstDivergence)" }
        return text
    }
}
