import AuditCore
import Foundation

extension Command {
    static let explore: Command = Command(
        name: "explore",
        summary: "drive two delegates with random valid inputs until they diverge, then minimize the run",
        arguments: "--scenario FILE --candidate NAME",
        options: [
            Options.scenario.withHelp(
                "the widget tree to explore (its steps are not used unless --start-with-steps)"),
            Options.delegate.withHelp("the reference delegate (default: the scenario's)"),
            Options.candidate, Options.seed, Options.steps, Options.runs, Options.time, Options.runsAtOnce,
            Options.weight, Options.startWithSteps, Options.guided, Options.unguided, Options.saveCorpus,
            Options.scenarioOutput.withHelp("write the minimal reproducer scenario here (default: standard output)"),
        ],
        positionals: 0...0, formats: [.text, .json],
        discussion: """
            Drives the scenario's widget tree with random valid inputs, each widget kind generating its
            own, under the delegate and the candidate alike, until the two diverge; then minimizes the run,
            writes it as a scenario and stores both sessions. Exit 1 on a divergence, 0 when none was found
            within the runs. The same seed gives the same runs.
            """,
        examples: { names in
            [
                "explore --scenario screen.json --candidate \(names.candidate)",
                "explore --scenario screen.json --delegate \(names.delegate) --candidate \(names.candidate) --seed 7 "
                    + "--output repro.json",
                "explore --scenario screen.json --candidate \(names.candidate) --runs 1000 --weight \(names.input)=0",
            ]
        }
    ) { invocation in
        let request = try ExploreRequest(invocation)
        let output = invocation.output
        let started = ContinuousClock.now
        let result = try Explorer(scenario: request.scenario, registry: invocation.registry, options: request.options)
            .explore(delegate: request.delegate, candidate: request.candidate) { runs, steps in
                output.progress("exploring: \(counted(runs, "run")), \(counted(steps, "step"))")
            }
        output.endProgress()
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        var corpus: [RecordingSummary] = []
        if invocation[Options.saveCorpus] {
            corpus = try result.saveCorpus(
                of: request.scenario, delegate: request.delegate, registry: invocation.registry,
                databasePath: invocation.databasePath)
        }
        let tried =
            "\(counted(result.runs, "run")) of up to \(counted(request.options.stepsPerRun, "step")) "
            + "(\(counted(result.steps, "step")) in all, seed \(request.options.seed)), "
            + "\(counted(result.branches, "answer branch", "answer branches")) reached"
            + (result.dropped > 0
                ? "; \(counted(result.dropped, "run")) dropped: the delegate answered differently when driven again"
                : "")
        // Printed last, on a terminal or not: how long exploring took, and how fast it ran.
        let perSecond = { (count: Int) in seconds > 0 ? Double(count) / seconds : 0 }
        let rate =
            String(format: "explored for %.1f s: %.1f runs/s, ", seconds, perSecond(result.runs))
            + "\(counted(result.callbacks, "callback")) asked of both delegates ("
            + String(format: "%.0f/s)", perSecond(result.callbacks))
        guard let found = result.finding else {
            if invocation.format == .json {
                output.line(
                    orderedJSON([
                        ("diverged", .bool(false)), ("runs", .int(result.runs)), ("steps", .int(result.steps)),
                        ("branches", .int(result.branches)), ("callbacks", .int(result.callbacks)),
                        ("dropped", .int(result.dropped)),
                        ("seconds", .double(seconds)),
                        ("corpus", .array(corpus.map { .int(Int($0.session)) })),
                    ]))
            } else {
                output.line("no divergence in \(tried)")
                if !corpus.isEmpty { output.line("stored the corpus: \(sessionList(corpus))") }
                output.line(rate)
            }
            return ExitStatus.success
        }
        let sessions = try found.record(
            delegate: request.delegate, candidate: request.candidate, registry: invocation.registry,
            catalog: invocation.catalog, databasePath: invocation.databasePath)
        let path = try invocation[Options.scenarioOutput]
        if let path {
            try OutputFile.write(Data((found.minimized.scenario + "\n").utf8), to: path, what: "the scenario")
        }
        let diff = try SessionDiffer(AuditStore(path: invocation.databasePath, access: .read))
            .diff(sessions.delegate.session, sessions.candidate.session)
        if invocation.format == .json {
            output.line(
                orderedJSON([
                    ("diverged", .bool(true)), ("run", .int(found.run)), ("runs", .int(result.runs)),
                    ("steps", .int(result.steps)), ("callbacks", .int(result.callbacks)),
                    ("seconds", .double(seconds)), ("run_steps", .int(found.steps.count)),
                    ("minimal", .int(found.minimized.steps.count)), ("divergence", .string(found.signature)),
                    (
                        "sessions",
                        .array([.int(Int(sessions.delegate.session)), .int(Int(sessions.candidate.session))])
                    ),
                    ("corpus", .array(corpus.map { .int(Int($0.session)) })),
                    ("scenario", try AuditValue(json: found.minimized.scenario)),
                    ("differences", .array(diff.differences.map(DifferenceOutput.json))),
                ]))
            return ExitStatus.differences
        }
        output.line(
            "\(request.candidate) diverges from \(request.delegate) in run \(found.run) (after \(tried)): "
                + found.signature)
        output.line(
            "minimized the run's \(counted(found.minimized.originalCount, "recorded input")) to "
                + "\(found.minimized.steps.count) "
                + "in \(counted(found.minimized.tests, "test")); recorded the reproducer as session "
                + "\(sessions.delegate.session) (\(request.delegate)) and session \(sessions.candidate.session) "
                + "(\(request.candidate))")
        if !corpus.isEmpty { output.line("stored the corpus: \(sessionList(corpus))") }
        if let path {
            output.line("wrote the reproducer to \(path)")
        } else {
            output.line(found.minimized.scenario)
        }
        output.line()
        printDiff(diff, to: output)
        output.line(rate)
        return ExitStatus.differences
    }

