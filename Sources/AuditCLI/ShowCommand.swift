import AuditCore
import Foundation

extension Command {
    static let show: Command = Command(
        name: "show", summary: "one session's timeline, nested callbacks indented", arguments: "--session N",
        options: [Options.session.withHelp("the session to show")], positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Prints one session's events in order, each callback nested under the input or callback it
            happened in, with its arguments, answer and veto.
            """,
        examples: { _ in
            [
                "show --session 1",
                "show --session 2 --format json",
            ]
        }
    ) { invocation in
        try showSession(
            try invocation.required(Options.session), invocation.databasePath, invocation.format, invocation.output)
        return ExitStatus.success
    }

    static func showSession(_ id: Int64, _ databasePath: String, _ format: Format, _ output: Output) throws {
        let store = try AuditStore(path: databasePath, access: .read)
        let session = try store.session(id)
        switch format {
        case .json:
            try writeJSON(session, from: store, to: output)
        case .csv:
            var writer = TableWriter(columns: timelineColumns, format: .csv, output: output)
            try store.forEachTimelineEvent(of: id) { writer.add(timelineRow($0)) }
            writer.finish()
        default:
            var text = TimelineText(session, to: output)
            try store.forEachNestedTimelineEvent(of: id) { text.add($0, depth: $1) }
            text.finish()
        }
    }

    /// `{"events":[…],"session":{…}}`, each event written as it is read: the memory used does not
    /// grow with the session. The keys come in the order `AuditValue.json` sorts them, so the text
    /// is what the whole value would print.
    private static func writeJSON(_ session: SessionSummary, from store: AuditStore, to output: Output) throws {
        var writer = ChunkedWriter(output)
        writer.append("{\"events\":[")
        var separator = ""
        try store.forEachTimelineEvent(of: session.id) { event in
            writer.append(separator + eventValue(event).json)
            separator = ","
        }
        writer.append("],\"session\":" + sessionValue(session).json + "}\n")
        writer.flush()
    }

    static let timelineColumns = [
        "seq", "t_ms", "kind", "widget", "widget_kind", "protocol", "callback", "args", "result", "vetoed",
        "overridden", "implemented", "duration_us", "parent_seq",
    ]

    static func timelineRow(_ event: TimelineEvent) -> [AuditValue] {
        [
            .int(Int(event.seq)), .double(event.milliseconds), .string(event.kind.rawValue),
            event.widget.map(AuditValue.string) ?? .null, event.widgetKind.map(AuditValue.string) ?? .null,
            event.protocolName.map(AuditValue.string) ?? .null, .string(event.callback), .string(event.arguments),
            event.result.map(AuditValue.string) ?? .null, event.vetoed.map(AuditValue.bool) ?? .null,
            event.overridden.map(AuditValue.bool) ?? .null, event.implemented.map(AuditValue.bool) ?? .null,
            .double(event.durationMicroseconds),
            event.parentSeq.map { .int(Int($0)) } ?? .null,
        ]
    }

    static func eventValue(_ event: TimelineEvent) -> AuditValue {
        var fields = Dictionary(uniqueKeysWithValues: zip(timelineColumns, timelineRow(event)))
        // args and result are JSON already: embed them as values, not as strings.
        fields["args"] = parseJSON(event.arguments)
        fields["result"] = event.result.map(parseJSON) ?? .null
        return .object(fields)
    }

    static func sessionValue(_ session: SessionSummary) -> AuditValue {
        .object([
            "id": .int(Int(session.id)), "name": session.name.map(AuditValue.string) ?? .null,
            "scenario": .string(session.scenario), "delegate": .string(session.delegate),
            "status": .string(session.status.rawValue),
            "started_at": .string(session.startedAt), "ended_at": session.endedAt.map(AuditValue.string) ?? .null,
            "replay_of": session.replayOf.map { .int(Int($0)) } ?? .null, "events": .int(session.events),
            "inputs": .int(session.inputs), "callbacks": .int(session.callbacks), "vetoes": .int(session.vetoes),
            "failures": .int(session.failures),
        ])
    }

    private static func parseJSON(_ text: String) -> AuditValue {
        (try? AuditValue(json: text)) ?? .string(text)
    }
}

/// "1 event", "2 events".
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
