import AuditCore
import Foundation

extension Command {
    /// `replay --all`: every recorded session that is not a replay and finished (complete or
    /// interrupted), `--jobs` at a time, one line each in session order and a total. Exit 1 if any
    /// has regressions; 2 (after the summary) if any could not be replayed.
    static func replayAll(_ invocation: Invocation, mode: ReplayMode, noiseRuns: Int?) throws -> Int32 {
        let delegate = try invocation.required(Options.delegate)
        guard !invocation.has(Options.html) else {
            throw UsageError(message: "--html draws one replay: give --session N, not --all")
        }
        _ = try invocation.registry.entry(named: delegate)
        let labels = try invocation.labels()
        let shard = try invocation[Options.shard]
        let jobs = try invocation[Options.jobs] ?? ProcessInfo.processInfo.activeProcessorCount
        let outputPath = try invocation[Options.outputDatabase]
        let input = try AuditStore(path: invocation.databasePath, access: .read)
        let sessions = try input.sessions().filter {
            $0.replayOf == nil && $0.status != .recording && $0.has(labels)
                && shard.map($0.isIn) != false
        }
        // A shard may hold none of the sessions; a filter that selects none is refused.
        if shard == nil { try invocation.checkLabelsSelect(sessions.count) }
        // With --output-db, the sessions are copied there first and replayed there: --db is only read.
        let replayed = try outputPath.map { try copySessions(sessions, of: input, into: $0) } ?? sessions.map(\.id)
        let replayer = Replayer(
            databasePath: outputPath ?? invocation.databasePath, registry: invocation.registry,
            catalog: invocation.catalog)
        let output = invocation.output
        var results: [AuditValue] = []
        var total = BatchTotal()
        var junit = JUnitReport(name: "auditctl replay --all against \(delegate)")
        let junitWanted = invocation.format == .junit
        let started = ContinuousClock.now
        output.progress(total.progress(of: sessions.count, since: started, against: delegate))
        // Each session's line, JSON object or test case, as the format asks (only that one made).
        func deliver(_ index: Int, _ outcome: Result<BatchResult, any Error>) {
            let session = sessions[index]
            if case .success(let result) = outcome { total.count(result) } else { total.failed += 1 }
            switch invocation.format {
            case .junit:
                // Named by the session of --db, also when it was replayed from its copy in --output-db.
                let name = "session \(session.id) (\(session.scenario), recorded with \(session.delegate))"
                switch outcome {
                case .success(let result):
                    guard var testCase = result.junit else { preconditionFailure("made for --format junit") }
                    testCase.name = name
                    junit.cases.append(testCase)
                case .failure(let error):
                    junit.cases.append(
                        JUnitReport.Case(
                            name: name, className: "auditctl.replay.\(session.scenario)",
                            error: "could not be replayed: \(error)"))
                }
            case .json:
                switch outcome {
                case .success(let result):
                    results.append(
                        .object([
                            "recorded_session": .int(Int(session.id)),
                            "candidate_session": .int(Int(result.candidate)), "identical": .bool(result.identical),
                            "differences": .int(result.differences), "noise": .int(result.noise), "error": .null,
                        ]))
                case .failure(let error):
                    results.append(
                        .object([
                            "recorded_session": .int(Int(session.id)), "candidate_session": .null, "identical": .null,
                            "differences": .null, "noise": .null, "error": .string("\(error)"),
                        ]))
                }
            default:
                let label =
                    "session \(session.id) (\(session.scenario.visiblyEscaped()), recorded with "
                    + "\(session.delegate.visiblyEscaped()))"
                output.endProgress()
                switch outcome {
                case .success(let result):
                    let noted = noiseRuns == nil ? "" : ", \(counted(result.noise, "noisy difference")) left out"
                    output.line(
                        "\(label): "
                            + (result.identical
                                ? "identical (\(counted(result.events, "event")))"
                                : "REGRESSION, \(counted(result.differences, "difference"))")
                            + "\(noted); stored as session \(result.candidate)")
                case .failure(let error):
                    output.line("\(label): could not be replayed: \(error)")
                }
            }
            output.progress(total.progress(of: sessions.count, since: started, against: delegate))
        }
        if let noiseRuns {
            replayer.replayAll(replayed, jobs: jobs) { job, id in
                let report = try job.replay(session: id, delegate: delegate, mode: mode, noiseRuns: noiseRuns)
                return BatchResult(report, junit: junitWanted)
            } deliver: {
                deliver($0, $1)
            }
        } else {
            replayer.replayAll(replayed, jobs: jobs, delegate: delegate, mode: mode) {
                BatchResult($0, junit: junitWanted)
            } deliver: {
                deliver($0, $1)
            }
        }
        output.endProgress()
        if invocation.format == .junit {
            output.line(junit.xml)
        } else if invocation.format == .json {
            output.line(
                AuditValue.object([
                    "delegate": .string(delegate), "mode": .string(mode.rawValue),
                    "noise_runs": noiseRuns.map { .int($0) } ?? .null, "sessions": .array(results),
                    "total": .object([
                        "sessions": .int(sessions.count), "identical": .int(total.identical),
                        "regressed": .int(total.regressed), "failed": .int(total.failed),
                        "differences": .int(total.differences), "noise": .int(total.noise),
                    ]),
                ]).json)
        } else {
            output.line(
                "total: \(counted(sessions.count, "session")) replayed against \(delegate): \(total.identical) identical, "
                    + "\(total.regressed) with regressions (\(counted(total.differences, "difference")))"
                    + (total.failed > 0 ? ", \(total.failed) could not be replayed" : "")
                    + (noiseRuns == nil ? "" : ", \(counted(total.noise, "noisy difference")) left out"))
        }
        if total.failed > 0 {
            throw UsageError(message: "\(total.failed) of \(counted(sessions.count, "session")) could not be replayed")
        }
        return total.regressed > 0 ? ExitStatus.differences : ExitStatus.success
    }

