import AuditCore

extension Command {
    static let diff: Command = Command(
        name: "diff", summary: "compare two sessions event by event (times and durations ignored)", arguments: "A B",
        options: [Options.html], positionals: 2...2, formats: [.text, .json, .junit],
        discussion: """
            Compares two sessions event by event, aligned, times and durations ignored: answers, vetoes,
            arguments and events only on one side. Exit 1 when they differ.
            """,
        examples: { _ in
            [
                "diff 1 2",
                "diff 1 2 --format json",
                "diff 1 2 --html diff.html",
            ]
        }
    ) { invocation in
        let ids = try invocation.parsed.positionals.map { text throws(UsageError) -> Int64 in
            guard let id = Int64(text), id > 0 else {
                throw UsageError(message: "sessions are positive integers, not '\(text)'")
            }
            return id
        }
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        if invocation.format == .json && !invocation.has(Options.html) {
            // The differences are read and written a few hundred at a time.
            let comparison = try SessionDiffer(store).compare(ids[0], ids[1])
            let summary = DifferenceOutput.summary(comparison)
            try writeJSON(identical: comparison.identical, summary, to: invocation.output) { body throws(StoreError) in
                try SessionDiffer(store).forEachDifference(in: comparison, body)
            }
            return comparison.identical ? ExitStatus.success : ExitStatus.differences
        }
        let diff = try SessionDiffer(store).diff(ids[0], ids[1])
        try HTMLOutput.writeComparison(
            diff, .init(a: "A", b: "B"), heading: "Diff of sessions \(ids[0]) and \(ids[1])", from: store, invocation)
        if invocation.format == .junit {
            var suite = JUnitReport(name: "auditctl diff")
            var testCase = JUnitReport.Case(
                name: "session \(ids[0]) against session \(ids[1])", className: "auditctl.diff.\(diff.a.scenario)")
            if let first = diff.differences.first {
                let event = first.event
                testCase.failure = (
                    "first difference: \(DifferenceOutput.describe(first.kind, .init(a: "A", b: "B"))) at "
                        + "\(event.widget ?? "-") \(DifferenceOutput.callbackName(event))",
                    JUnitReport.captured { printDiff(diff, to: $0) }
                )
            }
            suite.cases = [testCase]
            invocation.output.line(suite.xml)
        } else if invocation.format == .json {
            try writeJSON(identical: diff.identical, DifferenceOutput.summary(diff), to: invocation.output) { body in
                diff.differences.forEach(body)
            }
        } else {
            printDiff(diff, to: invocation.output)
        }
        return diff.identical ? ExitStatus.success : ExitStatus.differences
    }

    /// `{"identical":…,"differences":[…],"summary":{…}}`, each difference written as `differences`
    /// gives it: what `orderedJSON` would print for the whole value, without holding it.
    static func writeJSON(
        identical: Bool, _ summary: AuditValue, to output: Output,
        differences: ((EventDifference) -> Void) throws(StoreError) -> Void
    ) throws(StoreError) {
        var writer = ChunkedWriter(output)
        writer.append("{\"identical\":" + AuditValue.bool(identical).json + ",\"differences\":[")
        var separator = ""
        try differences { difference in
            writer.append(separator + DifferenceOutput.json(difference).json)
            separator = ","
        }
        writer.append("],\"summary\":" + summary.json + "}\n")
        writer.flush()
    }

    static func printDiff(_ diff: SessionDiff, to output: Output) {
        let sides = DifferenceOutput.Sides(a: "A", b: "B")
        output.line(
            "A = session \(diff.a.id) (\(diff.a.scenario.visiblyEscaped()), \(diff.a.delegate.visiblyEscaped()), "
                + "\(counted(diff.eventsA, "event"))); B = session \(diff.b.id) (\(diff.b.scenario.visiblyEscaped()), "
                + "\(diff.b.delegate.visiblyEscaped()), \(counted(diff.eventsB, "event")))"
        )
        if !diff.sameScenario { output.line("note: the sessions ran different scenarios") }
        if diff.pairedInOrder {
            output.line(
                "note: their inputs differ in more than \(SessionDiffer.maximumBlockEdits) places, so they were not "
                    + "aligned: each input's events are compared with those of the input at the same place")
        }
        if diff.identical {
            output.line("identical (times and durations are not compared)")
            return
        }
        let counts = diff.counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            .map { "\($0.value) \(DifferenceOutput.describe($0.key, sides))" }
        output.line("\(counted(diff.differences.count, "difference")): \(counts.joined(separator: ", "))")
        output.line()
        DifferenceOutput.printGroups(diff, sides, to: output)
    }
}
