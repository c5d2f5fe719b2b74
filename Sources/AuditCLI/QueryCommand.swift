import AuditCore

extension Command {
    static let query = Command(
        name: "query", summary: "run one read-only SQL statement (the timeline view, sessions, …)", arguments: "SQL",
        options: [.option("--timeout", "SECONDS", "stop the query after this long (default 10)")], positionals: 1...1,
        formats: [.table, .csv, .json, .text]
    ) { invocation in
        var deadline = ReadOnlyQuery.defaultDeadline
        if let text = invocation.option("--timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                throw UsageError(message: "--timeout takes a number of seconds, not '\(text)'")
            }
            deadline = .milliseconds(Int64(seconds * 1_000))
        }
        let result = try ReadOnlyQuery.run(
            invocation.parsed.positionals[0], databasePath: invocation.databasePath, deadline: deadline)
        Table(columns: result.columns, rows: result.rows.map { $0.map(\.auditValue) }).render(
            invocation.format, to: invocation.output)
        return ExitStatus.success
    }
}
