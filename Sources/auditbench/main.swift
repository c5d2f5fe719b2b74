// auditbench: measures every performance figure of auditctl against a baseline measured in the
// same run, prints a table and writes the figures as JSON. Every goal is a ratio to its baseline,
// judged PASS or FAIL; an absolute figure is only reported. `--quick` is a smoke run with small
// sizes (what CI runs); it never fails on a time.
import AuditCore
import AuditExamples
import Foundation

// As in `auditctl` (every command but `query`): the baselines measured in this process run with
// SQLite configured as the commands they are compared with.
AuditStore.turnOffSQLiteMemoryStatistics()

let arguments = CommandLine.arguments
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
let quick = arguments.contains("--quick")
let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? (quick ? 1 : 5)
let jsonPath = arguments.firstIndex(of: "--json").map { arguments[$0 + 1] } ?? "auditbench.json"
let scale = quick ? 0.01 : 1.0
/// `--only hot,throughput,…`: run only these sections (hot, throughput, replay, diff, query, explore,
/// mutants, text, corpus).
let only = arguments.firstIndex(of: "--only").map { Set(arguments[$0 + 1].split(separator: ",").map(String.init)) }
func wanted(_ section: String) -> Bool { only?.contains(section) ?? true }
func sized(_ full: Int) -> Int { max(1_000, Int(Double(full) * scale)) }
/// A goal met when the figure is at least `factor` times its baseline.
func atLeast(_ factor: Double) -> (Double, Double?) -> Bool { { value, base in value >= factor * (base ?? .infinity) } }
/// A goal met when the figure is at most `factor` times its baseline.
func atMost(_ factor: Double) -> (Double, Double?) -> Bool { { value, base in value <= factor * (base ?? 0) } }

// The goals, each a ratio to the figure's same-run baseline (Performance.md says how each line was
// drawn from the measured distribution). The corpus section's goals are written where they are judged.
/// Hot path: time an audited call adds (p50, p99), as a multiple of inserting one row by hand.
let hotP50 = 0.2
let hotP99 = 0.5
/// Size: the events table per event, as a multiple of the naive peer's JSON row.
let sizeRatio = 0.4
/// Isolated replay, end to end, as a multiple of SQLite copying the session's rows.
let replayRatio = 0.4
/// Diff: its time as a multiple of SQLite reading both sessions; its peak memory as a multiple of
/// the database file.
let diffRatio = 3.0
let diffMemoryRatio = 3.0
/// Query: through the `timeline` view as a multiple of the same rows read from `events`.
let queryRatio = 2.5
/// `replay --all` of a large corpus: peak memory as a multiple of one session's replay.
let corpusMemoryRatio = 3.0
/// Explore: callbacks of both delegates per second, as a multiple of replaying runs of the same kind
/// in interaction mode.
let exploreRatio = 0.5

// The diff and corpus sections run the `auditctl` built beside this benchmark: say so before any run.
let auditctlBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().appending(path: "auditctl").path
if (wanted("diff") || wanted("corpus")) && !FileManager.default.isExecutableFile(atPath: auditctlBinary) {
    log(
        "auditbench: \(auditctlBinary) not found: build it first (swift build\(quick ? "" : " -c release") --product auditctl)"
    )
    exit(2)
}
if (wanted("diff") || wanted("corpus")) && !FileManager.default.isExecutableFile(atPath: timeBinary) {
    log("auditbench: \(timeBinary) not found: install GNU time, which reads the commands' peak memory")
    exit(2)
}

let folder = temporaryFolder("run")
defer { try? FileManager.default.removeItem(at: folder) }
var databases = 0
@MainActor func freshDatabase() -> String {
    databases += 1
    return folder.appending(path: "bench-\(databases).sqlite").path
}

/// The wall time of `auditctl` run with `arguments(database)`, which must succeed (`what` says what
/// failed otherwise); the database is removed after.
@MainActor func spawnInto(
    _ what: String, _ database: String = freshDatabase(), _ arguments: (String) -> [String]
) -> Double {
    let run = spawnAuditctl(arguments(database))
    precondition(run.status == 0, what)
    discard(database)
    return run.seconds
}

