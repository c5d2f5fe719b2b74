import AuditModel
import AuditStorage

/// Runs scenarios: builds the tree, installs a delegate, drives the steps, optionally under audit.
public enum ScenarioRunner {
    /// What to do with a step that cannot run in the state earlier steps left (a text range past
    /// the end of the text).
    public enum InvalidStep: Sendable {
        /// Stop with a `ScenarioError` naming the step.
        case stop
        /// Skip it and go on (a replay whose candidate left another state than the recording).
        case skip
    }

    /// Builds `scenario`'s tree, gives every widget `delegate` where it conforms, attaches
    /// `recorder` when given, and performs `steps` (the scenario's own by default) in order,
    /// checking each against the current state first. Returns the tree in its final state and
    /// the indexes of skipped steps. The caller keeps `delegate` alive (widgets hold it weakly).
    @discardableResult
    public static func run(
        _ scenario: Scenario, steps: [ScenarioStep]? = nil, delegate: AnyObject?, recorder: Recorder? = nil,
        invalid: InvalidStep = .stop
    ) throws(ScenarioError) -> (root: View, skipped: [Int]) {
        var refused: (step: Int, error: InputNestingError)?
        return try run(
            scenario, steps: steps, delegate: delegate, recorder: recorder, invalid: invalid, refused: &refused)
    }

    /// `run`, setting `refused` to the first input refused for nesting too deep when `invalid` is
    /// `.skip` (with `.stop` it throws).
    package static func run(
        _ scenario: Scenario, steps: [ScenarioStep]? = nil, delegate: AnyObject?, recorder: Recorder? = nil,
        invalid: InvalidStep = .stop, refused: inout (step: Int, error: InputNestingError)?
    ) throws(ScenarioError) -> (root: View, skipped: [Int]) {
        let root = scenario.root.build()
        if let delegate, adopt(delegate, in: root, catalog: scenario.catalog) == 0,
            let error = ScenarioError(unadopted: delegate, in: root, catalog: scenario.catalog)
        {
            throw error
        }
        do {
            try recorder?.attach(to: root)
        } catch {
            throw ScenarioError(at: "root", error.description)
        }
        defer { recorder?.detach(from: root) }
        let skipped = try drive(root, steps: steps ?? scenario.steps, invalid: invalid, refused: &refused)
        return (root, skipped)
    }

    /// Throws when a delegate `make` makes would be asked nothing on `scenario`'s tree (it conforms
    /// to no delegate protocol of its widgets), naming it `name` (what `explore` checks of both
    /// delegates before any run, so one that adopts nothing is refused, not run without a word).
    package static func checkAdopted(
        _ make: () -> AnyObject, named name: String, by scenario: Scenario, at location: String
    ) throws(ScenarioError) {
        let root = scenario.root.build()
        let delegate = make()
        try withExtendedLifetime(delegate) { () throws(ScenarioError) in
            guard adopt(delegate, in: root, catalog: scenario.catalog) == 0,
                let error = ScenarioError(unadopted: delegate, in: root, catalog: scenario.catalog)
            else { return }
            throw error.naming(name, at: location)
        }
    }

    /// Gives every widget and recognizer under `root` `delegate`, where it conforms to the
    /// delegate property its kind registers; returns how many took it.
    @discardableResult
    package static func adopt(_ delegate: AnyObject, in root: View, catalog: WidgetCatalog) -> Int {
        var adopted = 0
        root.visit { view in
            if catalog.kind(named: view.widgetKind)?.adopt(view, delegate) == true { adopted += 1 }
            for recognizer in view.gestureRecognizers where recognizer.adoptDelegate(delegate) { adopted += 1 }
        }
        return adopted
    }

    /// Performs `steps` on `root` in order, each checked against the current state first, then
    /// lets the timers still due run. Returns the indexes of the steps skipped.
    ///
    /// A step during which an input was refused for nesting too deep (`InputNesting`) stops the
    /// run with an error naming it when `invalid` is `.stop`; with `.skip` (a replay) the run goes
    /// on without that input, as a second recording would, and the first such step and refusal
    /// are set in `refused`.
    package static func drive(
        _ root: View, steps: [ScenarioStep], invalid: InvalidStep = .skip,
        refused: inout (step: Int, error: InputNestingError)?
    ) throws(ScenarioError) -> [Int] {
        var skipped: [Int] = []
        _ = InputNesting.takeRefusal()  // one left by code that ran before, not by these steps
        for (index, step) in steps.enumerated() {
            let object: AnyObject
            do {
                object = try step.target(in: root, at: "steps[\(index)]")
            } catch {
                guard invalid == .skip else { throw error }
                skipped.append(index)
                continue
            }
            step.perform(on: object)
            try checkNesting(at: index, invalid, &refused)
        }
        root.touchDispatcherIfCreated?.settle()  // timers still due after the last touch
        try checkNesting(at: steps.count - 1, invalid, &refused)
        return skipped
    }

    /// `drive` for callers that need not know about refused inputs.
    package static func drive(_ root: View, steps: [ScenarioStep], invalid: InvalidStep = .skip) throws(ScenarioError)
        -> [Int]
    {
        var refused: (step: Int, error: InputNestingError)?
        return try drive(root, steps: steps, invalid: invalid, refused: &refused)
    }

    /// If an input was refused for nesting while step `index` ran: throws when `invalid` is
    /// `.stop`, else keeps the first refusal in `refused`.
    private static func checkNesting(
        at index: Int, _ invalid: InvalidStep, _ refused: inout (step: Int, error: InputNestingError)?
    ) throws(ScenarioError) {
        guard let refusal = InputNesting.takeRefusal() else { return }
        guard invalid == .skip else { throw ScenarioError(at: "steps[\(index)]", refusal.description) }
        if refused == nil { refused = (index, refusal) }
    }

