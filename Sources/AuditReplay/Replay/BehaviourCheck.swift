import AuditKit
import AuditModel
import AuditStorage

/// Checks a delegate's behaviour on a scenario against a stored baseline session: the library
/// API for an app's own tests.
///
/// The baseline is the newest complete, non-replay session of that name in the database. The
/// check returns a value (`BehaviourOutcome`); the assertion helpers of `AuditTesting` turn it
/// into a test failure.
///
/// The database is committed with the tests, so a check never writes it where it is: it compares
/// on a private copy, removed after, and leaves the file's bytes and its folder as they were; a
/// recording replaces the file whole, atomically, or changes nothing (see `BaselineFile`). The
/// candidate's session of a comparison is stored in that copy only.
public struct BehaviourCheck: Sendable {
    public var databasePath: String
    public var mode: RecordMode
    public var replayMode: ReplayMode
    public var catalog: WidgetCatalog

    public init(
        databasePath: String, catalog: WidgetCatalog, mode: RecordMode = .missing,
        replayMode: ReplayMode = .interaction
    ) {
        self.databasePath = databasePath
        self.mode = mode
        self.replayMode = replayMode
        self.catalog = catalog
    }

    /// Compares a delegate from `makeDelegate` with the baseline called `name`, replaying the
    /// baseline's inputs against it, or records one from `scenario` as `mode` says. A comparison
    /// first runs `scenario` with the delegate on a private copy and throws
    /// `BaselineInputsDiffer` when its inputs are not the baseline's: record it again then.
    ///
    /// - Complexity: O(*n* + *e*): a copy of the database of *n* bytes, and a replay of the
    ///   baseline's *e* events.
    public func check(
        _ name: String, scenario: Scenario, delegateName: String = "candidate", delegate makeDelegate: () -> AnyObject
    ) throws -> BehaviourOutcome {
        try check(name, delegate: makeDelegate, named: delegateName) { database in
            try ScenarioRunner.record(
                scenario, delegate: makeDelegate, named: delegateName, databasePath: database, label: name)
        }
    }

    /// Compares a delegate from `makeDelegate` with the baseline called `name`, or records one as
    /// `mode` says: `build` makes a tree, its widgets take the delegate, and what `drive` does to
    /// it is recorded — no scenario file: the session stores the tree as `build` made it and the
    /// inputs `drive` performed. A comparison runs `build` and `drive` again on a private copy,
    /// throws `BaselineInputsDiffer` when the inputs are not the baseline's (record it again then),
    /// and replays the baseline's inputs against a fresh delegate.
    ///
    /// - Complexity: O(*n* + *e*): a copy of the database of *n* bytes, and a replay of the
    ///   baseline's *e* events.
    public func check(
        _ name: String, delegateName: String = "candidate", delegate makeDelegate: () -> AnyObject,
        build: () -> View, drive: (View) throws -> Void
    ) throws -> BehaviourOutcome {
        try check(name, delegate: makeDelegate, named: delegateName) { database in
            let delegate = makeDelegate()
            return try withExtendedLifetime(delegate) {
                let root = build()
                ScenarioRunner.adopt(delegate, in: root, catalog: catalog)
                let recorder = try Recorder(
                    databasePath: database, session: NewSession(recordedInCode: name, delegate: delegateName),
                    catalog: catalog)
                try recorder.attach(to: root)
                defer { recorder.detach(from: root) }
                try drive(root)
                recorder.detach(from: root)
                let summary = recorder.finish()
                // A baseline missing an input the test performed would pass checks it should not.
                if let refused = summary.refusedInputs.first { throw RefusedInput(message: refused) }
                return summary
            }
        }
    }

    /// Compares with the baseline `name`, or records one as `mode` says: `recording` records into
    /// the database at the path it is given, a copy that replaces the baseline database when it
    /// returns.
    private func check(
        _ name: String, delegate makeDelegate: () -> AnyObject, named delegateName: String,
        recording: (String) throws -> RecordingSummary
    ) throws -> BehaviourOutcome {
        let baselines = BaselineFile(path: databasePath)
        func record(_ reason: String) throws -> BehaviourOutcome {
            .recorded(session: try baselines.update { try recording($0).session }, reason: reason)
        }
        if mode == .all { return try record("record mode is 'all'") }
        let compared = try baselines.withCopy { copy -> BehaviourOutcome? in
            // No database yet means no baseline; any other problem with it is an error, not "missing".
            guard let copy else { return nil }
            let store = try AuditStore(path: copy, access: .read)
            guard let baseline = try store.latestBaseline(named: name) else { return nil }
            try checkInputs(of: baseline, in: copy, recording: recording)
            let replayer = Replayer(databasePath: copy, registry: DelegateRegistry(), catalog: catalog)
            let report = try replayer.replay(
                session: baseline, candidate: makeDelegate, named: delegateName, mode: replayMode,
                through: Replayer.Stores(replayer, store))
            return report.identical ? .matched(report) : .differed(report)
        }
        guard let compared else {
            if mode == .never { return .missingBaseline(name: name) }
            return try record("there was no baseline named '\(name)'")
        }
        if case .differed(let report) = compared, mode == .failed {
            return try record("behaviour differed from session \(report.recorded.id) (record mode is 'failed')")
        }
        return compared
    }
}

