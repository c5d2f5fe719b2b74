/// Checks a delegate's behaviour on a scenario against a stored baseline session: the library
/// API for an app's own tests.
///
/// The baseline is the newest complete, non-replay session of that name in the database. The
/// check returns a value (`BehaviourOutcome`); the assertion helpers of `AuditTesting` turn it
/// into a test failure.
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

    /// Runs `scenario` with a delegate from `makeDelegate` and compares it with the baseline
    /// called `name`, recording one as `mode` says.
    public func check(
        _ name: String, scenario: Scenario, delegateName: String = "candidate", delegate makeDelegate: () -> AnyObject
    ) throws -> BehaviourOutcome {
        try check(name, delegate: makeDelegate, named: delegateName) {
            try ScenarioRunner.record(
                scenario, delegate: makeDelegate, named: delegateName, databasePath: databasePath, label: name)
        }
    }

    /// Builds a tree with `build`, gives its widgets a delegate from `makeDelegate`, records what
    /// `drive` does to it, and compares that with the baseline called `name` — no scenario file:
    /// the session stores the tree as `build` made it and the inputs `drive` performed, and is
    /// replayed against a fresh delegate like any other. Records a baseline as `mode` says.
    public func check(
        _ name: String, delegateName: String = "candidate", delegate makeDelegate: () -> AnyObject,
        build: () -> View, drive: (View) throws -> Void
    ) throws -> BehaviourOutcome {
        try check(name, delegate: makeDelegate, named: delegateName) {
            let delegate = makeDelegate()
            return try withExtendedLifetime(delegate) {
                let root = build()
                ScenarioRunner.adopt(delegate, in: root, catalog: catalog)
                let recorder = try Recorder(
                    databasePath: databasePath, session: NewSession(recordedInCode: name, delegate: delegateName),
                    catalog: catalog)
                try recorder.attach(to: root)
                defer { recorder.detach(from: root) }
                try drive(root)
                return recorder.finish()
            }
        }
    }

    private func check(
        _ name: String, delegate makeDelegate: () -> AnyObject, named delegateName: String,
        recording: () throws -> RecordingSummary
    ) throws -> BehaviourOutcome {
        // No database yet means no baseline; any other problem with it is an error, not "missing".
        // The store the baseline is found and replayed through (an isolated replay opens one to
        // write beside it, to store the candidate).
        let store: AuditStore?
        do {
            store = try AuditStore(path: databasePath, access: .read)
        } catch .noDatabase {
            store = nil
        }
        let baseline = try store?.latestBaseline(named: name)
        func record(_ reason: String) throws -> BehaviourOutcome {
            .recorded(session: try recording().session, reason: reason)
        }
        if mode == .all { return try record("record mode is 'all'") }
        guard let baseline, let store else {
            if mode == .never { return .missingBaseline(name: name) }
            return try record("there was no baseline named '\(name)'")
        }
        let replayer = Replayer(databasePath: databasePath, registry: DelegateRegistry(), catalog: catalog)
        let report = try replayer.replay(
            session: baseline, candidate: makeDelegate, named: delegateName, mode: replayMode,
            through: Replayer.Stores(replayer, store))
        if report.identical { return .matched(report) }
        if mode == .failed {
            return try record("behaviour differed from session \(baseline) (record mode is 'failed')")
        }
        return .differed(report)
    }
}

/// What a behaviour check found.
public enum BehaviourOutcome: Sendable {
    /// The candidate behaved exactly as the baseline.
    case matched(ReplayReport)
    /// The candidate's behaviour differs; the report says where.
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
                + "differences; candidate stored as session \(report.candidate.id))"
            if let first = report.firstDivergence {
                let event = first.difference.event
                text +=
                    "; first divergence: \(first.difference.kind.rawValue) at \(event.widget ?? "-") "
                    + "\(event.protocolName.map { $0 + "." } ?? "")\(event.callback) \(event.arguments): recorded "
                    + "\(first.difference.a?.result ?? "nothing"), candidate \(first.difference.b?.result ?? "nothing")"
            }
            return text
        case .recorded(let session, let reason):
            return "recorded a new baseline as session \(session) because \(reason); run again to compare with it"
        case .missingBaseline(let name):
            return
                "no baseline named '\(name)' and record mode is 'never' (set \(RecordMode.environmentVariable)=missing to record it)"
        }
    }
}

extension AuditStore {
    /// The newest complete recording (not a replay) with this name.
    func latestBaseline(named name: String) throws(StoreError) -> Int64? {
        try storeOperation {
            try connection.scalarInt(
                "SELECT max(id) FROM sessions WHERE name = ? AND replay_of IS NULL AND status = 'complete'",
                [.text(name)])
        }
    }
}
