import AuditModel
import AuditStorage

extension Scenario {
    /// The scenario file's text with its name, delegate and steps replaced: what `record` and
    /// `replay` accept for a run made of other steps (a minimized or an explored one), `record`
    /// with no `--delegate` running it with `delegate` (nil: the delegate the text names, if any).
    package func text(name: String, delegate: String? = nil, steps: [ScenarioStep]) throws -> String {
        guard case .object(var fields) = try AuditValue(json: source) else { return source }
        fields["name"] = .string(name)
        if let delegate { fields["delegate"] = .string(delegate) }
        fields["steps"] = .array(try steps.map { try AuditValue(json: $0.description) })
        return AuditValue.object(fields).json
    }

    /// This scenario with `steps` instead of its own and its text to match, named `name`.
    package func replacing(steps: [ScenarioStep], name: String) throws -> Scenario {
        var scenario = self
        scenario.source = try text(name: name, steps: steps)
        scenario.name = name
        scenario.steps = steps
        return scenario
    }
}
