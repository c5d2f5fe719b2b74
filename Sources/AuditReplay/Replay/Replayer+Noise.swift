import AuditKit
import AuditModel
import AuditStorage

/// What identifies a difference across runs: its kind, widget, callback and the `seq` on both
/// sides.
public struct DifferenceKey: Sendable, Hashable {
    public var kind: EventDifference.Kind
    public var widget: String?
    public var callback: String
    public var seqA: Int64?
    public var seqB: Int64?

    public init(_ difference: EventDifference) {
        kind = difference.kind
        widget = difference.event.widget
        callback = difference.event.callback
        seqA = difference.a?.seq
        seqB = difference.b?.seq
    }
}

extension Replayer {
    /// Replays session `id` against `delegateName`, then `noiseRuns` times against the delegate
    /// that recorded it (which must be registered). A difference of the candidate that also shows
    /// up between a baseline run and the recording (a delegate that reads the clock or a random
    /// number) is noise, not a regression: the report's `diff` and `firstDivergence` leave it out,
    /// and its `noise` lists it. Every run is stored as a replay session.
    ///
    /// - Complexity: (1 + `noiseRuns`) replays of the session, each as
    ///   `replay(session:delegate:mode:)`, and one comparison of their differences.
    public func replay(
        session id: Int64, delegate delegateName: String, mode: ReplayMode, noiseRuns: Int
    ) throws -> ReplayReport {
        try replay(session: id, delegate: delegateName, mode: mode, noiseRuns: noiseRuns, through: Stores(self))
    }

    /// `replay(session:delegate:mode:noiseRuns:)` reading through `store`, an open store of this
    /// replayer's database (see `replay(session:delegate:mode:reading:)`): every run goes through it.
    ///
    /// - Complexity: (1 + `noiseRuns`) replays of the session, each as
    ///   `replay(session:delegate:mode:)`, and one comparison of their differences.
    public func replay(
        session id: Int64, delegate delegateName: String, mode: ReplayMode, noiseRuns: Int, reading store: AuditStore
    ) throws -> ReplayReport {
        try replay(
            session: id, delegate: delegateName, mode: mode, noiseRuns: noiseRuns, through: Stores(self, store))
    }

    /// `replay(session:delegate:mode:noiseRuns:)` through `stores`, shared by every run (see
    /// `replay(session:candidate:named:mode:through:)`).
    func replay(
        session id: Int64, delegate delegateName: String, mode: ReplayMode, noiseRuns: Int, through stores: Stores
    ) throws -> ReplayReport {
        precondition(noiseRuns >= 0, "noiseRuns must not be negative")
        let recordedDelegate = try stores.planStore(for: mode).session(id).delegate
        let baseline = try registry.entry(named: recordedDelegate)
        let candidate = try registry.entry(named: delegateName)
        let report = try replay(
            session: id, candidate: candidate.make, named: delegateName, mode: mode, through: stores)
        var noiseKeys: Set<DifferenceKey> = []
        var baselineSessions: [Int64] = []
        for _ in 0..<noiseRuns {
            let run = try replay(
                session: id, candidate: baseline.make, named: recordedDelegate, mode: mode, through: stores)
            baselineSessions.append(run.candidate.id)
            noiseKeys.formUnion(run.diff.differences.map(DifferenceKey.init))
        }
        var regressions = report
        regressions.diff.differences = report.diff.differences.filter { !noiseKeys.contains(DifferenceKey($0)) }
        let noise = report.diff.differences.filter { noiseKeys.contains(DifferenceKey($0)) }
        if !noise.isEmpty {
            regressions.firstDivergence = try stores.comparing { try Divergence(of: regressions.diff, in: $0) }
        }
        regressions.noise = ReplayReport.Noise(differences: noise, runs: noiseRuns, sessions: baselineSessions)
        return regressions
    }
}
