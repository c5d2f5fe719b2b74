import AuditCore
import Foundation

extension Command {
    static let query: Command = Command(
        name: "query", summary: "run one read-only SQL statement (the timeline view, sessions, …)", arguments: "SQL",
        options: [Options.timeout],
        positionals: 1...1, formats: [.table, .csv, .json, .text],
        discussion: """
            Runs one read-only SQL statement on the database and prints its rows; writes, more than one
            statement and functions that could reach outside are refused, and it stops at its deadline.
            """,
        examples: { _ in
            [
                "query 'select callback, count(*) from timeline where vetoed group by 1'",
                "query 'select id, delegate, status from sessions' --format csv",
                "query 'select * from timeline where session = 1' --timeout 30 --format json",
            ]
        }
    ) { invocation in
        let deadline = try invocation[Options.timeout] ?? ReadOnlyQuery.defaultDeadline
        let watchdog =
            invocation.output.ownsProcess ? QueryWatchdog(deadline: deadline, program: invocation.programName) : nil
        defer { watchdog?.disarm() }
        let result = try ReadOnlyQuery.run(
            invocation.parsed.positionals[0], databasePath: invocation.databasePath, deadline: deadline,
            heapLimit: invocation.output.ownsProcess ? ReadOnlyQuery.defaultHeapLimit : nil)
        watchdog?.disarm()
        Table(columns: result.columns, rows: result.rows.map { $0.map(\.auditValue) }).render(
            invocation.format, to: invocation.output)
        return ExitStatus.success
    }
}

extension Options {
    /// `query --timeout SECONDS`: the query's deadline.
    static let timeout = Option<Duration>(
        "--timeout", "SECONDS", "stop the query after this long (default 10, at most 300)"
    ) { text, name throws(UsageError) in
        let most = ReadOnlyQuery.maximumDeadline.components.seconds
        guard let seconds = Double(text), seconds > 0, seconds <= Double(most) else {
            throw UsageError(message: "\(name) takes a number of seconds up to \(most), not '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1_000))
    }
}

/// Holds a query's deadline for every statement: SQLite checks it only between its steps, so one
/// function call over large values can run on; past the deadline and its grace the process ends
/// with the usual error line and status 2. The database was opened read-only, so nothing is lost.
private final class QueryWatchdog: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(deadline: Duration, program: String) {
        let limit = DispatchTime.now() + .nanoseconds(Int((deadline + ReadOnlyQuery.deadlineGrace).nanoseconds))
        let finished = finished
        Thread.detachNewThread {
            guard finished.wait(timeout: limit) == .timedOut else { return }
            let line = "\(program): error: \(StoreError.queryRefused("stopped at the \(deadline) deadline"))\n"
            FileHandle.standardError.write(Data(line.utf8))
            _exit(ExitStatus.failure)
        }
    }

    func disarm() { finished.signal() }
}
