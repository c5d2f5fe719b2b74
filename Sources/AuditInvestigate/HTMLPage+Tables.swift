import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// The tables below the timeline: a session's report, or a comparison's differences.
extension HTMLPage {
    /// The tables of `auditctl report`, with the same rows and event numbers.
    mutating func reportTables(_ report: SessionReport) {
        func name(_ row: CallbackStatistics) -> [Cell] {
            [.text(row.protocolName ?? "-"), .text(row.widget ?? "-"), .text(row.callback)]
        }
        func events(_ list: [EventReference], _ total: Int) -> Cell {
            .text(list.map { "#\($0.seq)" }.joined(separator: " ") + (total > list.count ? " …" : ""))
        }
        section("Callbacks by protocol and widget")
        table(
            ["protocol", "widget", "callback", "calls", "vetoes", "defaulted", "first"],
            report.rows.map {
                name($0) + [
                    .text(Self.grouped($0.calls)), .text(Self.grouped($0.vetoes)), .text(Self.grouped($0.defaulted)),
                    .text("#\($0.first.seq)"),
                ]
            }, numeric: [3, 4, 5])
        for rates in report.rateTables {
            section(rates.title.prefix(1).uppercased() + rates.title.dropFirst())
            table(
                [
                    "protocol", "widget", "callback", "asked", rates.effect.rawValue, "rate",
                    "\(rates.effect.rawValue) events",
                ],
                rates.rows.map { row in
                    let tally = row.tally(rates.effect)
                    return name(row) + [
                        .text(Self.grouped(tally.asked)), .text(Self.grouped(tally.count)),
                        .html(Self.rateBar(tally.rate ?? 0)), events(tally.events, tally.count),
                    ]
                }, numeric: [3, 4])
        }
        section("Answered by a default (not implemented)")
        table(
            ["protocol", "widget", "callback", "defaulted", "events"],
            report.defaulted.map {
                name($0) + [.text(Self.grouped($0.defaulted)), events($0.defaultedEvents, $0.defaulted)]
            },
            numeric: [3])
        if report.mistakes > 0 {
            section("Handler mistakes (answers that come later)")
            table(
                ["protocol", "widget", "callback", "mistakes", "events"],
                report.withMistakes.map {
                    name($0) + [.text(Self.grouped($0.mistakes)), events($0.mistakeEvents, $0.mistakes)]
                },
                numeric: [3])
        }
        section("Slowest delegate calls (microseconds)")
        table(
            ["protocol", "widget", "callback", "calls", "p50", "p99", "max", "slowest"],
            report.slowest().map { row in
                name(row) + [
                    .text(Self.grouped(row.calls)), .text(Self.micro(row.p50Microseconds)),
                    .text(Self.micro(row.p99Microseconds)), .text(Self.micro(row.maxMicroseconds)),
                    .text("#\(row.slowest.seq)"),
                ]
            }, numeric: [3, 4, 5, 6])
    }

    /// The differences grouped by widget and callback, then each difference with both answers.
    mutating func differenceTables(_ diff: SessionDiff, labels: (a: String, b: String)) {
        guard !diff.identical else { return }
        section("Differences by widget and callback")
        table(
            ["widget", "callback", "differences"],
            diff.groups.map { group in
                [
                    .text(group.widget ?? "-"),
                    .text(group.protocolName.map { "\($0).\(group.callback)" } ?? group.callback),
                    .html(
                        group.counts.sorted { $0.key < $1.key }.map {
                            chip($0.key, labels, count: $0.value)
                        }.joined(separator: " ")),
                ]
            })
        section("Every difference")
        let listed = diff.differences.prefix(limits.differences)
        table(
            ["", "widget", "callback", "arguments", labels.a, labels.b],
            listed.map { difference in
                let event = difference.event
                return [
                    .html(chip(difference.kind, labels)), .text(event.widget ?? "-"),
                    .text(event.protocolName.map { "\($0).\(event.callback)" } ?? event.callback),
                    .html(json(event.arguments)),
                    .html(answer(difference.a, anchor: "a")), .html(answer(difference.b, anchor: "b")),
                ]
            })
        if diff.differences.count > listed.count {
            note(
                "listing the first \(Self.grouped(listed.count)) of \(Self.grouped(diff.differences.count)) "
                    + "differences; 'auditctl diff \(diff.a.id) \(diff.b.id)' prints them all")
        }
    }

    /// A coloured label for a difference kind, optionally with a count.
    private func chip(_ kind: EventDifference.Kind, _ labels: (a: String, b: String), count: Int? = nil) -> String {
        let name = HTMLTimeline.kindName(kind, labels)
        return "<span class=\"chip d\(Self.kindIndex(kind))\">\(text(count.map { "\($0) \(name)" } ?? name))</span>"
    }

    /// One side's answer in the list of differences, its seq linking to its mark.
    private func answer(_ event: TimelineEvent?, anchor: String) -> String {
        guard let event else { return "<span class=\"none\">(no such event)</span>" }
        var html = "<a href=\"#\(anchor)\(event.seq)\">#\(event.seq)</a> → \(json(event.result ?? "()"))"
        if let effect = event.effect { html += " <b class=\"\(effect.rawValue)\">\(effect.label)</b>" }
        if event.implemented == false { html += " <span class=\"none\">(default)</span>" }
        return html
    }

    /// A rate as a percentage with a small bar.
    private static func rateBar(_ rate: Double) -> String {
        let percent = (rate * 1000).rounded() / 10
        return "<span class=\"rate\"><i style=\"width:\(Int((rate * 60).rounded()))px\"></i>\(percent)%</span>"
    }

    private static func micro(_ value: Double) -> String {
        "\(Double(Int((value * 10).rounded())) / 10)"
    }
}
