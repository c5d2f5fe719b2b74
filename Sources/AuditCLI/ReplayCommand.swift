import AuditCore

extension Command {
    static let replay: Command = Command(
        name: "replay", summary: "replay a session against a delegate and report behaviour regressions",
        arguments: "--session N --delegate NAME | --all --delegate NAME",
        options: [
            Options.session.withHelp("the recorded session to replay"), Options.all, Options.delegate,
            Options.isolated,
            Options.label.withHelp("with --all: only sessions with this label; repeatable (all must match)"),
            Options.shard.withHelp("with --all: only the I-th of N disjoint parts of the sessions (by UUID)"),
            Options.jobs, Options.outputDatabase, Options.noiseRuns, Options.html,
        ],
        positionals: 0...0, formats: [.text, .json, .junit],
        discussion: """
            Drives a recorded session's inputs again with another delegate and compares what it is asked
            and answers with the recording. Interaction mode lets the candidate's answers steer the widgets;
            --isolated gives the widgets the recorded answers and asks the candidate every recorded callback.
            Exit 1 when the behaviour changed. --all replays every recording, --jobs at a time.
            """,
        examples: { names in
            [
                "replay --session 1 --delegate \(names.candidate)",
                "replay --session 1 --delegate \(names.candidate) --isolated --html replay.html",
                "replay --all --delegate \(names.candidate) --shard 2/4 --output-db shard.sqlite --format junit",
            ]
        }
    ) { invocation in
        let mode: ReplayMode = invocation[Options.isolated] ? .isolated : .interaction
        let noiseRuns = try invocation[Options.noiseRuns]
        if invocation[Options.all] {
            guard !invocation.has(Options.session) else {
                throw UsageError(message: "give --session N or --all, not both")
            }
            return try replayAll(invocation, mode: mode, noiseRuns: noiseRuns)
        }
        guard !invocation.has(Options.shard) && !invocation.has(Options.label) else {
            throw UsageError(message: "--shard and --label choose among sessions: give them with --all")
        }
        guard !invocation.has(Options.jobs) && !invocation.has(Options.outputDatabase) else {
            throw UsageError(message: "--jobs and --output-db are for replaying many sessions: give them with --all")
        }
        let id = try invocation.required(Options.session)
        let delegate = try invocation.required(Options.delegate)
        _ = try invocation.registry.entry(named: delegate)
        let replayer = Replayer(
            databasePath: invocation.databasePath, registry: invocation.registry, catalog: invocation.catalog)
        // One store for the whole replay, its page included: opened to write in isolated mode, which
        // stores the candidate through it (an interaction replay's recorder has a connection of its
        // own, on its writer thread).
        let store = try AuditStore(existingAt: invocation.databasePath, access: mode == .isolated ? .write : .read)
        let report: ReplayReport
        if let noiseRuns {
            report = try replayer.replay(
                session: id, delegate: delegate, mode: mode, noiseRuns: noiseRuns, reading: store)
        } else {
            report = try replayer.replay(session: id, delegate: delegate, mode: mode, reading: store)
        }
        // A candidate run that was not stored whole cannot be compared: differences would be false.
        guard report.recordingFailures == 0 else {
            throw IncompleteReplay(session: report.candidate.id, original: id, failures: report.recordingFailures)
        }
        try HTMLOutput.writeComparison(
            report.diff, replaySides, heading: "Replay of session \(id) against \(delegate)", from: store, invocation)
        if invocation.format == .junit {
            var suite = JUnitReport(name: "auditctl replay against \(delegate)")
            suite.cases = [JUnitReport.replayCase(report)]
            invocation.output.line(suite.xml)
        } else if invocation.format == .json {
            var value = replayJSON(report)
            if let noise = report.noise, case .object(var fields) = value {
                fields["noise"] = noiseJSON(noise, of: report)
                value = .object(fields)
            }
            invocation.output.line(value.json)
        } else {
            printReplay(report, to: invocation.output)
            if let noise = report.noise { printNoise(noise, of: report, to: invocation.output) }
        }
        return report.identical ? ExitStatus.success : ExitStatus.differences
    }

    static let replaySides = DifferenceOutput.Sides(a: "recorded", b: "candidate")