    /// Records `scenario` with the registered delegate `delegateName` (or the scenario's own) into
    /// the database at `databasePath`, and returns what was stored.
    ///
    /// Everything is validated before the database is opened: an unknown delegate, or a step
    /// that cannot run, records nothing.
    ///
    /// - Complexity: O(*k* + *e*) for a scenario of *k* steps that make *e* events: a dry run, then
    ///   the recorded run.
    public static func record(
        _ scenario: Scenario, delegate delegateName: String?, registry: DelegateRegistry, databasePath: String,
        label: String? = nil, labels: [String: String] = [:], options: Recorder.Options = Recorder.Options()
    ) throws -> RecordingSummary {
        guard let name = delegateName ?? scenario.delegate else { throw RegistryError.noDelegate }
        let entry = try registry.entry(named: name)
        return try record(
            scenario, delegate: entry.make, named: name, databasePath: databasePath, label: label, labels: labels,
            options: options)
    }

    /// Records `scenario` with delegates made by `makeDelegate`, stored under the name `name`.
    ///
    /// A dry run comes first, without a recorder and with a delegate of its own: the steps are
    /// checked against the state each leaves (which depends on the delegate's answers), and a step
    /// that cannot run fails here, before the database is touched. Auditing does not change
    /// behaviour, so the recorded run then takes the same path (for a deterministic delegate).
    ///
    /// A scenario with secure text views is recorded with the database's secret key (made beside
    /// it when missing), and stored with their text hashed (`Scenario.recordedSource(hashing:)`).
    /// `invalid: .skip` records a run that skips the steps it cannot take, as a replay does;
    /// `labels` are stored with the session (`NewSession.labels`).
    ///
    /// - Complexity: O(*k* + *e*) for a scenario of *k* steps that make *e* events: a dry run, then
    ///   the recorded run.
    public static func record(
        _ scenario: Scenario, delegate makeDelegate: () -> AnyObject, named name: String, databasePath: String,
        label: String? = nil, labels: [String: String] = [:], options: Recorder.Options = Recorder.Options(),
        invalid: InvalidStep = .stop
    ) throws -> RecordingSummary {
        try record(
            scenario, delegate: makeDelegate, named: name, databasePath: databasePath, label: label, labels: labels,
            options: options, invalid: invalid, replaying: nil)
    }

    /// `record`, the session stored as an interaction replay of session `original` when one is
    /// given: how `explore` stores the candidate's run of its reproducer, which is no recording of
    /// its own (`replay --all` and `coverage` leave replays out).
    package static func record(
        _ scenario: Scenario, delegate makeDelegate: () -> AnyObject, named name: String, databasePath: String,
        label: String? = nil, labels: [String: String] = [:], options: Recorder.Options = Recorder.Options(),
        invalid: InvalidStep = .stop, replaying original: Int64?
    ) throws -> RecordingSummary {
        let rehearsal = makeDelegate()
        try withExtendedLifetime(rehearsal) { () throws(ScenarioError) in
            _ = try run(scenario, delegate: rehearsal, recorder: nil, invalid: invalid)
        }
        var secrets: SecretHasher?
        var store: AuditStore?
        if !scenario.secureTextPaths.isEmpty {
            store = try AuditStore(path: databasePath, access: .write)  // the database is sound before its key is made
            secrets = try SecretHasher(databasePath: databasePath)
        }
        let source = secrets.map(scenario.recordedSource(hashing:)) ?? scenario.source
        let session = NewSession(
            name: label, scenario: scenario.name, source: source, delegate: name, replayOf: original,
            replayMode: original.map { _ in .interaction }, labels: labels)
        // The store opened to check the database is the one the recorder's writer thread takes.
        let recorder =
            try store.take().map {
                try Recorder(handingOver: $0, session: session, catalog: scenario.catalog, options: options)
            } ?? Recorder(databasePath: databasePath, session: session, catalog: scenario.catalog, options: options)
        if let secrets { recorder.useSecrets(secrets) }
        let delegate = makeDelegate()
        let outcome = withExtendedLifetime(delegate) { () -> ScenarioError? in
            do {
                _ = try run(scenario, delegate: delegate, recorder: recorder, invalid: invalid)
                return nil
            } catch {
                return error as? ScenarioError ?? ScenarioError(at: "", "\(error)")
            }
        }
        let summary = recorder.finish()
        // Only a delegate that answers differently from one run to the next gets here.
        if let outcome {
            throw ScenarioError(at: outcome.location, "\(outcome.message) (session \(summary.session) stops there)")
        }
        return summary
    }
}

extension ScenarioError {
    /// This error about a delegate, at `location`, naming it `name` (its registered name).
    package func naming(_ name: String, at location: String = "delegate") -> ScenarioError {
        ScenarioError(at: location, "\(name): \(message)")
    }

    /// A delegate object that no widget or recognizer of the tree takes: run with it, the
    /// scenario would ask it nothing and record only defaults. nil when no widget of the tree has
    /// a delegate (there is nothing to ask).
    package init?(unadopted delegate: AnyObject, in root: View, catalog: WidgetCatalog) {
        var protocols: Set<String> = []
        root.visit { view in
            if let name = catalog.kind(named: view.widgetKind)?.delegateProtocol { protocols.insert(name) }
            if !view.gestureRecognizers.isEmpty { protocols.insert(GestureRecognizerCallbacks.protocolName) }
        }
        guard !protocols.isEmpty else { return nil }
        self.init(
            at: "delegate",
            "\(type(of: delegate)) conforms to no delegate protocol of the scenario's widgets "
                + "(\(protocols.sorted().joined(separator: ", "))): "
                + "it would be asked nothing; make it adopt one, or register the widget's delegate property")
    }
}
