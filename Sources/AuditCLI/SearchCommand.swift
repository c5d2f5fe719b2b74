import AuditCore
import Foundation

extension Command {
    static let search = Command(
        name: "search", summary: "find events by session, widget, callback, veto, kind and time",
        arguments: "",
        options: [
            .option("--session", "N", "only this session"),
            .option("--widget", "PATH", "only this widget and the widgets under it"),
            .option("--callback", "GLOB", "callback or input names matching an SQLite GLOB ('*shouldSelect*')"),
            .option("--vetoed", "yes|no", "only vetoed callbacks, or only callbacks that could veto and did not"),
            .option("--kind", "input|callback", "only inputs or only callbacks"),
            .option("--since", "TIME", "sessions started at or after TIME (ISO 8601, 'today', 'recent' = last 24 h)"),
            .option("--until", "TIME", "sessions started before TIME (a date alone means up to its end)"),
            .option("--label", "KEY=VALUE", "only sessions with this label; repeatable (all must match)"),
        ],
        positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Finds events across sessions by widget path, callback name (a glob), veto, kind and time,
            one line each.
            """,
        examples: [
            "search --vetoed yes",
            "search --widget checkout/shipping --callback '*shouldSelect*'",
            "search --session 1 --kind input --since 0.5 --format csv",
        ]
    ) { invocation in
        let search = try eventSearch(invocation)
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        var writer = TableWriter(
            columns: [
                "session", "seq", "started_at", "t_ms", "kind", "widget", "protocol", "callback", "args", "result",
                "vetoed", "implemented", "duration_us", "parent_seq",
            ], format: invocation.format, output: invocation.output)
        var found = 0
        try store.search(search) { match in
            let event = match.event
            found += 1
            writer.add([
                .int(Int(match.session)), .int(Int(event.seq)), .string(match.sessionStartedAt),
                .double(event.milliseconds), .string(event.kind.rawValue), event.widget.map(AuditValue.string) ?? .null,
                event.protocolName.map(AuditValue.string) ?? .null, .string(event.callback), .string(event.arguments),
                event.result.map(AuditValue.string) ?? .null, event.vetoed.map(AuditValue.bool) ?? .null,
                event.implemented.map(AuditValue.bool) ?? .null, .double(event.durationMicroseconds),
                event.parentSeq.map { .int(Int($0)) } ?? .null,
            ])
        }
        if found == 0 && invocation.format == .text {
            invocation.output.diagnostic("no events match")
        } else {
            writer.finish()
        }
        return found == 0 ? ExitStatus.differences : ExitStatus.success
    }

    /// The search the options describe, checked before the database is opened.
    static func eventSearch(_ invocation: Invocation, now: Date = Date()) throws(UsageError) -> EventSearch {
        var search = EventSearch()
        if invocation.option("--session") != nil { search.session = try invocation.integer("--session") }
        search.labels = try invocation.labels()
        if let widget = invocation.option("--widget") {
            guard !widget.isEmpty else { throw UsageError(message: "--widget needs a widget path") }
            search.widget = widget
        }
        if let callback = invocation.option("--callback") {
            guard !callback.isEmpty else { throw UsageError(message: "--callback needs a pattern") }
            search.callback = callback
        }
        if let vetoed = invocation.option("--vetoed") {
            switch vetoed {
            case "yes": search.vetoed = true
            case "no": search.vetoed = false
            default: throw UsageError(message: "--vetoed takes yes or no, not '\(vetoed)'")
            }
        }
        if let kind = invocation.option("--kind") {
            guard let value = EventKind(rawValue: kind) else {
                throw UsageError(message: "--kind takes input or callback, not '\(kind)'")
            }
            search.kind = value
        }
        for (name, side) in [("--since", TimeBound.Side.since), ("--until", .until)] {
            guard let text = invocation.option(name) else { continue }
            guard let date = TimeBound.parse(text, as: side, now: now) else {
                throw UsageError(
                    message:
                        "\(name) takes an ISO 8601 time (2026-11-30, 2026-11-30T05:30:00Z), 'today' or 'recent', not '\(text)'"
                )
            }
            if side == .since { search.since = date } else { search.until = date }
        }
        return search
    }
}
