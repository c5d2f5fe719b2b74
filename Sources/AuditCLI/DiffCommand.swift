import AuditCore

extension Command {
    static let diff = Command(
        name: "diff", summary: "compare two sessions event by event (times and durations ignored)", arguments: "A B",
        options: [HTMLOutput.option], positionals: 2...2, formats: [.text, .json]
    ) { invocation in
        let ids = try invocation.parsed.positionals.map { text throws(UsageError) -> Int64 in
            guard let id = Int64(text), id > 0 else {
                throw UsageError(message: "sessions are positive integers, not '\(text)'")
            }
            return id
        }
        let diff = try AuditStore(path: invocation.databasePath, access: .read).diff(ids[0], ids[1])
        try HTMLOutput.writeComparison(
            diff, .init(a: "A", b: "B"), heading: "Diff of sessions \(ids[0]) and \(ids[1])", invocation)
        if invocation.format == .json {
            invocation.output.line(
                orderedJSON([
                    ("identical", .bool(diff.identical)),
                    ("differences", .array(diff.differences.map(DifferenceOutput.json))),
                    ("summary", DifferenceOutput.summary(diff)),
                ]))
        } else {
            printDiff(diff, to: invocation.output)
        }
        return diff.identical ? ExitStatus.success : ExitStatus.differences
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
                "note: their inputs differ in more than \(AuditStore.maximumBlockEdits) places, so they were not "
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