var figures: [Figure] = []
@MainActor func add(
    _ name: String, _ unit: String, _ values: [Double], baseline: [Double]? = nil, baselineName: String? = nil,
    paired: Bool = false, goal: String, met: ((Double, Double?) -> Bool)? = nil
) {
    let value = median(values)
    let base = baseline.map(median)
    // Measured in pairs (each value right after its baseline): the ratio is the median of theirs,
    // and the goal is judged on it.
    let pairs = paired ? baseline.map { zip(values, $0).map(/) } : nil
    let judged = pairs.map { (median($0), 1.0) } ?? (value, base)
    figures.append(
        Figure(
            name: name, unit: unit, value: value, minimum: values.min() ?? 0, maximum: values.max() ?? 0,
            baseline: base,
            baselineName: baselineName, goal: goal, met: met.map { $0(judged.0, judged.1) }, pairs: pairs))
    log("  \(name): \(String(format: "%.4g", value)) \(unit)")
}
let started = now()

// 1. Hot path
if wanted("hot") {
    log("hot path…")
    var hot: [(p50: Double, p99: Double, directP50: Double)] = []
    // Each run right after its baseline: what inserting one row costs by hand (the raw C API, one
    // prepared statement, one transaction), in nanoseconds, on the machine of that moment.
    var rowCost: [Double] = []
    for _ in 0..<runs {
        rowCost.append(1e9 / (try measureRawBaseline(rows: sized(200_000), database: freshDatabase())))
        hot.append(try measureHotPath(calls: sized(200_000), database: freshDatabase()))
    }
    add(
        "hot path: added p50", "ns", hot.map(\.p50), baseline: rowCost, baselineName: "raw C insert of one row",
        paired: true, goal: "≤ \(hotP50) × baseline", met: atMost(hotP50))
    add(
        "hot path: added p99", "ns", hot.map(\.p99), baseline: rowCost, baselineName: "raw C insert of one row",
        paired: true, goal: "≤ \(hotP99) × baseline", met: atMost(hotP99))
    add("hot path: direct call p50", "ns", hot.map(\.directP50), goal: "reported (the clock's floor)")
    var later: [(synchronous: Double, later: Double)] = []
    for _ in 0..<runs { later.append(try measureLaterHotPath(calls: sized(100_000), database: freshDatabase())) }
    add(
        "hot path: handler callback added p50", "ns", later.map(\.later), baseline: later.map(\.synchronous),
        baselineName: "a synchronous callback's added p50, same run", paired: true, goal: "≤ 2 × baseline",
        met: atMost(2))
}

// 2. Throughput against the raw C API, 3. the naive peer, 4. size
if wanted("throughput") {
    log("throughput…")
    let calls = sized(1_000_000)
    var audited: [Double] = []
    var raw: [Double] = []
    var sizes: [(table: Double, file: Double)] = []
    for _ in 0..<runs {
        let database = freshDatabase()
        audited.append(try measureAudited(calls: calls, database: database))
        sizes.append(measureSize(database: database))
        raw.append(try measureRawBaseline(rows: calls, database: freshDatabase()))
    }
    add(
        "throughput: audited callbacks committed", "events/s", audited, baseline: raw,
        baselineName: "raw C API, one statement, one transaction", goal: "≥ 0.8 × baseline",
        met: atLeast(0.8))
    let naive = try (0..<max(1, runs / 2)).map { _ in
        try measureNaive(events: sized(20_000), database: freshDatabase())
    }
    add(
        "naive peer: JSONEncoder + autocommit INSERT per event", "events/s", naive.map(\.rate), baseline: audited,
        baselineName: "audited (above)", goal: "reported")

    // 4. Size
    add(
        "size: events table per event", "bytes", sizes.map(\.table), baseline: naive.map(\.bytes),
        baselineName: "the naive peer's table per event", goal: "≤ \(sizeRatio) × baseline", met: atMost(sizeRatio))
    add("size: whole file per event", "bytes", sizes.map(\.file), goal: "reported")
}

// 5. Replay
if wanted("replay") {
    log("replay…")
    var replays: [(isolated: Double, interaction: Double, isolatedRun: Double, copyFloor: Double, callbacks: Int)] =
        []
    for _ in 0..<max(1, runs / 2) {
        replays.append(try measureReplay(steps: sized(100_000), database: freshDatabase()))
    }
    add(
        "replay isolated", "callbacks/s", replays.map(\.isolated), baseline: replays.map(\.copyFloor),
        baselineName: "SQLite copying the session's rows (INSERT … SELECT, one transaction)", paired: true,
        goal: "≥ \(replayRatio) × baseline", met: atLeast(replayRatio))
    add(
        "replay isolated: asking phase alone", "callbacks/s", replays.map(\.isolatedRun),
        goal: "reported (end to end is the goal)")
    add("replay interaction", "callbacks/s", replays.map(\.interaction), goal: "reported")
}

