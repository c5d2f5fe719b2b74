import AuditCore

/// `show`'s text: a line for the session, then a line per event, nested events indented, written
/// as the events come in chunks of about 64 KB (a `ChunkedWriter`). It holds no event, so the
/// memory `show` uses does not grow with the session, as with `--format json`.
struct TimelineText {
    /// The deepest nesting indented; deeper events are indented as much, after a marker with their
    /// real depth (`[depth 40]`), so a line never starts past column 80.
    static let maximumIndent = 32

    private var writer: ChunkedWriter

    /// Starts the text of `session`: writes its line (once the first chunk fills).
    init(_ session: SessionSummary, to output: Output) {
        writer = ChunkedWriter(output)
        writer.append(
            "session \(session.id)\(session.name.map { " '\($0.visiblyEscaped())'" } ?? "") · scenario "
                + "\(session.scenario.visiblyEscaped()) · delegate \(session.delegate.visiblyEscaped()) · "
                + "\(session.status) · \(counted(session.events, "event")), "
                + counted(session.vetoes, "veto", "vetoes") + "\n")
    }

    /// Adds the line of `event`, nested `depth` deep (see `AuditStore.forEachNestedTimelineEvent`).
    mutating func add(_ event: TimelineEvent, depth: Int) {
        writer.append(Self.line(event, depth: depth) + "\n")
    }

    /// Writes what is left; call it once, after the last event.
    mutating func finish() {
        writer.flush()
    }

    static func line(_ event: TimelineEvent, depth: Int) -> String {
        var indent = String(repeating: "  ", count: min(depth, maximumIndent))
        if depth > maximumIndent { indent += "[depth \(depth)] " }
        let time = Table.time(event.milliseconds).leftPadded(to: 9) + " ms"
        let widget = (event.widget ?? "-").visiblyEscaped()
        let callback = event.callback.visiblyEscaped()
        let arguments = event.arguments.visiblyEscaped(json: true)
        let result = event.result?.visiblyEscaped(json: true)
        var line = "\(String(event.seq).leftPadded(to: 5)) \(time)  \(indent)"
        if event.kind == .input {
            line += "▶ \(widget) \(callback) \(arguments)"
            if let result { line += " → \(result)" }
        } else {
            line += "\(widget) \(callback) \(arguments)"
            if event.implemented == false {
                line += " → \(result ?? "()") (not implemented, default used)"
            } else if let result {
                line += " → \(result)"
            }
            if let effect = event.effect { line += "  \(effect.label)" }
            if let note = event.laterNote { line += "  (\(note))" }
        }
        return line
    }
}
