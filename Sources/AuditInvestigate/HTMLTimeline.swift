import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// One self-contained HTML page that draws a session — or two, side by side — as a timeline.
///
/// The page holds everything it needs: inline CSS, inline SVG and a few lines of inline script
/// (the hover tooltip; without script the marks keep their native SVG titles). It loads nothing
/// from anywhere. Every text that comes from the database — widget paths, callback names,
/// arguments, results, session names — is escaped, so a recorded `<script>` is shown, never run.
///
/// The timeline has one lane per widget; each event is a mark in the column of its order, inputs
/// dark, callbacks blue, vetoes red, callbacks the app did not implement pale. A nested event sits
/// one row lower than its parent for each level, inside a band that spans its input's nested
/// calls; nesting that crosses widgets is drawn as a line from parent to child.
///
/// The page's size is bounded by `Limits`, whatever the session: at most `Limits.events` columns
/// of marks (the first ones) and `Limits.differences` listed differences; an overview strip counts
/// every event, and the page says what it left out.
public enum HTMLTimeline {
    /// How much a page draws and lists.
    public struct Limits: Sendable, Equatable {
        /// Columns of marks drawn: events of one session, or aligned pairs of events of two.
        public var events: Int
        /// Differences listed below the timeline (every one is still counted).
        public var differences: Int
        /// Rows of each summary table.
        public var tableRows: Int
        /// Characters of any one text from the database before it is cut with "…".
        public var textLength: Int

        public init(events: Int = 2_000, differences: Int = 1_000, tableRows: Int = 200, textLength: Int = 160) {
            self.events = max(1, events)
            self.differences = max(0, differences)
            self.tableRows = max(0, tableRows)
            self.textLength = max(8, textLength)
        }

        /// 2,000 columns, 1,000 differences, 200 rows per table, 160 characters per text.
        public static let standard = Limits()
    }

    /// The page for one session: its timeline, then the tables of `auditctl report` (callbacks by
    /// protocol and widget, veto rates, defaults, slowest calls).
    ///
    /// - Parameters:
    ///   - session: the session, as ``AuditStore/session(_:)`` reads it.
    ///   - events: the session's events in `seq` order, as ``AuditStore/timeline(of:)`` reads them.
    ///   - limits: how much the page draws and lists.
    ///
    /// - Complexity: O(*e* log *e*) for the session's *e* events (summed up as `SessionReport`
    ///   does); the page itself draws and lists no more than `limits` allow.
    public static func report(session: SessionSummary, events: [TimelineEvent], limits: Limits = .standard)
        -> String
    {
        let layout = TimelineLayout(
            sides: [.init(label: nil, events: events, differences: [:])], limits: limits)
        let report = SessionReport(sessions: [session.id], events: events.map { (session.id, $0) })
        var page = HTMLPage(title: "auditctl · session \(session.id)", limits: limits)
        page.header(
            heading: "Session \(session.id)" + (session.name.map { " ‘\($0)’" } ?? ""),
            lines: [describe(session)],
            figures: [
                ("events", events.count), ("inputs", report.inputs), ("callbacks", report.callbacks),
                ("vetoes", report.rows.reduce(0) { $0 + $1.vetoes }),
                ("answered by a default", report.rows.reduce(0) { $0 + $1.defaulted }),
            ] + (report.mistakes > 0 ? [("handler mistakes", report.mistakes)] : []))
        page.timeline(layout, differenceKinds: [])
        page.reportTables(report)
        return page.finished()
    }

