import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

extension HTMLTimeline {
    /// The page of `auditctl coverage --html`: what the sessions cover of every callback of every
    /// widget of their trees, with the same escaping and limits as the timeline pages.
    ///
    /// A header with the totals, a table per protocol, then what no stored session can catch —
    /// the callbacks never called, and those called whose answers were never all seen — and last
    /// every callback with its calls, the default's share, the branches seen and missing, and the
    /// inputs that reach it; last each answer branch seen, with where it was asked from, the
    /// argument classes (or the widgets named) it was seen with, and on the branch's first row the
    /// callback's classes never tried.
    ///
    /// - Complexity: O(*c*) for the report's *c* callback rows (each row's few branches sorted).
    public static func coverage(_ report: CoverageReport, limits: Limits = .standard) -> String {
        var page = HTMLPage(title: "auditctl · coverage", limits: limits)
        let total = report.total
        page.header(
            heading: report.sessions.count == 1
                ? "Coverage of session \(report.sessions[0])" : "Coverage of \(report.sessions.count) sessions",
            lines: (report.sessions.count > 1
                ? ["sessions " + report.sessions.map(String.init).joined(separator: ", ")] : [])
                + [
                    "\(percent(total.calledPercent)) of the widgets' callbacks called, "
                        + "\(percent(total.branchPercent)) of their answer branches seen, "
                        + "\(percent(total.argumentClassPercent)) of their argument classes tried"
                ],
            figures: [
                ("widget callbacks", total.callbacks), ("called", total.called), ("answer branches", total.branches),
                ("branches seen", total.branchesSeen), ("argument classes", total.argumentClasses),
                ("classes tried", total.argumentClassesTried),
            ])
        page.section("By protocol")
        page.table(
            ["protocol", "called", "callbacks", "called %", "branches seen", "branches", "seen %"],
            report.byProtocol.map { name, tally in
                [
                    .text(name), .text(HTMLPage.grouped(tally.called)), .text(HTMLPage.grouped(tally.callbacks)),
                    .text(percent(tally.calledPercent)), .text(HTMLPage.grouped(tally.branchesSeen)),
                    .text(HTMLPage.grouped(tally.branches)), .text(percent(tally.branchPercent)),
                ]
            }, numeric: [1, 2, 3, 4, 5, 6])
        page.section("Never called: no stored session can catch a change here")
        page.table(
            ["widget", "kind", "callback"],
            report.rows.filter { $0.calls == 0 }.map { row in
                [.text(row.widget), .text(row.widgetKind), .text("\(row.protocolName).\(row.callback)")]
            })
        page.section("Called, but some answers never seen")
        page.table(
            ["widget", "callback", "never seen", "calls", "answered by the default"],
            report.rows.filter { $0.calls > 0 && !$0.missingBranches.isEmpty }.map { row in
                [
                    .text(row.widget), .text("\(row.protocolName).\(row.callback)"),
                    .text(row.missingBranches.joined(separator: ", ")), .text(HTMLPage.grouped(row.calls)),
                    .text(HTMLPage.grouped(row.defaulted)),
                ]
            }, numeric: [3, 4])
        let mistaken = report.rows.filter { $0.mistakes > 0 }
        if !mistaken.isEmpty {
            page.section("Handler mistakes (answers that come later)")
            page.table(
                ["widget", "callback", "mistakes", "calls"],
                mistaken.map { row in
                    [
                        .text(row.widget), .text("\(row.protocolName).\(row.callback)"),
                        .text(HTMLPage.grouped(row.mistakes)), .text(HTMLPage.grouped(row.calls)),
                    ]
                }, numeric: [2, 3])
        }
        page.section("Every callback")
        page.table(
            ["widget", "callback", "answer", "calls", "implemented", "default", "branches seen", "missing", "inputs"],
            report.rows.map { row in
                [
                    .text(row.widget), .text("\(row.protocolName).\(row.callback)"), .text(row.answer.rawValue),
                    .text(HTMLPage.grouped(row.calls)), .text(HTMLPage.grouped(row.implemented)),
                    .text(HTMLPage.grouped(row.defaulted)),
                    .text(row.branches.filter { $0.value > 0 }.keys.sorted().joined(separator: ", ")),
                    .text(row.missingBranches.joined(separator: ", ")), .text(row.inputs.joined(separator: "; ")),
                ]
            }, numeric: [3, 4, 5])
        page.section("Answers by argument class and state")
        page.table(
            ["widget", "callback", "answer", "calls", "asked", "argument classes seen", "never tried"],
            report.rows.filter { $0.calls > 0 }.flatMap { row -> [[HTMLPage.Cell]] in
                let untried = CoverageReport.argumentText(row.untriedClasses).joined(separator: "; ")
                return row.branches.filter { $0.value > 0 }.sorted { $0.key < $1.key }.enumerated().map {
                    index, branch -> [HTMLPage.Cell] in
                    [
                        .text(row.widget), .text("\(row.protocolName).\(row.callback)"), .text(branch.key),
                        .text(HTMLPage.grouped(branch.value)),
                        .text((row.states[branch.key] ?? []).map(\.rawValue).joined(separator: ", ")),
                        .text(row.seenWith(branch.key)),
                        .text(index == 0 ? untried : ""),
                    ]
                }
            }, numeric: [3])
        return page.finished()
    }

    /// As the text output prints it: 67%.
    private static func percent(_ value: Double) -> String { "\(Int(value.rounded()))%" }
}
