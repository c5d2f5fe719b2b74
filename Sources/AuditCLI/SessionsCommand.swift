import AuditCore

extension Command {
    static let sessions: Command = Command(
        name: "sessions", summary: "list the recorded sessions", arguments: "",
        options: [Options.label],
        positionals: 0...0,
        formats: [.text, .json, .csv],
        discussion: """
            Lists the sessions of the database, oldest first: their scenario, delegate, status, counts,
            the session a replay replayed and the labels.
            """,
        examples: { _ in
            [
                "sessions",
                "sessions --label device=iPad --format csv",
            ]
        }
    ) { invocation in
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        // The UUID is for machines (json, csv): 36 characters a person reads the id for instead.
        let withUUID = invocation.format != .text
        var columns = [
            "id", "name", "scenario", "delegate", "status", "started_at", "events", "callbacks", "vetoes", "replay_of",
            "labels",
        ]
        if withUUID { columns.append("uuid") }
        let rows = try store.sessions().filter(invocation.matchesLabels).map { session -> [AuditValue] in
            let labels: String = session.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: ",")
            var row: [AuditValue] = [
                .int(Int(session.id)), session.name.map(AuditValue.string) ?? .null, .string(session.scenario),
                .string(session.delegate), .string(session.status.rawValue), .string(session.startedAt),
                .int(session.events), .int(session.callbacks), .int(session.vetoes),
                session.replayOf.map { AuditValue.int(Int($0)) } ?? .null, labels.isEmpty ? .null : .string(labels),
            ]
            if withUUID { row.append(session.uuid.map(AuditValue.string) ?? .null) }
            return row
        }
        let table = Table(columns: columns, rows: rows)
        table.render(invocation.format, to: invocation.output)
        return ExitStatus.success
    }
}