    /// The page for two sessions (a diff, or a replay's recorded and candidate runs): their
    /// timelines aligned column by column, A's row above B's in each widget's lane, every
    /// difference highlighted in its kind's colour, and the list of differences below.
    ///
    /// - Parameters:
    ///   - diff: the two sessions' comparison, as ``SessionDiffer/diff(_:_:)`` makes it.
    ///   - eventsA: session A's events in `seq` order; only the first `diff.eventsA` are used (a
    ///     replay of an interrupted session compares its recorded part).
    ///   - eventsB: session B's events in `seq` order.
    ///   - labels: what the two sides are called: "A" and "B", or "recorded" and "candidate".
    ///   - heading: the page's first line, such as "Replay of session 1 against checkout.v2".
    ///   - limits: how much the page draws and lists.
    ///
    /// - Complexity: O(*n* + *m* + *D*) for the two sessions' *n* and *m* events and `diff`'s *D*
    ///   differences; the page itself draws and lists no more than `limits` allow.
    public static func comparison(
        _ diff: SessionDiff, eventsA: [TimelineEvent], eventsB: [TimelineEvent], labels: (a: String, b: String),
        heading: String, limits: Limits = .standard
    ) -> String {
        var kindsA: [Int64: EventDifference.Kind] = [:]
        var kindsB: [Int64: EventDifference.Kind] = [:]
        for difference in diff.differences {
            if let a = difference.a { kindsA[a.seq] = difference.kind }
            if let b = difference.b { kindsB[b.seq] = difference.kind }
        }
        let layout = TimelineLayout(
            sides: [
                .init(label: labels.a, events: Array(eventsA.prefix(diff.eventsA)), differences: kindsA),
                .init(label: labels.b, events: eventsB, differences: kindsB),
            ], limits: limits)
        var page = HTMLPage(title: "auditctl · \(heading)", limits: limits)
        let verdict =
            diff.identical
            ? "identical: no differences (times and durations are not compared)"
            : "\(HTMLPage.grouped(diff.differences.count)) difference\(diff.differences.count == 1 ? "" : "s")"
        page.header(
            heading: heading,
            lines: [
                "\(labels.a): \(describe(diff.a))", "\(labels.b): \(describe(diff.b))",
                diff.sameScenario ? verdict : verdict + " · note: the sessions ran different scenarios",
            ],
            figures: [("events in \(labels.a)", diff.eventsA), ("events in \(labels.b)", diff.eventsB)]
                + diff.counts.sorted { $0.key < $1.key }.filter { $0.value > 0 }.map {
                    (kindName($0.key, labels), $0.value)
                })
        let present = Set(diff.differences.map(\.kind))
        page.timeline(layout, differenceKinds: EventDifference.Kind.allCases.filter(present.contains))
        page.differenceTables(diff, labels: labels)
        return page.finished()
    }

    /// One line about a session: scenario, delegate, status, counts.
    static func describe(_ session: SessionSummary) -> String {
        var parts = ["session \(session.id)"]
        if let name = session.name { parts.append("‘\(name)’") }
        parts.append("scenario \(session.scenario) · delegate \(session.delegate) · \(session.status)")
        if let original = session.replayOf { parts.append("· a replay of session \(original)") }
        parts.append("· started \(session.startedAt)")
        return parts.joined(separator: " ")
    }

    /// How a difference kind is named on the page, with the sides' own names.
    static func kindName(_ kind: EventDifference.Kind, _ labels: (a: String, b: String)) -> String {
        switch kind {
        case .vetoChanged: "veto changed"
        case .overrideChanged: "override changed"
        case .resultChanged: "result changed"
        case .implementedChanged: "implemented changed"
        case .argumentsChanged: "arguments changed"
        case .mistake: "handler mistake"
        case .onlyInA: "only in \(labels.a)"
        case .onlyInB: "only in \(labels.b)"
        }
    }
}

extension String {
    /// The text with `&`, `<`, `>`, `"` and `'` replaced by character references: safe as HTML
    /// text and inside a quoted attribute value.
    var htmlEscaped: String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The text cut to `length` characters, with "…" when something was cut.
    func truncated(to length: Int) -> String {
        guard count > length else { return self }
        return String(prefix(max(1, length - 1))) + "…"
    }
}
