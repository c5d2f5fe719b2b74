import AuditKit
import AuditModel
import AuditReplay
import AuditStorage
import Foundation

/// Searches for a behaviour change nobody recorded: drives a delegate and a candidate with random
/// valid inputs on a scenario's widget tree until their audited behaviour differs, then minimizes
/// the run (`Minimizer`).
///
/// Each run builds the scenario's tree afresh and generates its steps one at a time while driving
/// the delegate, so every step is valid in the state the ones before left: the widgets' kinds
/// generate them (`WidgetKind.generators`), weighted, each checked as a scenario step is. The run
/// is then driven with a fresh delegate and a fresh candidate (which skips an input it cannot take,
/// as in a replay), each under a recorder that keeps its events in memory, and the two are compared
/// as `diff` compares two sessions. Only a run that differs is stored: recorded with both into a
/// scratch database, diffed and minimized there.
///
/// Run k draws from `ExplorationRandom(seed:run:)`, so the same seed gives the same runs; guided
/// exploration also depends on the runs before, which the same seed repeats too. A time limit only
/// decides how many runs there are.
public struct Explorer: Sendable {
    /// What to explore and how long.
    public struct Options: Sendable {
        public var seed: UInt64 = 1
        /// Random steps per run (after `start`).
        public var stepsPerRun = 20
        /// The most runs.
        public var runs = 200
        /// Stop starting runs after this long (wall clock), when set.
        public var timeLimit: Duration?
        /// A factor on the generators' weights, by input name (`tapSegment`); 0 never generates it.
        public var weights: [String: Double] = [:]
        /// Steps every run starts with, such as a scenario's own (those that cannot run are left out).
        public var start: [ScenarioStep] = []
        /// Half the runs start with the beginning of a corpus run (at most half their steps) and
        /// explore on from there. Off by default: on the mutant benchmark (`auditbench --only
        /// mutants`) it finds no change sooner than drawing every run afresh.
        public var guided = false
        /// The most tests the minimizer runs.
        public var maximumMinimizerTests = 500
        /// Runs checked at once, each on a thread of its own; the runs and what they find do not
        /// depend on it.
        public var jobs = 1

        public init() {}
    }

    /// What exploring found: the run that diverged, its steps and the minimal reproducer.
    public struct Finding: Sendable {
        /// The run that diverged, from 1.
        public var run: Int
        /// The run's steps.
        public var steps: [ScenarioStep]
        /// The first difference: kind, widget and callback.
        public var signature: String
        /// The minimizer's result: the minimal steps and their scenario file, which names the
        /// reference delegate.
        public var minimized: Minimizer.Result
    }

    /// What exploring found.
    public struct Result: Sendable {
        /// Runs recorded (each with both delegates), the steps they took, and the callbacks both
        /// delegates were asked in them.
        public var runs = 0
        public var steps = 0
        public var callbacks = 0
        /// Callback answer branches the delegate reached (a widget's callback allowed, vetoed, …).
        public var branches = 0
        /// Runs left out because the delegate, driven again, answered differently from the run it
        /// generated (a delegate that depends on something besides its inputs): not compared.
        public var dropped = 0
        /// Runs in which a callback answered with argument classes no run before had (its answer
        /// branch and the classes of its arguments, `ArgumentClass`): the corpus `--save-corpus`
        /// stores.
        public var corpus: [[ScenarioStep]] = []
        /// Nil when no run diverged within the budget.
        public var finding: Finding?
    }

    public var scenario: Scenario
    public var registry: DelegateRegistry
    public var options: Options

    public init(scenario: Scenario, registry: DelegateRegistry, options: Options = Options()) {
        self.scenario = scenario
        self.registry = registry
        self.options = options
    }

