import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCLI

/// `auditctl explore` end to end, and what its runs depend on: the seed and the run budget, never
/// the time.
@Suite("auditctl explore", .tags(.slow))
struct ExploreTests {
    /// Copies the shipped checkout (`Examples/checkout.json`) into the sandbox.
    static func copyCheckout(_ sandbox: Sandbox) throws {
        try FileManager.default.copyItem(
            at: Sandbox.packageRoot.appending(path: "Examples/checkout.json"),
            to: sandbox.directory.appending(path: "checkout.json"))
    }

    @Test("finds checkout.v2's change from the scenario's tree alone and writes a short reproducer")
    func findsCheckoutV2() throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        let run = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v2", "--seed", "1", "--runs", "50",
            "--output", "repro.json",
        ])
        expectEqual(run.status, 1, "\(run)")
        #expect(run.stdoutLines[0].hasPrefix("checkout.v2 diverges from checkout.v1 in run 1 "), "\(run)")
        #expect(run.stdout.contains("wrote the reproducer to repro.json"))
        #expect(run.stdout.contains("\nA = session 1 (checkout-minimized, checkout.v1, "), "\(run)")
        // The reproducer is a scenario of a few steps; recorded with each delegate, the sessions differ.
        let reproducer = try Scenario(contentsOf: sandbox.path("repro.json"), catalog: .builtIn)
        #expect((1...8).contains(reproducer.steps.count), "\(reproducer.steps)")
        try expectEqual(sandbox.run(["record", "--scenario", "repro.json"]).status, 0)
        try expectEqual(sandbox.run(["record", "--scenario", "repro.json", "--delegate", "checkout.v2"]).status, 0)
        try expectEqual(sandbox.run(["diff", "3", "4"]).status, 1)
        // explore stored both sessions of the reproducer, labelled; the candidate's as a replay of
        // the delegate's, so that replaying every recording against the delegate finds nothing.
        let sessions = try sandbox.run(["sessions", "--label", "explore=candidate", "--format", "csv"])
        expectEqual(sessions.stdoutLines.count, 3, "\(sessions)")
        let candidate = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read).session(2)
        #expect(candidate.replayOf == 1 && candidate.replayMode == .interaction, "\(candidate)")
        let all = try sandbox.run(["replay", "--all", "--delegate", "checkout.v1", "--output-db", "all.sqlite"])
        #expect(!all.stdout.contains("session 2 ("), "\(all)")
    }

    /// A scenario that names no delegate is explored with `--delegate`; the reproducer names it, so
    /// `record --scenario` alone records it again, and a replay against the candidate diverges.
    @Test("the reproducer names the reference delegate when the scenario names none")
    func reproducerNamesTheDelegate() throws {
        let sandbox = try Sandbox()
        guard
            case .object(var fields) = try decodeJSON(
                String(contentsOfFile: sandbox.path(sandbox.copyExample()), encoding: .utf8))
        else { throw SandboxError(description: "the example is not a JSON object") }
        fields["delegate"] = nil
        try sandbox.write("form.json", AuditValue.object(fields).json)
        let run = try sandbox.run([
            "explore", "--scenario", "form.json", "--delegate", "checkout.v1", "--candidate", "checkout.v2",
            "--runs", "50", "--output", "repro.json",
        ])
        expectEqual(run.status, 1, "\(run)")
        let reproducer = try decodeJSON(String(contentsOfFile: sandbox.path("repro.json"), encoding: .utf8))
        expectEqual(reproducer["delegate"], .string("checkout.v1"), "\(reproducer)")
        let record = try sandbox.run(["record", "--scenario", "repro.json"])
        expectEqual(record.stdout, "3\n", "\(record)")
        try expectEqual(sandbox.run(["replay", "--session", "3", "--delegate", "checkout.v2"]).status, 1)
    }

    @Test("no divergence: exit 0, the runs and steps tried, and nothing written")
    func noDivergence() throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        let run = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v1", "--runs", "5", "--steps", "10",
            "--output", "repro.json",
        ])
        expectEqual(run.status, 0, "\(run)")
        #expect(run.stdout.hasPrefix("no divergence in 5 runs of up to 10 steps (50 steps in all, seed 1), "), "\(run)")
        // How long it took and the rate, also when the output is not a terminal.
        #expect(
            run.stdout.contains(
                /\nexplored for [0-9]+\.[0-9] s: [0-9]+\.[0-9] runs\/s, [0-9,]+ callbacks asked of both delegates \([0-9]+\/s\)\n$/
            ), "\(run)")
        try expectEqual(sandbox.listing(), ["checkout.json"])
    }

    @Test("--time alone runs until the time is up; --runs, or the default, bounds the runs otherwise")
    func timeAloneIsNotCappedByTheDefaultRuns() {
        expectEqual(ExploreRequest.runs(given: nil, time: .seconds(30)), Options.mostRuns)
        expectEqual(ExploreRequest.runs(given: 50, time: .seconds(30)), 50)
        expectEqual(ExploreRequest.runs(given: nil, time: nil), 200)
        expectEqual(ExploreRequest.runs(given: 7, time: nil), 7)
    }

    @Test("--format json on a divergence: the run, the reproducer and the two sessions stored")
    func jsonDivergence() throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        let run = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v2", "--seed", "4", "--format", "json",
        ])
        expectEqual(run.status, 1, "\(run)")
        let result = try decodeJSON(run.stdout)
        expectEqual(result["diverged"], .bool(true))
        expectEqual(result["sessions"], .array([.int(1), .int(2)]))
        guard case .int(let minimal)? = result["minimal"], case .array(let steps)? = result["scenario"]?["steps"]
        else { throw SandboxError(description: "\(run)") }
        #expect(steps.count == minimal && (1...8).contains(minimal))
        // A simultaneity answer of the back pan: checkout.v2 changes it only for a pan that meets
        // a threshold, which boundary draws reach.
        expectEqual(
            result["divergence"],
            .string(
                "override_changed at checkout#back "
                    + "GestureRecognizerDelegate.gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:)"))
    }

    @Test("two processes with the same seed find the same run and write the same reproducer")
    func sameSeedAcrossProcesses() throws {
        var found: [AuditValue] = []
        for _ in 0..<2 {
            let sandbox = try Sandbox()
            try Self.copyCheckout(sandbox)
            let run = try sandbox.run([
                "explore", "--scenario", "checkout.json", "--candidate", "checkout.v2", "--seed", "9", "--format",
                "json",
            ])
            expectEqual(run.status, 1, "\(run)")
            let result = try decodeJSON(run.stdout)
            found.append(.array([result["run"] ?? .null, result["steps"] ?? .null, result["scenario"] ?? .null]))
        }
        expectEqual(found[0], found[1])
    }

    @Test("--time only bounds the runs: --runs decides how many when the time is long enough")
    func timeAndRuns() throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        let run = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v1", "--runs", "3", "--steps", "5",
            "--time", "1h",
        ])
        expectEqual(run.status, 0, "\(run)")
        #expect(run.stdout.hasPrefix("no divergence in 3 runs of up to 5 steps (15 steps in all, seed 1), "), "\(run)")
    }

    @Test("--format json, and --save-corpus stores the runs that reached new argument classes")
    func jsonAndCorpus() throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        let run = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v1", "--runs", "4", "--save-corpus",
            "--format", "json",
        ])
        expectEqual(run.status, 0, "\(run)")
        let result = try decodeJSON(run.stdout)
        expectEqual(result["diverged"], .bool(false))
        expectEqual(result["runs"], .int(4))
        guard case .array(let corpus)? = result["corpus"] else { throw SandboxError(description: "\(run)") }
        #expect(!corpus.isEmpty && corpus.count <= 4)
        let stored = try sandbox.run(["sessions", "--label", "explore=corpus", "--format", "csv"])
        expectEqual(stored.stdoutLines.count, corpus.count + 2, "\(stored)")
        // The same runs again, in text: the new sessions follow, listed as one range.
        let again = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v1", "--runs", "4", "--save-corpus",
        ])
        let count = corpus.count
        let expected = count == 1 ? "\(count + 1)" : "\(count + 1)–\(2 * count)"
        #expect(
            again.stdoutLines.contains(
                "stored the corpus: \(count) session\(count == 1 ? "" : "s") (\(expected))"), "\(again)")
    }

    struct Mistake: Sendable, CustomStringConvertible {
        var arguments: [String]
        var message: String
        var description: String { arguments.joined(separator: " ") }
    }

    static let mistakes = [
        Mistake(arguments: [], message: "--scenario FILE is required"),
        Mistake(arguments: ["--scenario", "checkout.json"], message: "--candidate NAME is required"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--guided", "--unguided"],
            message: "--guided and --unguided exclude each other: give one"),
        Mistake(
            arguments: ["--scenario", "missing.json", "--candidate", "checkout.v2"],
            message: "cannot read scenario missing.json: no such file"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "nope"],
            message: "unknown delegate 'nope' (registered: checkout.v1, checkout.v2, browser.v1, browser.v2)"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--runs", "0"],
            message: "--runs takes an integer from 1 to 10000000, not '0'"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--jobs", "0"],
            message: "--jobs takes an integer from 1 to 4, not '0'"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--jobs", "8"],
            message: "--jobs takes an integer from 1 to 4, not '8'"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--seed", "-3"],
            message: "--seed takes a non-negative integer, not '-3'"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--time", "soon"],
            message: "--time takes a duration such as 30s, 2m or 500ms, not 'soon'"),
        Mistake(
            arguments: ["--scenario", "checkout.json", "--candidate", "checkout.v2", "--weight", "tapSegment=lots"],
            message: "--weight takes INPUT=W with W a number of at least 0, not 'tapSegment=lots'"),
    ]

    @Test("bad input: exit 2, one line on stderr, the database unchanged", arguments: mistakes)
    func badInput(_ mistake: Mistake) throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        try sandbox.recordExample()
        let before = sandbox.bytes("audit.sqlite")
        let run = try sandbox.run(["explore"] + mistake.arguments + ["--output", "repro.json"])
        expectError(run, mistake.message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        #expect(!sandbox.exists("repro.json"))
    }

    @Test("a weight for an input no kind generates names the ones generated")
    func unknownWeight() throws {
        let sandbox = try Sandbox()
        try Self.copyCheckout(sandbox)
        let run = try sandbox.run([
            "explore", "--scenario", "checkout.json", "--candidate", "checkout.v2", "--weight", "flick=2",
        ])
        expectError(run, startingWith: "--weight: no widget kind generates an input 'flick' (generated: beginDrag, ")
    }

    // MARK: determinism

    static func explore(seed: UInt64, candidate: String, guided: Bool = Explorer.Options().guided, jobs: Int = 1) throws
        -> Explorer.Result
    {
        var options = Explorer.Options()
        options.seed = seed
        options.jobs = jobs
        options.runs = 12
        options.stepsPerRun = 15
        options.guided = guided
        return try Explorer(scenario: try Examples.checkout(), registry: .examples, options: options)
            .explore(delegate: "checkout.v1", candidate: candidate)
    }

    @Test("the same seed gives the same runs; another seed other runs")
    func sameSeedSameRuns() throws {
        let first = try Self.explore(seed: 42, candidate: "checkout.v1")
        let again = try Self.explore(seed: 42, candidate: "checkout.v1")
        #expect(first.runs == 12 && first.steps == again.steps && first.branches == again.branches)
        expectEqual(first.corpus, again.corpus)
        #expect(try Self.explore(seed: 43, candidate: "checkout.v1").corpus != first.corpus)
        let found = try #require(try Self.explore(seed: 42, candidate: "checkout.v2").finding)
        let foundAgain = try #require(try Self.explore(seed: 42, candidate: "checkout.v2").finding)
        #expect(found.run == foundAgain.run && found.steps == foundAgain.steps)
        expectEqual(found.minimized.scenario, foundAgain.minimized.scenario)
    }

    @Test("two jobs make the same runs and find the same divergence as one")
    func jobsDoNotChangeRuns() throws {
        let one = try Self.explore(seed: 42, candidate: "checkout.v1")
        let two = try Self.explore(seed: 42, candidate: "checkout.v1", jobs: 2)
        #expect(one.runs == two.runs && one.steps == two.steps && one.branches == two.branches)
        expectEqual(one.corpus, two.corpus)
        let found = try #require(try Self.explore(seed: 3, candidate: "checkout.v2").finding)
        let foundByTwo = try #require(try Self.explore(seed: 3, candidate: "checkout.v2", jobs: 2).finding)
        #expect(found.run == foundByTwo.run && found.minimized.scenario == foundByTwo.minimized.scenario)
    }

    @Test("runs start with the steps given, then add the random ones")
    func startingSteps() throws {
        let scenario = try Examples.checkout()
        var options = Explorer.Options()
        options.runs = 3
        options.stepsPerRun = 5
        options.start = scenario.steps
        let result = try Explorer(scenario: scenario, registry: .examples, options: options)
            .explore(delegate: "checkout.v1", candidate: "checkout.v1")
        expectEqual(result.steps, 3 * (scenario.steps.count + 5))
        let first = try #require(result.corpus.first)
        expectEqual(Array(first.prefix(scenario.steps.count)), scenario.steps)
    }

    @Test("every generated step is valid: the delegate records each run as generated")
    func generatedRunsAreValid() throws {
        // A run whose steps the delegate could not all take again would be dropped, not counted.
        let result = try Self.explore(seed: 7, candidate: "checkout.v1", guided: false)
        #expect(result.runs == 12 && result.dropped == 0)
        expectEqual(result.steps, 12 * 15)
    }
}
