import AuditCore

extension Command {
    static let sessions = Command(
        name: "sessions", summary: "list the recorded sessions", arguments: "", options: [], positionals: 0...0,
        formats: [.text, .json, .csv]
    ) { invocation in
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        let table = Table(
            columns: [
                "id", "name", "scenario", "delegate", "status", "started_at", "events", "callbacks", "vetoes",
                "replay_of",
            ],
            rows: try store.sessions().map { session in
                [
                    .int(Int(session.id)), session.name.map(AuditValue.string) ?? .null, .string(session.scenario),
                    .string(session.delegate), .string(session.status), .string(session.startedAt),
                    .int(session.events),
                    .int(session.callbacks), .int(session.vetoes), session.replayOf.map { .int(Int($0)) } ?? .null,
                ]
            })
        table.render(invocation.format, to: invocation.output)
        return ExitStatus.success
    }
}