    /// Copies `sessions` of `input` into the database at `path` (made when missing; sessions it
    /// already holds, by UUID, are not copied again) and returns their ids there, in order.
    private static func copySessions(_ sessions: [SessionSummary], of input: AuditStore, into path: String) throws
        -> [Int64]
    {
        guard !isSameFile(path, input.path) else {
            throw UsageError(message: "--output-db is the database replayed; give another file")
        }
        let output = try AuditStore(path: path, access: .write)
        do {
            _ = try output.mergeSessions(from: input, sessions: sessions.map(\.id))
        } catch let error as SessionTransfer.ImportError {
            throw UsageError(message: "\(path): \(error); nothing was copied")
        }
        var ids: [String: Int64] = [:]
        for session in try output.sessions() { if let uuid = session.uuid { ids[uuid] = session.id } }
        return try sessions.map { session in
            guard let id = ids[try input.transferUUID(of: session)] else {
                throw UsageError(message: "session \(session.id) was not copied into \(path)")
            }
            return id
        }
    }

    /// What `replay --all` keeps of one replay: made on the job's thread, so the report itself
    /// (its differences) is not kept while earlier sessions are still running.
    private struct BatchResult: Sendable {
        var identical: Bool
        var differences: Int
        var noise: Int
        var events: Int
        var candidate: Int64
        /// The test case, made for `--format junit` only.
        var junit: JUnitReport.Case?

        init(_ report: ReplayReport, junit: Bool) {
            identical = report.identical
            differences = report.diff.differences.count
            noise = report.noise?.differences.count ?? 0
            events = report.diff.eventsA
            candidate = report.candidate.id
            self.junit = junit ? JUnitReport.replayCase(report) : nil
        }
    }

    /// The running totals of `replay --all`.
    private struct BatchTotal {
        var identical = 0
        var regressed = 0
        var failed = 0
        var differences = 0
        var noise = 0

        mutating func count(_ result: BatchResult) {
            if result.identical { identical += 1 } else { regressed += 1 }
            differences += result.differences
            noise += result.noise
        }

        /// The progress line: sessions done, regressions so far, the rate and the time left.
        func progress(of sessions: Int, since start: ContinuousClock.Instant, against delegate: String) -> String {
            let done = identical + regressed + failed
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            let left = rate > 0 ? Int((Double(sessions - done) / rate).rounded(.up)) : 0
            return "replaying against \(delegate): \(done)/\(sessions) sessions, "
                + "\(counted(regressed, "regression")) so far, \(Int(rate.rounded())) sessions/s, about \(left) s left"
        }
    }

    static func printNoise(_ noise: ReplayReport.Noise, of report: ReplayReport, to output: Output) {
        let sessions = noise.sessions.map(String.init).joined(separator: ", ")
        let against = "\(counted(noise.runs, "baseline run")) against \(report.recorded.delegate)"
        guard !noise.differences.isEmpty else {
            output.line("noise: none (\(against)\(sessions.isEmpty ? "" : ", sessions \(sessions)"))")
            return
        }
        output.line(
            "noise: \(counted(noise.differences.count, "difference")) also seen in \(against) (sessions \(sessions)), "
                + "not counted as regressions:")
        for difference in noise.differences {
            let event = difference.event
            let seqs = "#\(difference.a.map { String($0.seq) } ?? "-")/#\(difference.b.map { String($0.seq) } ?? "-")"
            output.line(
                "  \(difference.kind.rawValue)  \(seqs)  \((event.widget ?? "-").visiblyEscaped())  \(DifferenceOutput.callbackName(event))"
            )
        }
    }

    static func noiseJSON(_ noise: ReplayReport.Noise, of report: ReplayReport) -> AuditValue {
        .object([
            "runs": .int(noise.runs), "delegate": .string(report.recorded.delegate),
            "baseline_sessions": .array(noise.sessions.map { .int(Int($0)) }),
            "differences": .array(noise.differences.map(DifferenceOutput.json)),
        ])
    }
}
