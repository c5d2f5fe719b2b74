import AuditCore
import Foundation

extension Command {
    static let report: Command = Command(
        name: "report",
        summary: "sum up a session or every recording: callbacks, veto rates, defaults, slowest calls",
        arguments: "[--session N] [--html FILE]",
        options: [
            Options.session.withHelp("only this session (default: every session that is not a replay)"),
            Options.label, Options.shard, Options.html,
        ],
        positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Sums up sessions: callbacks by protocol and widget, veto rates, the answers left to the
            defaults, the slowest calls; --html draws one session's timeline as a page.
            """,
        examples: { _ in
            [
                "report",
                "report --session 1 --html report.html",
                "report --label branch=main --format json",
            ]
        }
    ) { invocation in
        let id = try invocation[Options.session]
        if invocation.has(Options.html) && id == nil {
            throw UsageError(message: "--html draws one session's timeline: give --session N")
        }
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        let report = try SessionReport(
            session: id, labels: try invocation.labels(), shard: try invocation[Options.shard], in: store)
        if try invocation[Options.shard] == nil { try invocation.checkLabelsSelect(report.sessions.count) }
        if let id { try HTMLOutput.writeReport(session: id, from: store, invocation) }
        let refer: (EventReference) -> String = { id == nil ? "\($0.session):\($0.seq)" : "\($0.seq)" }
        switch invocation.format {
        case .json: invocation.output.line(reportJSON(report).json)
        case .csv: reportTable(report.rows, refer).render(.csv, to: invocation.output)
        default: printReport(report, single: id != nil, refer, to: invocation.output)
        }
        return ExitStatus.success
    }

    static func reportTable(_ rows: [CallbackStatistics], _ refer: (EventReference) -> String) -> Table {
        Table(
            columns: [
                "protocol", "widget", "callback", "calls", "vetoable", "vetoes", "veto_rate", "defaulted", "p50_us",
                "p99_us", "max_us", "first", "slowest", "vetoed_events", "defaulted_events", "overridable", "overrides",
                "override_rate", "overridden_events", "mistakes", "mistake_events",
            ],
            rows: rows.map { row in
                [
                    row.protocolName.map(AuditValue.string) ?? .null, row.widget.map(AuditValue.string) ?? .null,
                    .string(row.callback), .int(row.calls), .int(row.vetoable), .int(row.vetoes),
                    row.vetoRate.map { .double(($0 * 1000).rounded() / 1000) } ?? .null, .int(row.defaulted),
                    .double(row.p50Microseconds), .double(row.p99Microseconds), .double(row.maxMicroseconds),
                    .string(refer(row.first)), .string(refer(row.slowest)),
                    .string(row.vetoedEvents.map(refer).joined(separator: " ")),
                    .string(row.defaultedEvents.map(refer).joined(separator: " ")), .int(row.overridable),
                    .int(row.overrides), row.overrideRate.map { .double(($0 * 1000).rounded() / 1000) } ?? .null,
                    .string(row.overriddenEvents.map(refer).joined(separator: " ")), .int(row.mistakes),
                    .string(row.mistakeEvents.map(refer).joined(separator: " ")),
                ]
            })
    }

    static func printReport(
        _ report: SessionReport, single: Bool, _ refer: (EventReference) -> String, to output: Output
    ) {
        let scope =
            single
            ? "session \(report.sessions.first ?? 0)"
            : "\(counted(report.sessions.count, "recorded session")) (replays left out)"
        output.line(
            "report of \(scope): \(counted(report.callbacks, "callback")), \(counted(report.inputs, "input"))")
        output.line(
            single
                ? "event numbers are seqs: open them with 'show --session \(report.sessions.first ?? 0)'"
                : "event numbers are SESSION:SEQ: open them with 'show --session SESSION'")
        func section(_ title: String, _ columns: [String], _ rows: [[AuditValue]]) {
            output.line()
            output.line(title)
            if rows.isEmpty {
                output.line("  (none)")
            } else {
                Table(columns: columns, rows: rows).render(.text, to: output)
            }
        }
        func name(_ row: CallbackStatistics) -> [AuditValue] {
            [.string(row.protocolName ?? "-"), .string(row.widget ?? "-"), .string(row.callback)]
        }
        section(
            "callbacks by protocol and widget",
            ["protocol", "widget", "callback", "calls", "vetoes", "defaulted", "first"],
            report.rows.map {
                name($0) + [.int($0.calls), .int($0.vetoes), .int($0.defaulted), .string(refer($0.first))]
            })
        for rates in report.rateTables {
            section(
                rates.title,
                [
                    "protocol", "widget", "callback", "asked", rates.effect.rawValue, "rate",
                    "\(rates.effect.rawValue) events",
                ],
                rates.rows.map { row in
                    let tally = row.tally(rates.effect)
                    return name(row) + [
                        .int(tally.asked), .int(tally.count),
                        .string(String(format: "%.1f%%", (tally.rate ?? 0) * 100)),
                        .string(
                            tally.events.map(refer).joined(separator: " ")
                                + (tally.count > tally.events.count ? " …" : "")),
                    ]
                })
        }
        section(
            "answered by a default (not implemented)", ["protocol", "widget", "callback", "defaulted", "events"],
            report.defaulted.map { row in
                name(row) + [
                    .int(row.defaulted),
                    .string(
                        row.defaultedEvents.map(refer).joined(separator: " ")
                            + (row.defaulted > row.defaultedEvents.count ? " …" : "")),
                ]
            })
        if report.mistakes > 0 {
            section(
                "handler mistakes (answers that come later)", ["protocol", "widget", "callback", "mistakes", "events"],
                report.withMistakes.map { row in
                    name(row) + [
                        .int(row.mistakes),
                        .string(
                            row.mistakeEvents.map(refer).joined(separator: " ")
                                + (row.mistakes > row.mistakeEvents.count ? " …" : "")),
                    ]
                })
        }
        section(
            "slowest delegate calls (microseconds)",
            ["protocol", "widget", "callback", "calls", "p50", "p99", "max", "slowest"],
            report.slowest().map { row in
                name(row) + [
                    .int(row.calls), .string(micro(row.p50Microseconds)), .string(micro(row.p99Microseconds)),
                    .string(micro(row.maxMicroseconds)), .string(refer(row.slowest)),
                ]
            })
    }

    private static func micro(_ value: Double) -> String { String(format: "%.1f", value) }

    static func reportJSON(_ report: SessionReport) -> AuditValue {
        func reference(_ event: EventReference) -> AuditValue {
            .object(["session": .int(Int(event.session)), "seq": .int(Int(event.seq))])
        }
        return .object([
            "sessions": .array(report.sessions.map { .int(Int($0)) }), "callbacks": .int(report.callbacks),
            "inputs": .int(report.inputs),
            "rows": .array(
                report.rows.map { row in
                    .object([
                        "protocol": row.protocolName.map(AuditValue.string) ?? .null,
                        "widget": row.widget.map(AuditValue.string) ?? .null, "callback": .string(row.callback),
                        "calls": .int(row.calls), "vetoable": .int(row.vetoable), "vetoes": .int(row.vetoes),
                        "veto_rate": row.vetoRate.map(AuditValue.double) ?? .null, "defaulted": .int(row.defaulted),
                        "p50_us": .double(row.p50Microseconds), "p99_us": .double(row.p99Microseconds),
                        "max_us": .double(row.maxMicroseconds), "first": reference(row.first),
                        "slowest": reference(row.slowest), "vetoed_events": .array(row.vetoedEvents.map(reference)),
                        "defaulted_events": .array(row.defaultedEvents.map(reference)),
                        "overridable": .int(row.overridable), "overrides": .int(row.overrides),
                        "override_rate": row.overrideRate.map(AuditValue.double) ?? .null,
                        "overridden_events": .array(row.overriddenEvents.map(reference)),
                        "mistakes": .int(row.mistakes), "mistake_events": .array(row.mistakeEvents.map(reference)),
                    ])
                }),
        ])
    }
}