extension BehaviourCheck {
    /// Runs the test's inputs now (its scenario, or `build` and `drive`) with the candidate, into
    /// the private copy `copy`, and throws `BaselineInputsDiffer` when they are not the inputs
    /// baseline `session` recorded: a changed test would otherwise be compared on its old inputs.
    /// Inputs are compared by widget and name, not by argument (a test may compute those from
    /// what the delegate let happen). A run the candidate's behaviour stops (an input its state
    /// refuses) is left to the comparison, which reports it.
    fileprivate func checkInputs(
        of session: Int64, in copy: String, recording: (String) throws -> RecordingSummary
    ) throws {
        let now: Int64
        do {
            now = try recording(copy).session
        } catch is RefusedInput {
            return
        } catch is ScenarioError {
            return
        }
        let store = try AuditStore(path: copy, access: .read)
        func inputs(_ id: Int64) throws -> [String] {
            try store.timeline(of: id).filter { $0.kind == .input && $0.parentSeq == nil }
                .map { "\($0.widget ?? "-") \($0.callback)" }
        }
        let (recorded, performed) = (try inputs(session), try inputs(now))
        guard recorded != performed else { return }
        let index =
            zip(recorded, performed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(recorded.count, performed.count)
        throw BaselineInputsDiffer(
            session: session, index: index, recorded: index < recorded.count ? recorded[index] : nil,
            performed: index < performed.count ? performed[index] : nil)
    }
}

/// The inputs a behaviour check's test performs now are not those its baseline recorded (the
/// test changed since): it cannot be compared until the baseline is recorded again.
public struct BaselineInputsDiffer: Error, CustomStringConvertible, Sendable {
    /// The baseline session.
    public let session: Int64
    /// Where the inputs part, from 0, and the input on each side there (nil past the end).
    public let index: Int
    public let recorded: String?
    public let performed: String?

    public var description: String {
        "the test performs other inputs than baseline session \(session) recorded (input \(index + 1): "
            + "recorded \(recorded.map { "'\($0)'" } ?? "nothing"), now \(performed.map { "'\($0)'" } ?? "nothing")); "
            + "record the baseline again (\(RecordMode.environmentVariable)=all) if the test changed"
    }
}

/// An input `drive` performed that its check refused (`RecordingSummary.refusedInputs`): no
/// baseline is recorded with it missing.
public struct RefusedInput: Error, CustomStringConvertible, Sendable {
    /// `"drag on screen/volume refused: must be in 0...1, not 1.2"`.
    public let message: String

    public var description: String { "the baseline was not recorded: \(message)" }
}

/// What a behaviour check found.
public enum BehaviourOutcome: Sendable {
    /// The candidate behaved exactly as the baseline.
    case matched(ReplayReport)
    /// The candidate's behaviour differs; the report says where. Its candidate session was
    /// stored in a copy of the baseline database that is gone: only the report is kept.
    case differed(ReplayReport)
    /// A new baseline session was recorded (and nothing compared). Like snapshot testing, this
    /// counts as a failure, so a test never passes on a baseline it did not compare with.
    case recorded(session: Int64, reason: String)
    /// Record mode `never`, and no baseline exists.
    case missingBaseline(name: String)

    public var passed: Bool {
        if case .matched = self { return true }
        return false
    }

    /// One paragraph for a test failure.
    public var message: String {
        switch self {
        case .matched(let report):
            return "behaviour matches session \(report.recorded.id)"
        case .differed(let report):
            var text =
                "behaviour differs from baseline session \(report.recorded.id) (\(report.diff.differences.count) "
                + "differences)"
            if let first = report.firstDivergence { text += "; first divergence: \(first)" }
            return text
        case .recorded(let session, let reason):
            return "recorded a new baseline as session \(session) because \(reason); run again to compare with it"
        case .missingBaseline(let name):
            return
                "no baseline named '\(name)' and record mode is 'never' (set \(RecordMode.environmentVariable)=missing to record it)"
        }
    }
}
