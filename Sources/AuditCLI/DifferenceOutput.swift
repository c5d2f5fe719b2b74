import AuditCore

/// How differences are printed by `replay` and `diff`: the same words, the same JSON.
enum DifferenceOutput {
    /// Names of the two sides: "recorded"/"candidate" for a replay, "A"/"B" for a diff.
    struct Sides {
        let a: String
        let b: String
    }

    static func describe(_ kind: EventDifference.Kind, _ sides: Sides) -> String {
        switch kind {
        case .vetoChanged: "veto changed"
        case .overrideChanged: "override changed"
        case .resultChanged: "result changed"
        case .implementedChanged: "implemented changed"
        case .argumentsChanged: "arguments changed"
        case .mistake: "handler mistake"
        case .onlyInA: "only in \(sides.a)"
        case .onlyInB: "only in \(sides.b)"
        }
    }

    /// The callback with its protocol, escaped for a terminal.
    static func callbackName(_ event: TimelineEvent) -> String {
        (event.protocolName.map { "\($0).\(event.callback)" } ?? event.callback).visiblyEscaped()
    }

    static func answer(_ event: TimelineEvent?) -> String {
        guard let event else { return "(no such event)" }
        var text =
            "#\(event.seq) \(event.arguments.visiblyEscaped(json: true)) → "
            + (event.result?.visiblyEscaped(json: true) ?? "()")
        if let effect = event.effect { text += "  \(effect.label)" }
        if event.implemented == false { text += "  (not implemented, default used)" }
        if let note = event.laterNote { text += "  (\(note))" }
        return text
    }

    static func printGroups(_ diff: SessionDiff, _ sides: Sides, to output: Output) {
        output.line("differences by widget and callback:")
        for group in diff.groups {
            let name = (group.protocolName.map { "\($0).\(group.callback)" } ?? group.callback).visiblyEscaped()
            let counts = group.counts.sorted { $0.key < $1.key }.map { "\($0.value) \(describe($0.key, sides))" }
            output.line("  \((group.widget ?? "-").visiblyEscaped())  \(name): \(counts.joined(separator: ", "))")
        }
        output.line()
        output.line("every difference:")
        for difference in diff.differences {
            let event = difference.event
            output.line(
                "  \(describe(difference.kind, sides)): \((event.widget ?? "-").visiblyEscaped()) \(callbackName(event))"
            )
            if let a = difference.a {
                output.line("      \(sides.a.padding(toLength: 9, withPad: " ", startingAt: 0)) \(answer(a))")
            }
            if let b = difference.b {
                output.line("      \(sides.b.padding(toLength: 9, withPad: " ", startingAt: 0)) \(answer(b))")
            }
        }
    }

    static func json(_ difference: EventDifference) -> AuditValue {
        let event = difference.event
        return .object([
            "kind": .string(difference.kind.rawValue), "widget": event.widget.map(AuditValue.string) ?? .null,
            "protocol": event.protocolName.map(AuditValue.string) ?? .null, "callback": .string(event.callback),
            "a": difference.a.map(eventJSON) ?? .null, "b": difference.b.map(eventJSON) ?? .null,
        ])
    }

    /// One event as `show --format json` writes it.
    static func eventJSON(_ event: TimelineEvent) -> AuditValue { Command.eventValue(event) }

    static func summary(_ diff: SessionDiff) -> AuditValue {
        summary(
            diff.a, diff.eventsA, diff.b, diff.eventsB, differences: diff.differences.count,
            pairedInOrder: diff.pairedInOrder, counts: diff.counts)
    }

    static func summary(_ comparison: SessionComparison) -> AuditValue {
        summary(
            comparison.a, comparison.eventsA, comparison.b, comparison.eventsB,
            differences: comparison.differenceCount, pairedInOrder: comparison.pairedInOrder,
            counts: comparison.counts)
    }

    private static func summary(
        _ a: SessionSummary, _ eventsA: Int, _ b: SessionSummary, _ eventsB: Int, differences: Int,
        pairedInOrder: Bool, counts: [EventDifference.Kind: Int]
    ) -> AuditValue {
        var fields: [String: AuditValue] = [
            "a": .object(["session": .int(Int(a.id)), "events": .int(eventsA), "scenario": .string(a.scenario)]),
            "b": .object(["session": .int(Int(b.id)), "events": .int(eventsB), "scenario": .string(b.scenario)]),
            "same_scenario": .bool(a.scenario == b.scenario), "differences": .int(differences),
            "paired_in_order": .bool(pairedInOrder),
        ]
        for (kind, count) in counts { fields[kind.rawValue] = .int(count) }
        return .object(fields)
    }
}