    /// Explores until `candidate` diverges from `delegate` or the budget is spent. `progress` is
    /// told the runs and steps done after each run.
    ///
    /// Runs go in batches of `batchSize`: a batch's steps are generated from the corpus as it was
    /// when the batch began, its runs checked `options.jobs` at a time, then taken in run order. So
    /// the runs, and the first that diverges, are the same whatever the number of jobs.
    ///
    /// - Complexity: O(*r*·*e*) for *r* runs (`options.runs`, fewer with a time limit or a divergence)
    ///   of *e* events each: every run is generated, driven with both delegates and compared in
    ///   memory. A divergence adds its recording and a
    ///   `Minimizer/minimize(session:delegate:maximumTests:progress:)` of that run. Memory grows with
    ///   the corpus of runs that reached new argument classes.
    public func explore(
        delegate delegateName: String, candidate candidateName: String,
        progress: (_ runs: Int, _ steps: Int) -> Void = { _, _ in }
    ) throws -> Result {
        let delegate = try registry.entry(named: delegateName)
        let candidate = try registry.entry(named: candidateName)
        // A delegate the tree never asks would make every run "the same": refused before any run.
        try ScenarioRunner.checkAdopted(delegate.make, named: delegate.name, by: scenario, at: "delegate")
        try ScenarioRunner.checkAdopted(candidate.make, named: candidate.name, by: scenario, at: "candidate")
        let scratch = Self.scratchParent.appending(path: "auditctl-explore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let started = ContinuousClock.now
        var result = Result()
        var seen: Set<String> = []
        var features: Set<Int> = []
        let generator = RunGenerator(scenario: scenario, options: options)
        var next = 1
        // Only a run that differs is stored (with both delegates), so the scratch databases hold little.
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let check = try RunCheck(
            scenario: scenario, delegate: delegate, candidate: candidate, lanes: options.jobs, in: scratch)
        while next <= max(options.runs, 1) {
            if let limit = options.timeLimit, next > 1, ContinuousClock.now - started >= limit { break }
            let batch = Array(next...min(next + Self.batchSize - 1, max(options.runs, 1)))
            next += batch.count
            let planned = batch.map { run in
                var random = ExplorationRandom(seed: options.seed, run: run)
                return generator.steps(delegate: delegate.make, corpus: result.corpus, &random)
            }
            let outcomes = try check.check(planned)
            for (run, outcome) in zip(batch, outcomes) {
                guard let outcome else {
                    result.dropped += 1  // the delegate answered differently from its dry run
                    continue
                }
                result.runs += 1
                result.steps += outcome.steps.count
                result.callbacks += outcome.callbacks
                if !outcome.features.isSubset(of: features) {
                    features.formUnion(outcome.features)
                    result.corpus.append(outcome.steps)
                }
                seen.formUnion(outcome.branches)
                result.branches = seen.count
                progress(result.runs, result.steps)
                guard let divergence = outcome.divergence else { continue }
                result.finding = try finding(
                    run: run, steps: outcome.steps, divergence, delegate: delegate.name, candidate: candidate.name)
                return result
            }
        }
        if result.runs == 0, result.dropped > 0 {
            throw ScenarioError(
                at: "delegate",
                "\(delegate.name) answered differently each time a run was driven again (\(result.dropped) runs "
                    + "dropped): explore needs a delegate whose answers depend only on its inputs")
        }
        // No input generated in any run: nothing was tried, which is no pass.
        if result.runs > 0, result.steps == 0 {
            throw ScenarioError(
                at: "root",
                "no input generator drives a widget of the tree, so explore tried nothing; give its kinds "
                    + "generators (WidgetKind.exploring(_:)) or weights above 0")
        }
        return result
    }

    /// The finding of run `run`, minimized; its scenario names `delegate`.
    private func finding(
        run: Int, steps: [ScenarioStep], _ divergence: RunCheck.Divergence, delegate: String, candidate: String
    ) throws -> Finding {
        let minimized: Minimizer.Result
        do {
            minimized = try Minimizer(databasePath: divergence.database, registry: registry, catalog: scenario.catalog)
                .minimize(
                    session: divergence.session, delegate: candidate, maximumTests: options.maximumMinimizerTests)
        } catch is Minimizer.Failure {
            // Replaying the recorded inputs did not diverge as the run did: the run is the reproducer.
            minimized = Minimizer.Result(
                steps: steps, originalCount: steps.count,
                scenario: try scenario.text(name: scenario.name + "-explored", delegate: delegate, steps: steps),
                divergence: divergence.signature, tests: 0, cached: 0, unresolved: 0, stoppedAtBound: false)
        }
        return Finding(run: run, steps: steps, signature: divergence.signature, minimized: minimized)
    }

    /// Runs generated at once from the same corpus, and checked together: the most jobs that help.
    public static let batchSize = 4

    /// Where scratch databases go: a memory file system when there is one (`/dev/shm` on Linux),
    /// since nothing in them outlives the exploration, else the temporary directory.
    static var scratchParent: URL {
        let memory = "/dev/shm"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: memory, isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: memory)
        {
            return URL(fileURLWithPath: memory)
        }
        return FileManager.default.temporaryDirectory
    }
}

extension Explorer.Finding {
    /// Records the minimal reproducer with `delegate` and with `candidate` into the database at
    /// `databasePath` (the candidate skipping inputs it cannot take, as in a replay), labelled
    /// `explore=delegate` and `explore=candidate`: the two sessions `diff` compares. The
    /// candidate's is stored as a replay of the delegate's, as it is one: `replay --all` and
    /// `coverage` leave it out.
    ///
    /// - Complexity: O(*e*) for the *e* events of the reproducer's two recordings.
    public func record(
        delegate: String, candidate: String, registry: DelegateRegistry, catalog: WidgetCatalog, databasePath: String
    ) throws -> (delegate: RecordingSummary, candidate: RecordingSummary) {
        let reproducer = try Scenario(data: Data(minimized.scenario.utf8), catalog: catalog)
        let a = try ScenarioRunner.record(
            reproducer, delegate: try registry.entry(named: delegate).make, named: delegate,
            databasePath: databasePath, labels: ["explore": "delegate"])
        let b = try ScenarioRunner.record(
            reproducer, delegate: try registry.entry(named: candidate).make, named: candidate,
            databasePath: databasePath, labels: ["explore": "candidate"], invalid: .skip, replaying: a.session)
        return (a, b)
    }
}

extension Explorer.Result {
    /// Records each run of `corpus` with `delegate` into the database at `databasePath`, labelled
    /// `explore=corpus` and named SCENARIO-explored: the runs that reached new argument classes, as
    /// sessions a replay can check.
    ///
    /// - Complexity: O(*e*) for the *e* events recorded from all of `corpus`'s runs.
    public func saveCorpus(
        of scenario: Scenario, delegate: String, registry: DelegateRegistry, databasePath: String
    ) throws -> [RecordingSummary] {
        let entry = try registry.entry(named: delegate)
        return try corpus.map { steps in
            try ScenarioRunner.record(
                try scenario.replacing(steps: steps, name: scenario.name + "-explored"), delegate: entry.make,
                named: delegate, databasePath: databasePath, labels: ["explore": "corpus"])
        }
    }
}
