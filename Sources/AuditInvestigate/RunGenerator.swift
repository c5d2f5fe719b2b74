import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// Makes the steps of one exploration run, by driving a delegate on a fresh tree of the scenario.
struct RunGenerator {
    let scenario: Scenario
    let options: Explorer.Options
    /// Every kind's generators, in the catalog's order (so a seed means the same on every run).
    private let generators: [InputGenerator]

    init(scenario: Scenario, options: Explorer.Options) {
        self.scenario = scenario
        self.options = options
        generators = scenario.catalog.kinds.flatMap(\.generators).filter { (options.weights[$0.input] ?? 1) > 0 }
    }

    /// The steps of one run: `options.start`, then — guided, half the time — the beginning of a
    /// corpus run, then random steps until `stepsPerRun` were added.
    /// Each is performed on a tree driven by a delegate `makeDelegate` makes, so each is valid in
    /// the state the ones before left.
    func steps(delegate makeDelegate: () -> AnyObject, corpus: [[ScenarioStep]], _ random: inout ExplorationRandom)
        -> [ScenarioStep]
    {
        let delegate = makeDelegate()
        return withExtendedLifetime(delegate) {
            let root = scenario.root.build()
            ScenarioRunner.adopt(delegate, in: root, catalog: scenario.catalog)
            var steps: [ScenarioStep] = []
            var given = options.start
            if options.guided, !corpus.isEmpty, random.chance(0.5) {
                // At most half the run comes from the parent: the rest explores on from where it got.
                let parent = corpus.randomElement(using: &random)!
                let most = min(parent.count, options.start.count + options.stepsPerRun / 2)
                given = Array(parent.prefix(Int.random(in: min(options.start.count, most)...most, using: &random)))
            }
            for step in given {
                switch take(step, on: root) {
                case .taken: steps.append(step)
                case .invalid: continue
                case .refused: return steps
                }
            }
            let target = options.start.count + options.stepsPerRun
            var attempts = 0
            while steps.count < target, attempts < 20 * options.stepsPerRun {
                attempts += 1
                guard let step = randomStep(in: root, &random) else { continue }
                switch take(step, on: root) {
                case .taken: steps.append(step)
                case .invalid: continue
                case .refused: return steps
                }
            }
            return steps
        }
    }

    private enum Taken {
        case taken
        /// It cannot run in the current state: not performed.
        case invalid
        /// An input it caused was refused for nesting too deep: performed, and the run ends before it.
        case refused
    }

    private func take(_ step: ScenarioStep, on root: View) -> Taken {
        guard (try? step.target(in: root, at: "")) != nil else { return .invalid }
        do {
            _ = try ScenarioRunner.drive(root, steps: [step], invalid: .stop)
            return .taken
        } catch {
            return .refused
        }
    }

    /// A step drawn among every widget's generators, weighted; nil when the one drawn declined.
    private func randomStep(in root: View, _ random: inout ExplorationRandom) -> ScenarioStep? {
        var offers: [(view: View, generator: InputGenerator)] = []
        root.visit { view in
            for generator in generators where generator.accepts(view) { offers.append((view, generator)) }
        }
        let weights = offers.map { $0.generator.weight * (options.weights[$0.generator.input] ?? 1) }
        guard let index = random.index(weightedBy: weights) else { return nil }
        let (view, generator) = offers[index]
        guard let arguments = generator.generate(view, &random),
            let definition = scenario.catalog.input(named: generator.input, for: view)
        else { return nil }
        return ScenarioStep(definition: definition, widget: view.path, arguments: arguments)
    }
}