    /// `3 sessions (4–6)`: runs of consecutive ids as ranges, so a large corpus is one short line.
    static func sessionList(_ sessions: [RecordingSummary]) -> String {
        var ranges: [ClosedRange<Int64>] = []
        for id in sessions.map(\.session) {
            if let last = ranges.last, last.upperBound + 1 == id {
                ranges[ranges.count - 1] = last.lowerBound...id
            } else {
                ranges.append(id...id)
            }
        }
        let text = ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)–\($0.upperBound)" }
        return "\(counted(sessions.count, "session")) (\(text.joined(separator: ", ")))"
    }
}

/// `explore`'s command line, checked before anything runs.
struct ExploreRequest {
    let scenario: Scenario
    let delegate: String
    let candidate: String
    let options: Explorer.Options

    init(_ invocation: Invocation) throws {
        let path = try invocation.required(Options.scenario)
        let candidate = try invocation.required(Options.candidate)
        var options = Explorer.Options()
        options.seed = try invocation[Options.seed] ?? options.seed
        options.stepsPerRun = try invocation[Options.steps] ?? options.stepsPerRun
        options.timeLimit = try invocation[Options.time] ?? options.timeLimit
        options.runs = Self.runs(given: try invocation[Options.runs], time: options.timeLimit)
        options.jobs = try invocation[Options.runsAtOnce] ?? options.jobs
        let known = Set(invocation.catalog.kinds.flatMap(\.generators).map(\.input))
        for (input, weight) in try invocation[Options.weight] {
            guard known.contains(input) else {
                throw UsageError(
                    message: "\(Options.weight.name): no widget kind generates an input '\(input)' "
                        + "(generated: \(known.sorted().joined(separator: ", ")))")
            }
            options.weights[input] = weight
        }
        if invocation[Options.guided] && invocation[Options.unguided] {
            throw UsageError(
                message: "\(Options.guided.name) and \(Options.unguided.name) exclude each other: give one")
        }
        options.guided = invocation[Options.guided]
        let scenario = try Scenario(contentsOf: path, catalog: invocation.catalog)
        if invocation[Options.startWithSteps] { options.start = scenario.steps }
        guard let delegate = try invocation[Options.delegate] ?? scenario.delegate else {
            throw RegistryError.noDelegate
        }
        _ = try invocation.registry.entry(named: delegate)
        _ = try invocation.registry.entry(named: candidate)
        // A database that exists is checked now, so a bad one fails before anything runs.
        if FileManager.default.fileExists(atPath: invocation.databasePath) {
            _ = try AuditStore(path: invocation.databasePath, access: .read)
        }
        self.scenario = scenario
        self.delegate = delegate
        self.candidate = candidate
        self.options = options
    }