    static func printReplay(_ report: ReplayReport, to output: Output) {
        let recorded = report.recorded
        output.line(
            "replay of session \(recorded.id) (\(recorded.scenario.visiblyEscaped()), recorded with "
                + "\(recorded.delegate.visiblyEscaped())) against \(report.candidate.delegate.visiblyEscaped()), "
                + "\(report.mode) mode; stored as session \(report.candidate.id)")
        if let cut = report.cutShort { output.line("note: \(cut)") }
        if let refused = report.nestingRefused {
            output.line("REGRESSION: the candidate's run refused an input: \(refused)")
        }
        if let left = report.leftCourse { output.line("note: \(left)") }
        if report.inputsSkipped > 0 {
            output.line(
                "note: \(counted(report.inputsSkipped, "recorded input")) could not run in the candidate's state and "
                    + "\(report.inputsSkipped == 1 ? "was" : "were") skipped")
        }
        if report.identical {
            let driven =
                report.mode == .isolated
                ? "each recorded callback asked again, the widgets given the recorded answers"
                : "\(counted(report.inputsReplayed, "input")) replayed"
            output.line(
                "no regressions: \(counted(report.diff.eventsA, "event")) compared, behaviour identical (\(driven))")
            return
        }
        guard !report.diff.identical else { return }  // only the refused input differs, said above
        output.line(
            "REGRESSION: \(counted(report.diff.differences.count, "difference")) between the recorded session "
                + "(\(counted(report.diff.eventsA, "event"))) and the candidate (\(counted(report.diff.eventsB, "event")))"
        )
        output.line()
        if let first = report.firstDivergence {
            let event = first.difference.event
            output.line("first divergence: \(DifferenceOutput.describe(first.difference.kind, replaySides))")
            if let input = first.input {
                output.line(
                    "  input      #\(input.seq) \((input.widget ?? "-").visiblyEscaped()) "
                        + "\(input.callback.visiblyEscaped()) \(input.arguments.visiblyEscaped(json: true))")
            }
            output.line(
                "  widget     \((event.widget ?? "-").visiblyEscaped()) (\((event.widgetKind ?? "?").visiblyEscaped()))"
            )
            output.line(
                "  callback   \(DifferenceOutput.callbackName(event)) \(event.arguments.visiblyEscaped(json: true))")
            output.line("  recorded   \(DifferenceOutput.answer(first.difference.a))")
            output.line("  candidate  \(DifferenceOutput.answer(first.difference.b))")
            output.line()
        }
        DifferenceOutput.printGroups(report.diff, replaySides, to: output)
    }

    static func replayJSON(_ report: ReplayReport) -> AuditValue {
        var first: AuditValue = .null
        if let divergence = report.firstDivergence {
            first = .object([
                "difference": DifferenceOutput.json(divergence.difference),
                "input": divergence.input.map(DifferenceOutput.eventJSON) ?? .null,
            ])
        }
        return .object([
            "mode": .string(report.mode.rawValue), "recorded_session": .int(Int(report.recorded.id)),
            "candidate_session": .int(Int(report.candidate.id)), "delegate": .string(report.candidate.delegate),
            "identical": .bool(report.identical), "first_divergence": first,
            "differences": .array(report.diff.differences.map(DifferenceOutput.json)),
            "summary": DifferenceOutput.summary(report.diff),
            "cut_short": report.cutShort.map { .string($0.description) } ?? .null,
            "nesting_refused": report.nestingRefused.map { .string($0.description) } ?? .null,
            "left_course": report.leftCourse.map {
                .object(["event": .int(Int($0.event)), "uncompared": .int($0.uncompared)])
            } ?? .null,
            "inputs_replayed": .int(report.inputsReplayed), "inputs_skipped": .int(report.inputsSkipped),
            "seconds": .object([
                "load": .double(report.timings.load), "run": .double(report.timings.run),
                "store": .double(report.timings.store), "compare": .double(report.timings.compare),
            ]),
        ])
    }
}

extension Options {
    /// `replay --all`.
    static let all = Flag("--all", "replay every recorded session (not replays) that is complete or interrupted")
    /// `replay --isolated`: isolated mode.
    static let isolated = Flag(
        "--isolated", "ask the candidate every recorded callback while the widgets get the recorded answers")
    /// `replay --all --jobs N`: how many sessions it replays at a time (the machine's cores when not given).
    static let jobs = Option<Int>.positiveInteger(
        "--jobs", "N", "with --all: replay N sessions at a time (default: the machine's cores)", atMost: 256)
    /// `replay --all --output-db PATH`: where the sessions replayed are copied and their candidates stored.
    static let outputDatabase = Option<String>(
        "--output-db", "PATH",
        "with --all: copy the sessions replayed into PATH and store the candidates there, leaving --db unchanged")
    /// `replay --noise-runs K`.
    static let noiseRuns = Option<Int>.positiveInteger(
        "--noise-runs", "K",
        "also replay K times (at most \(maximumNoiseRuns)) against the recording delegate; differences seen there are noise",
        atMost: maximumNoiseRuns)
    /// The most `--noise-runs`: each run stores a whole session, for every session replayed.
    static let maximumNoiseRuns = 100
}

/// The replay's own recording lost events (a full disk): its comparison would report false differences.
struct IncompleteReplay: Error, CustomStringConvertible {
    let session: Int64
    let original: Int64
    let failures: Int

    var description: String {
        "the replay of session \(original) (stored as session \(session)) is incomplete: "
            + "\(counted(failures, "write")) failed, so it cannot be compared"
    }
}
