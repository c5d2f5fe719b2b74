import AuditCore
import AuditExamples
import Foundation

/// The mutant benchmark's sizes: which one-line mutants of `checkout.v1` (`CheckoutMutant`), which
/// seeds, the most runs explore may take to find a mutant, and the runs that grow a corpus.
struct MutantBudget {
    /// The mutants each method should catch.
    var mutations: [CheckoutMutant.Mutation]
    /// Mutants that audit like `checkout.v1` on every input: any method that reports one is wrong.
    var equivalents: [CheckoutMutant.Mutation]
    var seeds: [UInt64]
    /// The most runs explore takes per mutant, seed and mode; a mutant not found by then is a miss,
    /// and counts as `cap + 1` in a sum of runs-to-find.
    var cap: Int
    /// Runs of `checkout.v1` explored against itself to grow each seed's corpus; an equivalent
    /// mutant is explored (guided) for as many.
    var corpusRuns: Int

    static let full = MutantBudget(
        mutations: CheckoutMutant.Mutation.allCases.filter { !$0.isEquivalent },
        equivalents: CheckoutMutant.Mutation.allCases.filter(\.isEquivalent), seeds: [1, 2, 3], cap: 1_000,
        corpusRuns: 200)

    /// `--quick`: three mutants explore finds in its first runs and one equivalent, one seed, small caps.
    static let quick = MutantBudget(
        mutations: [.pickupVetoed, .giftCardSelectable, .noSnap], equivalents: [.rowCopied], seeds: [1], cap: 20,
        corpusRuns: 8)
}

/// Where one mutant was caught: by replay of the shipped session in each mode, by each seed's grown
/// corpus, and the run of each seed's exploration, guided and unguided, that found it (nil: none
/// within the cap; an equivalent mutant is explored guided only).
struct MutantOutcome {
    let mutation: CheckoutMutant.Mutation
    var shippedInteraction = false
    var shippedIsolated = false
    var corpus: [Bool] = []
    var guided: [Int?] = []
    var unguided: [Int?] = []

    /// Whether any method reported the mutant.
    var caught: Bool {
        shippedInteraction || shippedIsolated || corpus.contains(true) || (guided + unguided).contains { $0 != nil }
    }

