import AuditCore
import Foundation

extension Command {
    static let minimize = Command(
        name: "minimize",
        summary: "find a smallest input sequence on which a delegate still diverges in the same way (ddmin)",
        arguments: "--session N --delegate NAME",
        options: [
            .option("--session", "N", "the recorded session whose inputs to minimize"),
            .option("--delegate", "NAME", "the registered delegate that diverges from the recording"),
            .option("--output", "FILE", "write the minimal scenario here (default: standard output)"),
            .option("--max-tests", "N", "stop after this many tests, each two recordings and a diff (default 500)"),
        ],
        positionals: 0...0, formats: [.text, .json],
        discussion: """
            Shrinks a session whose replay against the delegate diverges to the fewest recorded inputs
            that still diverge the same way (delta debugging), and writes them as a scenario.
            """,
        examples: [
            "minimize --session 1 --delegate checkout.v2",
            "minimize --session 1 --delegate checkout.v2 --output repro.json --max-tests 200",
        ]
    ) { invocation in
        let id = try invocation.integer("--session")
        guard let delegate = invocation.option("--delegate") else {
            throw UsageError(message: "--delegate NAME is required")
        }
        var bound = 500
        if let text = invocation.option("--max-tests") {
            guard let value = Int(text), value > 0 else {
                throw UsageError(message: "--max-tests takes a positive integer, not '\(text)'")
            }
            bound = value
        }
        let output = invocation.output
        let result = try Minimizer(
            databasePath: invocation.databasePath, registry: invocation.registry, catalog: invocation.catalog
        ).minimize(session: id, delegate: delegate, maximumTests: bound) { tests, inputs in
            output.progress("minimizing: \(counted(inputs, "input")) left after \(counted(tests, "test"))")
        }
        output.endProgress()
        if let path = invocation.option("--output") {
            try OutputFile.write(Data((result.scenario + "\n").utf8), to: path, what: "the scenario")
        }
        let summary =
            "minimized \(counted(result.originalCount, "input")) to \(result.steps.count) in "
            + "\(counted(result.tests, "test")) (\(result.cached) answered from the cache, \(result.unresolved) unresolved"
            + (result.stoppedAtBound ? ", stopped at the bound" : "")
            + "); divergence: \(result.divergence.visiblyEscaped())"
        if invocation.format == .json {
            output.line(
                orderedJSON([
                    ("inputs", .int(result.originalCount)), ("minimal", .int(result.steps.count)),
                    ("tests", .int(result.tests)), ("cached", .int(result.cached)),
                    ("unresolved", .int(result.unresolved)), ("stopped_at_bound", .bool(result.stoppedAtBound)),
                    ("divergence", .string(result.divergence)),
                    ("scenario", try AuditValue(json: result.scenario)),
                ]))
        } else if invocation.option("--output") == nil {
            output.line(result.scenario)
            output.diagnostic(summary)
        } else {
            output.line(summary)
        }
        return ExitStatus.success
    }
}
