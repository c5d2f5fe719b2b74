import AuditCore

extension AuditCommandLine.ExtraCommand {
    /// `demo`: records `scenario` with `delegate`, replays the session against `candidate`
    /// (interaction mode) and prints the regression report and the commands to look further; exits
    /// 0, since the regression is the demo. `title` names the scenario in what it prints.
    ///
    /// `auditctl` adds the shipped checkout example this way (`Sources/auditctl/main.swift`):
    ///
    ///     AuditCommandLine(registry: .examples, catalog: .builtIn)
    ///         .adding(.demo("the checkout example", scenario: { try Examples.checkout() },
    ///                       delegate: "checkout.v1", candidate: "checkout.v2"))
    ///         .main()
    public static func demo(
        _ title: String, scenario: @escaping @Sendable () throws -> Scenario, delegate: String, candidate: String
    ) -> Self {
        let command = Command(
            name: "demo",
            summary: "record \(title) with \(delegate), replay it against \(candidate), show the report",
            arguments: "", options: [], positionals: 0...0, formats: [.text, .json],
            discussion: """
                Records \(title) with \(delegate), replays it against \(candidate) and prints the
                regression report: the quick start.
                """,
            examples: { _ in
                [
                    "demo",
                    "demo --db /tmp/demo.sqlite --format json",
                ]
            }
        ) { invocation in
            let recorded = try ScenarioRunner.record(
                try scenario(), delegate: delegate, registry: invocation.registry,
                databasePath: invocation.databasePath, label: "demo")
            let report = try Replayer(
                databasePath: invocation.databasePath, registry: invocation.registry, catalog: invocation.catalog
            )
            .replay(session: recorded.session, delegate: candidate, mode: .interaction)
            if invocation.format == .json {
                invocation.output.line(
                    orderedJSON([
                        ("session", .int(Int(recorded.session))), ("events", .int(recorded.events)),
                        ("vetoes", .int(recorded.vetoes)), ("replay", Command.replayJSON(report)),
                    ]))
                return ExitStatus.success
            }
            let program = invocation.programName
            let db = invocation.databasePath == "audit.sqlite" ? "" : " --db \(invocation.databasePath)"
            invocation.output.line(
                "recorded \(title) with \(delegate) as session \(recorded.session): "
                    + "\(counted(recorded.events, "event")), \(counted(recorded.vetoes, "veto", "vetoes"))")
            invocation.output.line()
            Command.printReplay(report, to: invocation.output)
            invocation.output.line(
                """

                Look further:
                  \(program) show --session \(recorded.session)\(db)
                  \(program) show --session \(report.candidate.id)\(db)
                  \(program) diff \(recorded.session) \(report.candidate.id)\(db)
                  \(program) replay --session \(recorded.session) --delegate \(ExampleNames.shellWord(candidate)) --isolated\(db)
                  \(program) query "select seq, widget, callback, args, result, vetoed from timeline where session = \(recorded.session)"\(db)
                  sqlite3 \(invocation.databasePath) 'select callback, vetoed from timeline'
                """)
            return ExitStatus.success
        }
        return Self(command: command, delegates: [delegate, candidate])
    }
}
