import AuditCore
import AuditExamples
import Foundation

/// What one exploration of the checkout reached: `checkout.v1` against itself, so no run diverges
/// and every run is recorded with both delegates.
struct ExplorationFigures {
    var stepsPerSecond: Double
    var branches: Int
}

/// Explores the shipped checkout for `steps` steps (runs of 20) with `seed`, guided or not.
func measureExploration(steps: Int, seed: UInt64, guided: Bool) throws -> ExplorationFigures {
    var options = Explorer.Options()
    options.seed = seed
    options.stepsPerRun = 20
    options.runs = steps / 20
    options.guided = guided
    let start = now()
    let result = try Explorer(scenario: try Examples.checkout(), registry: .examples, options: options)
        .explore(delegate: "checkout.v1", candidate: "checkout.v1")
    let seconds = Double(now() - start) / 1e9
    return ExplorationFigures(stepsPerSecond: Double(result.steps) / seconds, branches: result.branches)
}

/// Exploration: throughput (steps per second, both delegates driven and recorded, the runs
/// diffed) and the answer branches reached after 1,000 and 10,000 steps, guided against unguided,
/// each the median over seeds.
@MainActor func benchmarkExploration(quick: Bool) throws {
    log("explore…")
    let seeds: [UInt64] = quick ? [1] : [1, 2, 3]
    for steps in quick ? [200, 1_000] : [1_000, 10_000] {
        let guided = try seeds.map { try measureExploration(steps: steps, seed: $0, guided: true) }
        let unguided = try seeds.map { try measureExploration(steps: steps, seed: $0, guided: false) }
        add(
            "explore: answer branches reached after \(steps) steps", "branches", guided.map { Double($0.branches) },
            baseline: unguided.map { Double($0.branches) }, baselineName: "unguided, same seeds",
            goal: "reported")
        if steps == (quick ? 1_000 : 10_000) {
            add(
                "explore: throughput, both delegates driven", "steps/s", guided.map(\.stepsPerSecond),
                goal: "reported")
        }
    }
}
