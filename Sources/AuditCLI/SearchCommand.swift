import AuditCore
import Foundation

extension Command {
    static let search: Command = Command(
        name: "search", summary: "find events by session, widget, callback, veto or override, kind and time",
        arguments: "",
        options: [
            Options.session, Options.widget, Options.callback, Options.vetoed, Options.overridden, Options.kind,
            Options.mistakes, Options.since, Options.until, Options.label,
        ],
        positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Finds events across sessions by widget path, callback name (a glob), veto or override, kind
            and time, one line each. A veto (a should… answer) is never an override (an answer that
            replaces a proposed value): --vetoed finds vetoes only, --overridden overrides only.
            --mistakes yes finds the handler mistakes of callbacks answered later (never answered,
            answered twice, answered after giving up).
            """,
        examples: { _ in
            [
                "search --vetoed yes",
                "search --overridden yes --widget screen --callback '*will*'",
                "search --session 1 --kind input --mistakes no --format csv",
            ]
        }
    ) { invocation in
        let search = try eventSearch(invocation)
        let store = try AuditStore(path: invocation.databasePath, access: .read)
        var writer = TableWriter(
            columns: [
                "session", "seq", "started_at", "t_ms", "kind", "widget", "protocol", "callback", "args", "result",
                "vetoed", "overridden", "implemented", "duration_us", "parent_seq", "later", "answers",
            ], format: invocation.format, output: invocation.output)
        var found = 0
        try search.forEachMatch(in: store) { match in
            let event = match.event
            found += 1
            writer.add([
                .int(Int(match.session)), .int(Int(event.seq)), .string(match.sessionStartedAt),
                .double(event.milliseconds), .string(event.kind.rawValue), event.widget.map(AuditValue.string) ?? .null,
                event.protocolName.map(AuditValue.string) ?? .null, .string(event.callback), .string(event.arguments),
                event.result.map(AuditValue.string) ?? .null, event.vetoed.map(AuditValue.bool) ?? .null,
                event.overridden.map(AuditValue.bool) ?? .null, event.implemented.map(AuditValue.bool) ?? .null,
                .double(event.durationMicroseconds),
                event.parentSeq.map { .int(Int($0)) } ?? .null, event.later.map { .string($0.name) } ?? .null,
                event.answers.map { .int(Int($0)) } ?? .null,
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
    static func eventSearch(_ invocation: Invocation) throws(UsageError) -> EventSearch {
        var search = EventSearch()
        search.session = try invocation[Options.session]
        search.labels = try invocation.labels()
        search.widget = try invocation[Options.widget]
        search.callback = try invocation[Options.callback]
        search.vetoed = try invocation[Options.vetoed]
        search.overridden = try invocation[Options.overridden]
        search.mistakes = try invocation[Options.mistakes]
        search.kind = try invocation[Options.kind]
        search.since = try invocation[Options.since]
        search.until = try invocation[Options.until]
        return search
    }
}

extension Options {
    /// `search --widget PATH`.
    static let widget = Option<String>("--widget", "PATH", "only this widget and the widgets under it") {
        text, name throws(UsageError) in
        guard !text.isEmpty else { throw UsageError(message: "\(name) needs a widget path") }
        return text
    }
    /// `search --callback GLOB`.
    static let callback = Option<String>(
        "--callback", "GLOB", "callback or input names matching an SQLite GLOB ('*shouldSelect*')"
    ) { text, name throws(UsageError) in
        guard !text.isEmpty else { throw UsageError(message: "\(name) needs a pattern") }
        return text
    }
    /// `search --vetoed yes|no`.
    static let vetoed = Option<Bool>.choice(
        "--vetoed", "only vetoes that vetoed, or only vetoes that allowed", ["yes": true, "no": false])
    /// `search --overridden yes|no`.
    static let overridden = Option<Bool>.choice(
        "--overridden", "only overrides that replaced the proposed value, or only overrides that kept it",
        ["yes": true, "no": false])
    /// `search --mistakes yes|no`.
    static let mistakes = Option<Bool>.choice(
        "--mistakes", "only handler mistakes of callbacks answered later, or only events that are none",
        ["yes": true, "no": false])
    /// `search --kind input|callback`.
    static let kind = Option<EventKind>.choice(
        "--kind", "only inputs or only callbacks", ["input": .input, "callback": .callback])
    /// `search --since TIME`.
    static let since = Option<Date>.time(
        "--since", "sessions started at or after TIME (ISO 8601, 'today', 'recent' = last 24 h)", as: .since)
    /// `search --until TIME`.
    static let until = Option<Date>.time(
        "--until", "sessions started before TIME (a date alone means up to its end)", as: .until)
}