// 6. Diff
if wanted("diff") {
    log("diff…")
    let diffDatabase = freshDatabase()
    let diffCalls = sized(1_000_000)
    let flips = Set((0..<20).map { ($0 + 1) * diffCalls / 21 })
    let sessionA = try recordProbeSession(calls: diffCalls, database: diffDatabase, delegate: EvenOnly())
    let sessionB = try recordProbeSession(
        calls: diffCalls, database: diffDatabase, delegate: EvenOnlyExcept(flipped: flips))
    // The two sessions' bytes on disk, checkpointed into the file: the memory figure's baseline.
    let diffMB = measureSize(database: diffDatabase).file * Double(2 * diffCalls) / 1_048_576
    var diffRuns: [(seconds: Double, peakMB: Double, status: Int32, output: String)] = []
    var scans: [Double] = []
    for _ in 0..<runs {
        scans.append(try measureScan(database: diffDatabase, sessions: [sessionA, sessionB]))
        diffRuns.append(
            spawnAuditctl(
                ["diff", String(sessionA), String(sessionB), "--db", diffDatabase, "--format", "json"], output: true))
    }
    precondition(diffRuns.allSatisfy { $0.status == 1 }, "the diff finds the differences")
    precondition(diffRuns[0].output.contains("\"veto_changed\":20"), "exactly the 20 planted differences")
    add(
        "diff: 2 × \(diffCalls) events, 20 differences", "s", diffRuns.map(\.seconds), baseline: scans,
        baselineName: "SQLite reading both sessions' rows (raw C API)", paired: true,
        goal: "≤ \(diffRatio) × baseline", met: atMost(diffRatio))
    add(
        "diff: peak resident memory", "MB", diffRuns.map(\.peakMB), baseline: diffRuns.map { _ in diffMB },
        baselineName: "the database file", goal: "≤ \(diffMemoryRatio) × baseline", met: atMost(diffMemoryRatio))
}

// 7. Query
var plan = ""
if wanted("query") {
    log("query…")
    let queryDatabase = freshDatabase()
    let querySessions = 10
    try buildLargeDatabase(queryDatabase, sessions: querySessions, perSession: sized(1_000_000))
    let query = try measureQuery(queryDatabase, session: querySessions / 2)
    add(
        "query: vetoes of one widget in one session, \(querySessions * sized(1_000_000)) events", "ms",
        query.milliseconds, baseline: query.baseline,
        baselineName: "the same rows from the events table (raw C API, same index)", paired: true,
        goal: "≤ \(queryRatio) × baseline", met: atMost(queryRatio))
    plan = query.plan
    log("query plan:\n\(plan)")
}

// Exploration, guided against unguided (Exploration.swift)
if wanted("explore") { try benchmarkExploration(quick: quick) }

// The mutant benchmark: what replay, a grown corpus and explore catch (Mutants.swift)
if wanted("mutants") { try benchmarkMutants(quick: quick) }

// 8. Text edits: what a typed character stores, which must not grow with the number of edits
if wanted("text") {
    log("text…")
    let counts = quick ? [1_000, 5_000] : [1_000, 10_000, 100_000]
    var perCharacter: [(table: Double, file: Double)] = []
    for count in counts {
        perCharacter.append(try measureTypedCharacters(edits: count, database: freshDatabase()))
        add(
            "text: bytes per typed character, \(count) edits", "bytes", [perCharacter.last!.table],
            goal: "reported (events table)")
    }
    add(
        "text: whole file per typed character, \(counts.last!) edits", "bytes", [perCharacter.last!.file],
        goal: "reported")
    add(
        "text: bytes per typed character, \(counts.last!) ÷ \(counts.first!) edits", "×",
        [perCharacter.last!.table / perCharacter.first!.table], goal: "≤ 1.1 (flat)", met: { value, _ in value <= 1.1 })
}

