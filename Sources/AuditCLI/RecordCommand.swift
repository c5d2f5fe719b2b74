import AuditCore
import Foundation

extension Command {
    static let record: Command = Command(
        name: "record", summary: "run a scenario with a delegate under audit and store it as a new session",
        arguments: "--scenario FILE",
        options: [
            Options.scenario,
            Options.delegate.withHelp("the registered delegate to run with (default: the scenario's)"),
            Options.sessionName,
            Options.label.withHelp("a label stored with the session (device, build, branch); repeatable"),
        ],
        positionals: 0...0, formats: [.text, .json],
        discussion: """
            Runs the scenario's steps with the delegate (the scenario's own unless --delegate names
            another) under audit and stores every callback, its arguments, answer and veto, as a new session.
            A dry run comes first: a step that cannot run, or an unknown delegate, stores nothing.
            """,
        examples: { names in
            [
                "record --scenario screen.json",
                "record --scenario screen.json --delegate \(names.candidate) --label branch=main",
                "record --scenario login.json --name 'after the fix' --db baselines.sqlite",
            ]
        }
    ) { invocation in
        let path = try invocation.required(Options.scenario)
        let labels = try invocation.labels()
        let scenario = try Scenario(contentsOf: path, catalog: invocation.catalog)
        let delegate = try invocation[Options.delegate]
        if delegate == nil, let name = scenario.delegate {
            do {
                _ = try invocation.registry.entry(named: name)
            } catch {
                throw ScenarioError(at: "\(path): delegate", "\(error)")  // the file named it
            }
        }
        let summary: RecordingSummary
        do {
            summary = try ScenarioRunner.record(
                scenario, delegate: delegate, registry: invocation.registry,
                databasePath: invocation.databasePath, label: try invocation[Options.sessionName], labels: labels,
                options: invocation.recording)
        } catch let error as ScenarioError {
            throw ScenarioError(at: "\(path): \(error.location)", error.message)  // a step the dry run refused
        }
        return report(summary, invocation)
    }

    /// Prints a finished recording: the id on stdout (or JSON), the rest on stderr. A recording that
    /// did not end `complete` (events lost, or its status could not be written) exits 2 with one
    /// line on stderr saying what was kept and which write failed (`RecordingSummary.lastError`); writes that failed and then
    /// succeeded are a note. Both say how long finishing took, and the summary how long the writer
    /// waited for the database (other processes writing it).
    static func report(_ summary: RecordingSummary, _ invocation: Invocation) -> Int32 {
        if invocation.format == .json {
            invocation.output.line(
                orderedJSON([
                    ("session", .int(Int(summary.session))), ("events", .int(summary.events)),
                    ("vetoes", .int(summary.vetoes)),
                ]))
        } else {
            invocation.output.line(String(summary.session))
        }
        let finishing = "finishing took \(seconds(summary.secondsFinishing))"
        guard summary.status == .complete else {
            let kept =
                summary.lostEvents == 0
                ? "kept all \(counted(summary.events, "event"))"
                : summary.events == 0
                    ? "kept no events and lost \(summary.lostEvents)"
                    : "kept its first \(counted(summary.events, "event")) and lost \(summary.lostEvents)"
            let failure = (summary.lastError ?? "no write failed").asOneVisibleLine
            invocation.output.diagnostic(
                "\(invocation.programName): error: session \(summary.session) is interrupted: \(kept); "
                    + "\(counted(summary.failedWrites, "write")) failed (\(finishing)), the last: \(failure)")
            return ExitStatus.failure
        }
        if invocation.format != .json {
            invocation.output.diagnostic(
                "recorded session \(summary.session): \(counted(summary.events, "event")) (\(counted(summary.inputs, "input")), "
                    + "\(counted(summary.callbacks, "callback")), \(counted(summary.vetoes, "veto", "vetoes"))) "
                    + "into \(invocation.databasePath) "
                    + "in \(seconds(summary.seconds)); waited \(seconds(summary.secondsWaitedForDatabase)) for the database"
            )
        }
        if summary.failedWrites > 0 {
            invocation.output.diagnostic(
                "note: \(counted(summary.failedWrites, "write")) failed and succeeded when tried again "
                    + "(\(finishing)); nothing was lost")
        }
        return ExitStatus.success
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}

extension Options {
    /// `record --name LABEL`: the session's name.
    static let sessionName = Option<String>("--name", "LABEL", "a label stored with the session")
}
