import AuditCore
import Foundation

extension Command {
    /// `--arguments`: the argument classes and states each answer was seen with, in the text output.
    static let coverageArguments = Flag(
        "--arguments",
        "also list, per callback and answer, the argument classes and states it was seen with (json and csv always carry them)"
    )

    static let coverage: Command = Command(
        name: "coverage", summary: "what the stored sessions cover of the delegates, and what they cannot catch",
        arguments: "[--session N] [--label KEY=VALUE] [--arguments]",
        options: [
            Options.session.withHelp("only this session (default: every recording, not replays)"),
            Options.label.withHelp("only recordings with this label; repeatable (all must match)"),
            coverageArguments,
            Options.html.withHelp("also write the coverage as one self-contained HTML page to FILE"),
        ],
        positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Tells what the stored sessions cannot catch: every callback of every widget of their trees,
            called or never called, the answers seen and missing, and the inputs that reach it; and the
            argument classes (null, false/true, negative/zero/positive/fractional, empty/one character/
            longer, whitespace, line break, lowercase, uppercase, digit, other ASCII, non-ASCII, no
            elements/elements) each answer was seen with, and those never tried. Text lists them with
            --arguments; json always has them.
            """,
        examples: { _ in
            [
                "coverage",
                "coverage --session 1 --arguments",
                "coverage --label device=iPad --html coverage.html",
            ]
        }
    ) { invocation in
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        let labels = try invocation.labels()
        let ids =
            try invocation[Options.session].map { [$0] }
            ?? store.sessions().filter { $0.replayOf == nil && $0.has(labels) }.map(\.id)
        try invocation.checkLabelsSelect(ids.count)
        let report = try CoverageReport(sessions: ids, catalog: invocation.catalog, in: store)
        if !report.unregisteredKinds.isEmpty {
            throw UsageError(
                message: "the sessions have widgets of kinds \(invocation.programName)'s catalog does not register "
                    + "(\(report.unregisteredKinds.joined(separator: ", "))), whose callbacks it cannot count; "
                    + "run coverage with the runner that registers them")
        }
        // Every callback of every widget is a row: the tables are not cut at the timeline pages' 200;
        // nor a callback's argument classes at 160 characters (a few per argument, so bounded).
        try HTMLOutput.write(invocation) {
            HTMLTimeline.coverage(report, limits: .init(tableRows: 100_000, textLength: 1_000))
        }
        switch invocation.format {
        case .json: invocation.output.line(coverageJSON(report).json)
        case .csv: coverageTable(report).render(.csv, to: invocation.output)
        default:
            printCoverage(report, to: invocation.output)
            if invocation[coverageArguments] { printArgumentCoverage(report, to: invocation.output) }
        }
        return ExitStatus.success
    }

    static func coverageTable(_ report: CoverageReport) -> Table {
        Table(
            columns: [
                "widget", "widget_kind", "protocol", "callback", "answer", "calls", "implemented", "defaulted",
                "branches_seen", "branches_missing", "inputs", "argument_classes_tried", "argument_classes_untried",
                "mistakes",
            ],
            rows: report.rows.map { row in
                [
                    .string(row.widget), .string(row.widgetKind), .string(row.protocolName), .string(row.callback),
                    .string(row.answer.rawValue), .int(row.calls), .int(row.implemented), .int(row.defaulted),
                    .string(row.branches.filter { $0.value > 0 }.keys.sorted().joined(separator: " ")),
                    .string(row.missingBranches.joined(separator: " ")),
                    .string(row.inputs.joined(separator: "; ")),
                    .string(row.triedClasses.map(\.description).joined(separator: "; ")),
                    .string(row.untriedClasses.map(\.description).joined(separator: "; ")), .int(row.mistakes),
                ]
            })
    }

    static func coverageJSON(_ report: CoverageReport) -> AuditValue {
        func tally(_ tally: CoverageReport.Tally) -> AuditValue {
            .object([
                "callbacks": .int(tally.callbacks), "called": .int(tally.called), "branches": .int(tally.branches),
                "branches_seen": .int(tally.branchesSeen), "called_percent": .double(tally.calledPercent),
                "branch_percent": .double(tally.branchPercent),
                "argument_classes": .int(tally.argumentClasses),
                "argument_classes_tried": .int(tally.argumentClassesTried),
                "argument_class_percent": .double(tally.argumentClassPercent),
            ])
        }
        return .object([
            "sessions": .array(report.sessions.map { .int(Int($0)) }),
            "total": tally(report.total),
            "protocols": .object(Dictionary(uniqueKeysWithValues: report.byProtocol.map { ($0.0, tally($0.1)) })),
            "callbacks": .array(
                report.rows.map { row in
                    .object([
                        "widget": .string(row.widget), "widget_kind": .string(row.widgetKind),
                        "protocol": .string(row.protocolName), "callback": .string(row.callback),
                        "answer": .string(row.answer.rawValue), "calls": .int(row.calls),
                        "implemented": .int(row.implemented), "defaulted": .int(row.defaulted),
                        "branches": .object(row.branches.mapValues { .int($0) }),
                        "inputs": .array(row.inputs.map(AuditValue.string)),
                        "arguments": argumentsJSON(row),
                        "states": .object(row.states.mapValues { .array($0.map { .string($0.rawValue) }) }),
                        "mistakes": .int(row.mistakes),
                    ])
                }),
        ])
    }

    /// By argument path: its types, the classes seen with each branch, and those never tried.
    static func argumentsJSON(_ row: CoverageReport.Row) -> AuditValue {
        func names(_ classes: [ArgumentClass]) -> AuditValue { .array(classes.map { .string($0.valueClass.rawValue) }) }
        let tried = row.triedClasses
        let paths = Set(tried.map(\.path)).sorted()
        return .object(
            Dictionary(
                uniqueKeysWithValues: paths.map { path in
                    (
                        path,
                        .object([
                            "types": .array(
                                Set(tried.filter { $0.path == path }.map(\.type)).sorted().map { .string($0.rawValue) }),
                            "seen": .object(row.argumentClasses.mapValues { names($0.filter { $0.path == path }) }),
                            "untried": names(row.untriedClasses.filter { $0.path == path }),
                        ])
                    )
                }))
    }

    static func printCoverage(_ report: CoverageReport, to output: Output) {
        func percent(_ value: Double) -> String { String(format: "%.0f%%", value) }
        let total = report.total
        output.line(
            "coverage of \(counted(report.sessions.count, "session")): \(total.called) of "
                + "\(counted(total.callbacks, "widget callback")) called (\(percent(total.calledPercent))), "
                + "\(total.branchesSeen) of \(counted(total.branches, "answer branch", "answer branches")) seen "
                + "(\(percent(total.branchPercent))), \(total.argumentClassesTried) of "
                + "\(counted(total.argumentClasses, "argument class", "argument classes")) tried "
                + "(\(percent(total.argumentClassPercent)))")
        for (name, tally) in report.byProtocol {
            output.line(
                "  \(name.visiblyEscaped()): \(tally.called) of \(tally.callbacks) called "
                    + "(\(percent(tally.calledPercent))), branches \(tally.branchesSeen) of \(tally.branches) "
                    + "(\(percent(tally.branchPercent)))")
        }
        let never = report.rows.filter { $0.calls == 0 }
        if !never.isEmpty {
            output.line()
            output.line("never called (no stored session can catch a change here):")
            for row in never { output.line("  \(row.widget.visiblyEscaped())  \(row.protocolName).\(row.callback)") }
        }
        let partial = report.rows.filter { $0.calls > 0 && !$0.missingBranches.isEmpty }
        if !partial.isEmpty {
            output.line()
            output.line("called, but some answers never seen:")
            for row in partial {
                output.line(
                    "  \(row.widget.visiblyEscaped())  \(row.protocolName).\(row.callback): never "
                        + "\(row.missingBranches.joined(separator: ", ")) (\(counted(row.calls, "call")), "
                        + "\(row.defaulted) answered by the default)")
            }
        }
        let mistaken = report.rows.filter { $0.mistakes > 0 }
        if !mistaken.isEmpty {
            output.line()
            output.line("handler mistakes (answers that come later; 'search --mistakes yes' lists them):")
            for row in mistaken {
                output.line(
                    "  \(row.widget.visiblyEscaped())  \(row.protocolName).\(row.callback): "
                        + counted(row.mistakes, "mistake"))
            }
        }
    }

    /// The `--arguments` section: for each callback called with arguments, each answer branch seen
    /// with its calls, where it was asked from and its arguments' classes (or the widgets they
    /// named), then the classes never tried.
    static func printArgumentCoverage(_ report: CoverageReport, to output: Output) {
        let rows = report.rows.filter { $0.calls > 0 }
        guard !rows.isEmpty else { return }
        output.line()
        output.line("answers by argument class and state (classes: CommandLineReference, coverage):")
        for row in rows {
            output.line("  \(row.widget.visiblyEscaped())  \(row.protocolName).\(row.callback)")
            for (branch, count) in row.branches.filter({ $0.value > 0 }).sorted(by: { $0.key < $1.key }) {
                let states = (row.states[branch] ?? []).map(\.rawValue).joined(separator: ", ")
                output.line("    \(branch) (\(count), \(states)): " + row.seenWith(branch).visiblyEscaped())
            }
            if !row.untriedClasses.isEmpty {
                output.line(
                    "    never tried: "
                        + CoverageReport.argumentText(row.untriedClasses).joined(separator: "; ").visiblyEscaped())
            }
        }
    }
}