    /// The most runs: `--runs` when given; else, with `--time`, as many as the time allows (at
    /// most `Options.mostRuns`); else the default.
    static func runs(given runs: Int?, time: Duration?) -> Int {
        runs ?? (time == nil ? Explorer.Options().runs : Options.mostRuns)
    }
}

extension Options {
    /// `explore --candidate NAME`: the delegate compared with the reference.
    static let candidate = Option<String>("--candidate", "NAME", "the delegate to compare with it")
    /// `explore --seed S`.
    static let seed = Option<UInt64>(
        "--seed", "S", "the random seed: the same seed gives the same runs (default 1)"
    ) { text, name throws(UsageError) in
        guard let seed = UInt64(text) else {
            throw UsageError(message: "\(name) takes a non-negative integer, not '\(text)'")
        }
        return seed
    }
    /// `explore --steps N`: random steps per run.
    static let steps = Option<Int>.count("--steps", "N", "random steps per run (default 20)", most: 10_000)
    /// `explore --runs K`: the most runs.
    static let runs = Option<Int>.count(
        "--runs", "K", "the most runs (default 200; with --time alone, until the time is up)", most: mostRuns)
    /// The most runs `--runs` takes, and what `--time` alone allows.
    static let mostRuns = 10_000_000
    /// `explore --time DURATION`: `30s`, `2m`, `500ms`, `1h`.
    static let time = Option<Duration>(
        "--time", "DURATION", "also stop starting runs after this long: 30s, 2m, 500ms"
    ) { text, name throws(UsageError) in
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let value = Double(text.dropLast(unit.suffix.count)), value.isFinite, value > 0 else { break }
            return .milliseconds(Int64((value * unit.seconds * 1000).rounded()))
        }
        throw UsageError(message: "\(name) takes a duration such as 30s, 2m or 500ms, not '\(text)'")
    }
    /// `explore --jobs N`: runs checked at once, at most a batch's (`replay`'s `--jobs` is `Options.jobs`).
    static let runsAtOnce = Option<Int>.count(
        "--jobs", "N", "check N runs of each batch of 4 at once (default 1); the runs and what they find stay the same",
        most: Explorer.batchSize)
    /// `explore --weight INPUT=W`, each an input and its weight.
    static let weight = RepeatedOption<(input: String, weight: Double)>(
        "--weight", "INPUT=W", "generate input INPUT W times as often (0: never); repeatable"
    ) { text, name throws(UsageError) in
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let weight = Double(parts[1]), weight.isFinite, weight >= 0 else {
            throw UsageError(message: "\(name) takes INPUT=W with W a number of at least 0, not '\(text)'")
        }
        return (String(parts[0]), weight)
    }
    /// `explore --start-with-steps`.
    static let startWithSteps = Flag("--start-with-steps", "start every run with the scenario's own steps")
    /// `explore --guided`.
    static let guided = Flag(
        "--guided", "start half the runs from a corpus run (measured to find changes no sooner; see Performance)")
    /// `explore --unguided`: the default, accepted as it says what it does.
    static let unguided = Flag("--unguided", "draw every run afresh (the default)")
    /// `explore --save-corpus`.
    static let saveCorpus = Flag(
        "--save-corpus",
        "store the runs that reached an answer with argument classes not seen before as sessions (explore=corpus)")
}