// 9. Corpora: replay --all across jobs; merge and import against SQLite's own copy of the rows
if wanted("corpus") {
    log("corpus…")
    let ticksBefore = cpuTicks()
    let count = quick ? 50 : 1_000
    var jobRates: [Int: [Double]] = [1: [], 2: []]
    // The same per-session measure on sessions of the large session's own content (100 random
    // segment taps each), so that the ratio shows what a session costs and not the checkout's
    // costlier mix of inputs.
    var tapRates: [Double] = []
    var single: [Double] = []
    var copies: [Double] = []
    var commits: [Double] = []
    var merges: [Double] = []
    var renumberedMerges: [Double] = []
    var imports: [Double] = []
    var importsBesideOne: [Double] = []
    /// A new database holding one recorded session: merged or imported into, it is written
    /// through the WAL, as a database in use is (a new one is written past it).
    func databaseHoldingOne() throws -> String {
        let holding = freshDatabase()
        _ = try ScenarioRunner.record(
            try Examples.checkout(), delegate: "checkout.v1", registry: .examples, databasePath: holding)
        return holding
    }
    for _ in 0..<max(1, runs / 2) {
        let corpus = freshDatabase()
        let perSession = try buildCorpus(sessions: count, database: corpus)
        let events = Double(count * perSession.events)
        let exported = folder.appending(path: "corpus-\(databases).jsonl").path
        precondition(spawnAuditctl(["export", "--db", corpus, "--output", exported]).status == 0, "export")
        // Each figure against its baseline in pairs, one right after the other, so that a pair
        // sees the same machine (these are shared, and their speed drifts).
        for _ in 0..<(quick ? 1 : 3) {
            let copyDatabase = freshDatabase()
            let copy = try measureDatabaseCopy(from: corpus, into: copyDatabase)
            discard(copyDatabase)
            copies.append(events / copy.closed)
            commits.append(events / copy.committed)
            merges.append(events / spawnInto("merge") { ["merge", corpus, "--into", $0] })
            // Into a database that already holds a session: every session renumbered, row by row.
            renumberedMerges.append(
                events / spawnInto("merge", try databaseHoldingOne()) { ["merge", corpus, "--into", $0] })
            imports.append(events / spawnInto("import") { ["import", exported, "--db", $0] })
            importsBesideOne.append(
                events / spawnInto("import", try databaseHoldingOne()) { ["import", exported, "--db", $0] })
        }
        // Each on a copy of the corpus as built (the second run must not find the first one's
        // candidates), the two in turn first. Five pairs a corpus: single pairs range from 1.3 to
        // 2.2 on these shared machines, and the median of fifteen moves less than that of nine.
        for pair in 0..<(quick ? 1 : 5) {
            for jobs in pair % 2 == 0 ? [1, 2] : [2, 1] {
                let copy = freshDatabase()
                try FileManager.default.copyItem(atPath: corpus, toPath: copy)
                let seconds = spawnInto("every session of the corpus replays identically", copy) {
                    ["replay", "--all", "--delegate", "checkout.v1", "--jobs", "\(jobs)", "--db", $0]
                }
                jobRates[jobs]!.append(Double(count * perSession.callbacks) / seconds)
            }
        }
        let taps = freshDatabase()
        let perTapSession = try buildCorpus(sessions: count, database: taps, of: try largeCheckout(steps: 100))
        let tapRun = spawnAuditctl(["replay", "--all", "--delegate", "checkout.v1", "--jobs", "1", "--db", taps])
        precondition(tapRun.status == 0, "every session of the corpus replays identically")
        tapRates.append(Double(count * perTapSession.callbacks) / tapRun.seconds)
        single.append(try measureReplay(steps: sized(100_000), database: freshDatabase()).interaction)
    }
    add(
        "replay --all --jobs 1, \(count) sessions", "callbacks/s", jobRates[1]!, baseline: single,
        baselineName: "one large session, interaction mode", goal: "≥ 0.7 × baseline",
        met: atLeast(0.7))
    add(
        "replay --all --jobs 1, \(count) sessions of 100 segment taps", "callbacks/s", tapRates, baseline: single,
        baselineName: "one large session of segment taps (above)", goal: "reported (like for like)")
    add(
        "replay --all --jobs 2, \(count) sessions", "callbacks/s", jobRates[2]!, baseline: jobRates[1]!,
        baselineName: "--jobs 1 (above)", paired: true, goal: "≥ 1.6 × baseline",
        met: atLeast(1.6))
    add(
        "merge, \(count) sessions", "events/s", merges, baseline: copies,
        baselineName: "SQLite INSERT … SELECT of the same rows, one transaction, until closed", paired: true,
        goal: "≥ 0.5 × baseline",
        met: atLeast(0.5))
    add(
        "merge, \(count) sessions, into a database holding one", "events/s", renumberedMerges, baseline: copies,
        baselineName: "the same copy", goal: "reported (renumbered)")
    add(
        "import, \(count) sessions", "events/s", imports, baseline: copies, baselineName: "the same copy",
        paired: true, goal: "≥ 0.5 × baseline", met: atLeast(0.5))
    add(
        "import, \(count) sessions, into a database holding one", "events/s", importsBesideOne, baseline: copies,
        baselineName: "the same copy", paired: true, goal: "reported (through the WAL)")
    add(
        "import, \(count) sessions, against the copy until COMMIT", "events/s", imports, baseline: commits,
        baselineName: "the same copy, timed until COMMIT (before the checkpoint at close)", paired: true,
        goal: "reported (the baseline's old end)")
    // How much of the machine the host gave to other guests meanwhile: these ratios need both
    // cores, and read low when it takes one.
    if let before = ticksBefore, let after = cpuTicks(), after.total > before.total {
        add(
            "CPU time the host took for other guests during the runs above", "%",
            [100 * Double(after.stolen - before.stolen) / Double(after.total - before.total)],
            goal: "reported (steal, /proc/stat)")
    }
    let large = quick ? 100 : 10_000
    let corpus = freshDatabase()
    _ = try buildCorpus(sessions: large, database: corpus)
    // Its baseline: the same command replaying the corpus's first session alone.
    let one = spawnAuditctl(["replay", "--session", "1", "--delegate", "checkout.v1", "--db", corpus])
    precondition(one.status == 0, "the session replays identically")
    let run = spawnAuditctl(["replay", "--all", "--delegate", "checkout.v1", "--jobs", "2", "--db", corpus])
    precondition(run.status == 0, "every session of the corpus replays identically")
    add(
        "replay --all --jobs 2, \(large) sessions: peak resident memory", "MB", [run.peakMB], baseline: [one.peakMB],
        baselineName: "replay of one session", goal: "≤ \(corpusMemoryRatio) × baseline",
        met: atMost(corpusMemoryRatio))
}

