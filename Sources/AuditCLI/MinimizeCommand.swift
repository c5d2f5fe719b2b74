import AuditCore
import Foundation

extension Command {
    static let minimize: Command = Command(
        name: "minimize",
        summary: "find a smallest input sequence on which a delegate still diverges in the same way (ddmin)",
        arguments: "--session N --delegate NAME",
        options: [
            Options.session.withHelp("the recorded session whose inputs to minimize"),
            Options.delegate.withHelp("the registered delegate that diverges from the recording"),
            Options.scenarioOutput,
            Options.maxTests,
        ],
        positionals: 0...0, formats: [.text, .json],
        discussion: """
            Shrinks a session whose replay against the delegate diverges to the fewest recorded inputs
            that still diverge the same way (delta debugging), and writes them as a scenario that names
            the recording's delegate: record it, then replay that session against the delegate.
            """,
        examples: { names in
            [
                "minimize --session 1 --delegate \(names.candidate)",
                "minimize --session 1 --delegate \(names.candidate) --output repro.json --max-tests 200",
            ]
        }
    ) { invocation in
        let id = try invocation.required(Options.session)
        let delegate = try invocation.required(Options.delegate)
        let bound = try invocation[Options.maxTests] ?? 500
        let output = invocation.output
        let result = try Minimizer(
            databasePath: invocation.databasePath, registry: invocation.registry, catalog: invocation.catalog
        ).minimize(session: id, delegate: delegate, maximumTests: bound) { tests, inputs in
            output.progress("minimizing: \(counted(inputs, "input")) left after \(counted(tests, "test"))")
        }
        output.endProgress()
        let path = try invocation[Options.scenarioOutput]
        if let path {
            try OutputFile.write(Data((result.scenario + "\n").utf8), to: path, what: "the scenario")
        }
        let summary =
            "minimized \(counted(result.originalCount, "input")) to \(result.steps.count) in "
            + "\(counted(result.tests, "test")) (\(result.cached) answered from the cache, \(result.unresolved) unresolved"
            + (result.stoppedAtBound ? ", stopped at the bound" : "")
            + (result.shrunkValues > 0 ? "; \(counted(result.shrunkValues, "value")) made simpler" : "")
            + "); divergence: \(result.divergence.visiblyEscaped())"
        if invocation.format == .json {
            output.line(
                orderedJSON([
                    ("inputs", .int(result.originalCount)), ("minimal", .int(result.steps.count)),
                    ("tests", .int(result.tests)), ("cached", .int(result.cached)),
                    ("unresolved", .int(result.unresolved)), ("stopped_at_bound", .bool(result.stoppedAtBound)),
                    ("shrunk_values", .int(result.shrunkValues)),
                    ("divergence", .string(result.divergence)),
                    ("scenario", try AuditValue(json: result.scenario)),
                ]))
        } else if path == nil {
            output.line(result.scenario)
            output.diagnostic(summary)
        } else {
            output.line(summary)
        }
        return ExitStatus.success
    }
}

extension Options {
    /// `minimize --max-tests N`.
    static let maxTests = Option<Int>.positiveInteger(
        "--max-tests", "N", "stop after this many tests, each two recordings and a diff (default 500)",
        atMost: 100_000)
}