    /// One line of the per-mutant table: each column as wide as `MutantOutcome.header`'s.
    var row: String {
        func mark(_ caught: Bool) -> String { caught ? "yes" : "-" }
        // An equivalent mutant not found is as it should be: no miss.
        func found(_ run: Int?) -> String { run.map(String.init) ?? (mutation.isEquivalent ? "-" : "miss") }
        let columns = [
            mutation.rawValue + (mutation.isEquivalent ? " (eq.)" : ""),
            "\(mark(shippedInteraction))/\(mark(shippedIsolated))",
            corpus.map(mark).joined(separator: " "), guided.map(found).joined(separator: " "),
            unguided.map(found).joined(separator: " "),
        ]
        return zip(columns, Self.widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            .joined(separator: " | ")
    }

    static let widths = [28, 17, 14, 16, 16]

    static func header(seeds: [UInt64]) -> String {
        let perSeed = seeds.map(String.init).joined(separator: " ")
        let columns = [
            "mutant", "shipped int./iso.", "corpus s\(perSeed)", "guided s\(perSeed)", "unguided s\(perSeed)",
        ]
        return zip(columns, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            .joined(separator: " | ")
    }
}

/// Whether replaying `session` of `database` against the mutant, in `mode`, differs from the recording.
func replayDiffers(
    _ session: Int64, in database: String, mutation: CheckoutMutant.Mutation, mode: ReplayMode
) throws -> Bool {
    try !Replayer(databasePath: database, registry: CheckoutMutant.registry, catalog: .builtIn)
        .replay(session: session, delegate: mutation.delegateName, mode: mode).identical
}

/// Explore's options in this benchmark: runs of 20 steps, one job (runs-to-find does not depend on
/// jobs, and one keeps the wall times comparable), one minimizer test (what is measured is the run
/// that diverged, not its reproducer).
func mutantExploreOptions(seed: UInt64, runs: Int, guided: Bool) -> Explorer.Options {
    var options = Explorer.Options()
    options.seed = seed
    options.runs = runs
    options.guided = guided
    options.stepsPerRun = 20
    options.jobs = 1
    options.maximumMinimizerTests = 1
    return options
}

/// The run of exploring `checkout.v1` against the mutant with `seed` that diverged, or nil when
/// none did within `cap` runs.
func runsToFind(
    _ mutation: CheckoutMutant.Mutation, seed: UInt64, guided: Bool, cap: Int, scenario: Scenario
) throws -> Int? {
    try Explorer(
        scenario: scenario, registry: CheckoutMutant.registry,
        options: mutantExploreOptions(seed: seed, runs: cap, guided: guided)
    )
    .explore(delegate: "checkout.v1", candidate: mutation.delegateName).finding?.run
}

/// A grown corpus: `checkout.v1` explored against itself for `runs` runs with `seed` (unguided, as
/// `explore --save-corpus` does by default), and the runs that reached new argument classes saved
/// into `database`.
/// Returns their sessions.
func grownCorpus(seed: UInt64, runs: Int, scenario: Scenario, database: String) throws -> [Int64] {
    let result = try Explorer(
        scenario: scenario, registry: CheckoutMutant.registry,
        options: mutantExploreOptions(seed: seed, runs: runs, guided: false)
    )
    .explore(delegate: "checkout.v1", candidate: "checkout.v1")
    precondition(result.finding == nil, "checkout.v1 diverges from itself")
    return try result.saveCorpus(
        of: scenario, delegate: "checkout.v1", registry: CheckoutMutant.registry, databasePath: database
    )
    .map(\.session)
}

/// The mutant benchmark: for each mutant of `checkout.v1`, whether replaying the shipped checkout
/// session catches it (interaction and isolated mode), whether replaying each seed's grown corpus
/// catches it (interaction mode: any session that differs), and the runs explore takes to find it
/// per seed, guided and unguided. Prints the per-mutant table to standard error as it goes, and
/// adds the counts and the summed runs-to-find (guided against unguided) to the table.
@MainActor func benchmarkMutants(quick: Bool) throws {
    log("mutants…")
    let budget = quick ? MutantBudget.quick : .full
    let scenario = try Examples.checkout()
    let shipped = freshDatabase()
    let recording = try ScenarioRunner.record(
        scenario, delegate: "checkout.v1", registry: CheckoutMutant.registry, databasePath: shipped)
    var corpora: [(database: String, sessions: [Int64])] = []
    for seed in budget.seeds {
        let database = freshDatabase()
        corpora.append(
            (database, try grownCorpus(seed: seed, runs: budget.corpusRuns, scenario: scenario, database: database)))
    }
    log("  corpus sessions grown in \(budget.corpusRuns) runs, per seed: \(corpora.map(\.sessions.count))")
    log("  explore: at most \(budget.cap) runs of 20 steps (a miss counts \(budget.cap + 1)), jobs 1")
    log("  " + MutantOutcome.header(seeds: budget.seeds))
    var outcomes: [MutantOutcome] = []
    for mutation in budget.mutations + budget.equivalents {
        var outcome = MutantOutcome(mutation: mutation)
        outcome.shippedInteraction = try replayDiffers(
            recording.session, in: shipped, mutation: mutation, mode: .interaction)
        outcome.shippedIsolated = try replayDiffers(recording.session, in: shipped, mutation: mutation, mode: .isolated)
        for corpus in corpora {
            outcome.corpus.append(
                try corpus.sessions.contains {
                    try replayDiffers($0, in: corpus.database, mutation: mutation, mode: .interaction)
                })
        }
        for seed in budget.seeds {
            if mutation.isEquivalent {
                outcome.guided.append(
                    try runsToFind(mutation, seed: seed, guided: true, cap: budget.corpusRuns, scenario: scenario))
            } else {
                outcome.guided.append(
                    try runsToFind(mutation, seed: seed, guided: true, cap: budget.cap, scenario: scenario))
                outcome.unguided.append(
                    try runsToFind(mutation, seed: seed, guided: false, cap: budget.cap, scenario: scenario))
            }
        }
        log("  " + outcome.row)
        outcomes.append(outcome)
    }
    let mutants = outcomes.filter { !$0.mutation.isEquivalent }
    let unit = "of \(mutants.count)"
    func count(_ caught: (MutantOutcome) -> Bool) -> [Double] { [Double(mutants.filter(caught).count)] }
    let shippedCaught = count(\.shippedInteraction)
    add("mutants: caught by replay of the shipped session, interaction", unit, shippedCaught, goal: "reported")
    add("mutants: caught by replay of the shipped session, isolated", unit, count(\.shippedIsolated), goal: "reported")
    for (index, seed) in budget.seeds.enumerated() {
        add(
            "mutants: caught by replay of the corpus grown in \(budget.corpusRuns) runs, seed \(seed)", unit,
            count { $0.corpus[index] }, baseline: shippedCaught,
            baselineName: "replay of the shipped session, interaction", goal: "reported")
    }
    add(
        "mutants: corpus sessions grown in \(budget.corpusRuns) runs", "sessions",
        corpora.map { Double($0.sessions.count) }, goal: "reported (median over seeds)")
    for (index, seed) in budget.seeds.enumerated() {
        add(
            "mutants: found by explore guided within \(budget.cap) runs, seed \(seed)", unit,
            count { $0.guided[index] != nil }, baseline: count { $0.unguided[index] != nil },
            baselineName: "unguided, same seed", goal: "reported")
    }
    func summed(_ runs: (MutantOutcome) -> [Int?]) -> [Double] {
        [Double(mutants.flatMap(runs).map { $0 ?? budget.cap + 1 }.reduce(0, +))]
    }
    let seedList =
        (budget.seeds.count == 1 ? "seed " : "seeds ") + budget.seeds.map(String.init).joined(separator: ", ")
    add(
        "mutants: summed runs-to-find guided, \(seedList) (a miss counts \(budget.cap + 1))", "runs",
        summed(\.guided), baseline: summed(\.unguided), baselineName: "unguided, same seeds",
        goal: "reported (≤ 0.5 × was not met: guidance is off by default)")
    let reported = outcomes.filter { $0.mutation.isEquivalent && $0.caught }
    add(
        "mutants: equivalent mutants reported by any method, of \(budget.equivalents.count)", "mutants",
        [Double(reported.count)], goal: "= 0", met: { value, _ in value == 0 })
    for (index, seed) in budget.seeds.enumerated() {
        let missed = mutants.filter { $0.guided[index] == nil || $0.unguided[index] == nil }.map {
            "\($0.mutation.rawValue)\($0.guided[index] == nil ? " guided" : "")\($0.unguided[index] == nil ? " unguided" : "")"
        }
        if !missed.isEmpty { log("  explore missed, seed \(seed): \(missed.joined(separator: "; "))") }
    }
}