// 10. The scheduler of replay --all: the standard policy against it with each piece turned off, on
// one job and on two, in turns (only when named: it answers what each piece pays for, once).
if only?.contains("scheduler") == true {
    log("scheduler…")
    let corpus = freshDatabase()
    let count = quick ? 50 : 1_000
    let perSession = try buildCorpus(sessions: count, database: corpus)
    var rates: [String: [Double]] = [:]
    for round in 0..<runs {
        for jobs in [1, 2] {
            let variants = round % 2 == 0 ? SchedulerVariant.all : SchedulerVariant.all.reversed()
            for variant in variants {
                let rate = try schedulerRate(
                    corpus: corpus, callbacks: perSession.callbacks, jobs: jobs, policy: variant.policy)
                rates["\(jobs) \(variant.name)", default: []].append(rate)
            }
        }
    }
    for jobs in [1, 2] {
        for variant in SchedulerVariant.all {
            add(
                "replayAll --jobs \(jobs), \(count) sessions: \(variant.name)", "callbacks/s",
                rates["\(jobs) \(variant.name)"]!, baseline: rates["\(jobs) standard"]!,
                baselineName: "the standard policy", paired: true, goal: "reported (what the piece pays for)")
        }
    }
}

// Report
let total = Double(now() - started) / 1e9
print(
    "auditbench\(quick ? " --quick" : ""): \(runs) run(s), medians (min–max); \(String(format: "%.0f", total)) s in all"
)
print("")
func cell(_ value: Double) -> String { value >= 1_000 ? String(format: "%.0f", value) : String(format: "%.4g", value) }
let header = ["figure", "value", "min–max", "baseline", "ratio", "goal", "verdict"]
var rows = [header]
for figure in figures {
    rows.append([
        figure.name, "\(cell(figure.value)) \(figure.unit)", "\(cell(figure.minimum))–\(cell(figure.maximum))",
        figure.baseline.map { "\(cell($0)) (\(figure.baselineName ?? ""))" } ?? "",
        figure.ratio.map { String(format: "%.2f", $0) }.map { ratio in
            figure.pairs.map { pairs in
                let range = String(format: "%.2f–%.2f", pairs.min()!, pairs.max()!)
                return "\(ratio) (\(pairs.count) pair\(pairs.count == 1 ? "" : "s"), \(range))"
            } ?? ratio
        } ?? "", figure.goal, figure.met.map { $0 ? "PASS" : "FAIL" } ?? "",
    ])
}
let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
for row in rows {
    print(
        row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | "))
}
print("")
let judged = figures.compactMap(\.met)
print(
    "goals: \(judged.filter { $0 }.count) PASS, \(judged.filter { !$0 }.count) FAIL\(quick ? " (--quick: smoke sizes, not a verdict)" : "")"
)
if !plan.isEmpty { print("query plan:\n\(plan)") }
let json =
    "{\"quick\":\(quick),\"runs\":\(runs),\"seconds\":\(String(format: "%.1f", total)),\"figures\":[\n"
    + figures.map(\.json).joined(separator: ",\n") + "\n]}\n"
try Data(json.utf8).write(to: URL(fileURLWithPath: jsonPath))
log("wrote \(jsonPath)")
