import AuditCore

extension Command {
    /// `replay --all`: every recorded session that is not a replay and finished (complete or
    /// interrupted), one line each and a total. Exit 1 if any has regressions; 2 (after the
    /// summary) if any could not be replayed.
    static func replayAll(_ invocation: Invocation, mode: ReplayMode, noiseRuns: Int?) throws -> Int32 {
        guard let delegate = invocation.option("--delegate") else {
            throw UsageError(message: "--delegate NAME is required")
        }
        guard invocation.option("--html") == nil else {
            throw UsageError(message: "--html draws one replay: give --session N, not --all")
        }
        _ = try invocation.registry.entry(named: delegate)
        let labels = try invocation.labels()
        let shard = try invocation.shard()
        let sessions = try AuditStore(path: invocation.databasePath, access: .read).sessions().filter {
            $0.replayOf == nil && ($0.status == "complete" || $0.status == "interrupted") && $0.has(labels)
                && shard.map($0.isIn) != false
        }
        let replayer = Replayer(
            databasePath: invocation.databasePath, registry: invocation.registry, catalog: invocation.catalog)
        let output = invocation.output
        var results: [AuditValue] = []
        var identical = 0
        var regressed = 0
        var failed = 0
        var differences = 0
        var noise = 0
        var junit = JUnitReport(name: "auditctl replay --all against \(delegate)")
        for (index, session) in sessions.enumerated() {
            output.progress("replaying session \(session.id) (\(index + 1) of \(sessions.count)) against \(delegate)")
            let label =
                "session \(session.id) (\(session.scenario.visiblyEscaped()), recorded with "
                + "\(session.delegate.visiblyEscaped()))"
            do {
                var noiseCount = 0
                let report: ReplayReport
                if let noiseRuns {
                    let filtered = try replayer.replay(
                        session: session.id, delegate: delegate, mode: mode, noiseRuns: noiseRuns)
                    report = filtered.regressions
                    noiseCount = filtered.noise.count
                } else {
                    report = try replayer.replay(session: session.id, delegate: delegate, mode: mode)
                }
                let count = report.diff.differences.count
                differences += count
                noise += noiseCount
                if report.identical { identical += 1 } else { regressed += 1 }
                junit.cases.append(JUnitReport.replayCase(report))
                let noted = noiseRuns == nil ? "" : ", \(counted(noiseCount, "noisy difference")) left out"
                results.append(
                    .object([
                        "recorded_session": .int(Int(session.id)), "candidate_session": .int(Int(report.candidate.id)),
                        "identical": .bool(report.identical), "differences": .int(count), "noise": .int(noiseCount),
                        "error": .null,
                    ]))
                if invocation.format == .text {
                    output.endProgress()
                    output.line(
                        "\(label): "
                            + (report.identical
                                ? "identical (\(counted(report.diff.eventsA, "event")))"
                                : "REGRESSION, \(counted(count, "difference"))")
                            + "\(noted); stored as session \(report.candidate.id)")
                }
            } catch {
                failed += 1
                junit.cases.append(
                    JUnitReport.Case(
                        name: "session \(session.id) (\(session.scenario), recorded with \(session.delegate))",
                        className: "auditctl.replay.\(session.scenario)", error: "could not be replayed: \(error)"))
                results.append(
                    .object([
                        "recorded_session": .int(Int(session.id)), "candidate_session": .null, "identical": .null,
                        "differences": .null, "noise": .null, "error": .string("\(error)"),
                    ]))
                if invocation.format == .text {
                    output.endProgress()
                    output.line("\(label): could not be replayed: \(error)")
                }
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
                        "sessions": .int(sessions.count), "identical": .int(identical), "regressed": .int(regressed),
                        "failed": .int(failed), "differences": .int(differences), "noise": .int(noise),
                    ]),
                ]).json)
        } else {
            output.line(
                "total: \(counted(sessions.count, "session")) replayed against \(delegate): \(identical) identical, "
                    + "\(regressed) with regressions (\(counted(differences, "difference")))"
                    + (failed > 0 ? ", \(failed) could not be replayed" : "")
                    + (noiseRuns == nil ? "" : ", \(counted(noise, "noisy difference")) left out"))
        }
        if failed > 0 {
            throw UsageError(message: "\(failed) of \(counted(sessions.count, "session")) could not be replayed")
        }
        return regressed > 0 ? ExitStatus.differences : ExitStatus.success
    }

    static func printNoise(_ filtered: NoiseFilteredReplay, to output: Output) {
        let sessions = filtered.baselineSessions.map(String.init).joined(separator: ", ")
        let against = "\(counted(filtered.baselineRuns, "baseline run")) against \(filtered.report.recorded.delegate)"
        guard !filtered.noise.isEmpty else {
            output.line("noise: none (\(against)\(sessions.isEmpty ? "" : ", sessions \(sessions)"))")
            return
        }
        output.line(
            "noise: \(counted(filtered.noise.count, "difference")) also seen in \(against) (sessions \(sessions)), "
                + "not counted as regressions:")
        for difference in filtered.noise {
            let event = difference.event
            let seqs = "#\(difference.a.map { String($0.seq) } ?? "-")/#\(difference.b.map { String($0.seq) } ?? "-")"
            output.line(
                "  \(difference.kind.rawValue)  \(seqs)  \((event.widget ?? "-").visiblyEscaped())  \(DifferenceOutput.callbackName(event))"
            )
        }
    }

    static func noiseJSON(_ filtered: NoiseFilteredReplay) -> AuditValue {
        .object([
            "runs": .int(filtered.baselineRuns), "delegate": .string(filtered.report.recorded.delegate),
            "baseline_sessions": .array(filtered.baselineSessions.map { .int(Int($0)) }),
            "differences": .array(filtered.noise.map(DifferenceOutput.json)),
        ])
    }
}
