import AuditCore
import AuditExamples
import Foundation

/// What one exploration of the checkout reached: `checkout.v1` against itself, so no run diverges
/// and every run is driven with both delegates.
struct ExplorationFigures {
    var stepsPerSecond: Double
    /// Callbacks both delegates were asked, per second.
    var callbacksPerSecond: Double
    var branches: Int
    /// The runs that reached new branches, kept to be recorded for the baseline.
    var result: Explorer.Result
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
    return ExplorationFigures(
        stepsPerSecond: Double(result.steps) / seconds, callbacksPerSecond: Double(result.callbacks) / seconds,
        branches: result.branches, result: result)
}

/// The baseline of explore's rate: runs of the same kind replayed in interaction mode. The runs an
/// exploration kept (those that reached new branches) are recorded with `checkout.v1` into a fresh
/// database, then replayed against `checkout.v1` as `replay --all` does (one job: load, drive under
/// a recorder, store in batches, compare); callbacks of the recorded runs per second of replaying.
@MainActor func measureReplayOfRuns(_ result: Explorer.Result) throws -> Double {
    let database = freshDatabase()
    let sessions = try result.saveCorpus(
        of: try Examples.checkout(), delegate: "checkout.v1", registry: .examples, databasePath: database)
    let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
    var identical = 0
    let start = now()
    replayer.replayAll(
        sessions.map(\.session), jobs: 1, delegate: "checkout.v1", mode: .interaction, outcome: \.identical
    ) { _, outcome in
        if (try? outcome.get()) == true { identical += 1 }
    }
    let seconds = Double(now() - start) / 1e9
    precondition(identical == sessions.count, "a replay against the recording delegate is identical")
    return Double(sessions.reduce(0) { $0 + $1.callbacks }) / seconds
}

/// Exploration: throughput (callbacks both delegates were asked per second, against replaying
/// runs of the same kind in interaction mode), and the answer branches reached after 1,000 and
/// 10,000 steps, guided against unguided, each the median over seeds.
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
        guard steps == (quick ? 1_000 : 10_000) else { continue }
        // The rate of the default, unguided exploration.
        let replayed = try unguided.map { try measureReplayOfRuns($0.result) }
        add(
            "explore: callbacks of both delegates", "callbacks/s", unguided.map(\.callbacksPerSecond),
            baseline: replayed, baselineName: "replay in interaction mode of the runs explore kept", paired: true,
            goal: "≥ \(exploreRatio) × baseline", met: atLeast(exploreRatio))
        add(
            "explore: throughput, both delegates driven", "steps/s", unguided.map(\.stepsPerSecond), goal: "reported")
    }
}
