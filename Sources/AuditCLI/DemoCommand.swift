import AuditCore

extension Command {
    static let demo = Command(
        name: "demo", summary: "record the shipped checkout example and show its timeline", arguments: "", options: [],
        positionals: 0...0, formats: [.text, .json]
    ) { invocation in
        let scenario = try Examples.checkout()
        let summary = try ScenarioRunner.record(
            scenario, delegate: nil, registry: invocation.registry, databasePath: invocation.databasePath, label: "demo"
        )
        if invocation.format == .json { return report(summary, invocation) }
        try showSession(summary.session, invocation.databasePath, .text, invocation.output)
        let db = invocation.databasePath == "audit.sqlite" ? "" : " --db \(invocation.databasePath)"
        invocation.output.line(
            """

            Look further:
              \(invocation.programName) show --session \(summary.session)\(db)
              \(invocation.programName) query "select seq, widget, callback, args, result, vetoed from timeline where session = \(summary.session)"\(db)
              sqlite3 \(invocation.databasePath) 'select callback, vetoed from timeline'
            """)
        return ExitStatus.success
    }
}
