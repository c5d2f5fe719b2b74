/// Runs scenarios: builds the tree, installs a delegate, drives the steps, optionally under audit.
public enum ScenarioRunner {
    /// Builds `scenario`'s tree, gives every widget `delegate` where it conforms, attaches
    /// `recorder` when given, and performs every step in order. Returns the tree in its final
    /// state. The caller keeps `delegate` alive (widgets hold it weakly).
    @discardableResult
    public static func run(
        _ scenario: Scenario, steps: [ScenarioStep]? = nil, delegate: AnyObject?, recorder: Recorder? = nil
    ) -> View {
        let root = scenario.root.build()
        if let delegate { root.visit { $0.adoptDelegate(delegate) } }
        recorder?.attach(to: root)
        for step in steps ?? scenario.steps { step.perform(in: root) }
        recorder?.detach(from: root)
        return root
    }

    /// Records `scenario` with the registered delegate `delegateName` (or the scenario's own) into
    /// the database at `databasePath`, and returns what was stored.
    ///
    /// Everything is validated before the database is opened: an unknown delegate records nothing.
    public static func record(
        _ scenario: Scenario, delegate delegateName: String?, registry: DelegateRegistry, databasePath: String,
        label: String? = nil, options: Recorder.Options = Recorder.Options()
    ) throws -> RecordingSummary {
        guard let name = delegateName ?? scenario.delegate else { throw RegistryError.noDelegate }
        let entry = try registry.entry(named: name)
        return try record(
            scenario, delegate: entry.make(), named: name, databasePath: databasePath, label: label, options: options)
    }

    /// Records `scenario` with the delegate object `delegate`, stored under the name `name`.
    public static func record(
        _ scenario: Scenario, delegate: AnyObject, named name: String, databasePath: String, label: String? = nil,
        options: Recorder.Options = Recorder.Options()
    ) throws -> RecordingSummary {
        let recorder = try Recorder(
            databasePath: databasePath,
            session: NewSession(name: label, scenario: scenario.name, scenarioSource: scenario.source, delegate: name),
            options: options)
        withExtendedLifetime(delegate) { _ = run(scenario, delegate: delegate, recorder: recorder) }
        return recorder.finish()
    }
}
