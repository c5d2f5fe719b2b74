import AuditCore

extension Command {
    static let delegates: Command = Command(
        name: "delegates", summary: "list the registered delegate implementations", arguments: "", options: [],
        positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Lists the delegate implementations this build registers, by the names record, replay and
            explore take.
            """,
        examples: { _ in
            [
                "delegates",
                "delegates --format csv",
            ]
        }
    ) { invocation in
        Table(
            columns: ["name", "summary"],
            rows: invocation.registry.entries.map { [.string($0.name), .string($0.summary)] }
        ).render(invocation.format, to: invocation.output)
        return ExitStatus.success
    }

    static let callbacks: Command = Command(
        name: "callbacks", summary: "list every audited callback and input, with its veto semantics and default",
        arguments: "", options: [], positionals: 0...0, formats: [.text, .json, .csv],
        discussion: """
            Lists every callback and input the registered widget kinds declare: its protocol, whether it
            can veto or override, the answer its default gives, and how the answer comes: returned, or
            later through a completion handler or an async method's return.
            """,
        examples: { _ in
            [
                "callbacks",
                "callbacks --format json",
            ]
        }
    ) { invocation in
        let rows = (invocation.catalog.callbacks + invocation.catalog.inputs).map { descriptor -> [AuditValue] in
            [
                .string(descriptor.kind.rawValue), .string(descriptor.protocolName), .string(descriptor.name),
                .string(descriptor.argumentLabels.joined(separator: ", ")), .string(descriptor.answer.rawValue),
                .string(descriptor.defaultAnswer),
                .string(descriptor.kind == .input ? "—" : descriptor.answered.rawValue),
            ]
        }
        Table(columns: ["kind", "protocol", "callback", "arguments", "answer", "default", "answered"], rows: rows)
            .render(invocation.format, to: invocation.output)
        return ExitStatus.success
    }
}
