import AuditCore
import AuditExamples

extension Command {
    static let demo = Command(
        name: "demo",
        summary: "record the shipped checkout example with checkout.v1, replay it against checkout.v2, show the report",
        arguments: "", options: [], positionals: 0...0, formats: [.text, .json],
        discussion: """
            Records the shipped checkout example with checkout.v1, replays it against checkout.v2 and
            prints the regression report: the quick start.
            """,
        examples: [
            "demo",
            "demo --db /tmp/demo.sqlite --format json",
        ]
    ) { invocation in
        let scenario = try Examples.checkout()
        let recorded = try ScenarioRunner.record(
            scenario, delegate: "checkout.v1", registry: invocation.registry, databasePath: invocation.databasePath,
            label: "demo")
        let report = try Replayer(
            databasePath: invocation.databasePath, registry: invocation.registry, catalog: invocation.catalog
        )
        .replay(session: recorded.session, delegate: "checkout.v2", mode: .interaction)
        if invocation.format == .json {
            invocation.output.line(
                orderedJSON([
                    ("session", .int(Int(recorded.session))), ("events", .int(recorded.events)),
                    ("vetoes", .int(recorded.vetoes)), ("replay", replayJSON(report)),
                ]))
            return ExitStatus.success
        }
        let program = invocation.programName
        let db = invocation.databasePath == "audit.sqlite" ? "" : " --db \(invocation.databasePath)"
        invocation.output.line(
            "recorded the checkout example with checkout.v1 as session \(recorded.session): "
                + "\(counted(recorded.events, "event")), \(counted(recorded.vetoes, "veto", "vetoes"))")
        invocation.output.line()
        printReplay(report, to: invocation.output)
        invocation.output.line(
            """

            Look further:
              \(program) show --session \(recorded.session)\(db)
              \(program) show --session \(report.candidate.id)\(db)
              \(program) diff \(recorded.session) \(report.candidate.id)\(db)
              \(program) replay --session \(recorded.session) --delegate checkout.v2 --isolated\(db)
              \(program) query "select seq, widget, callback, args, result, vetoed from timeline where session = \(recorded.session)"\(db)
              sqlite3 \(invocation.databasePath) 'select callback, vetoed from timeline'
            """)
        return ExitStatus.success
    }
}
