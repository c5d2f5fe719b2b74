extension Scenario {
    /// The scenario file's text with its name and steps replaced: what `record` and `replay` accept
    /// for a run made of other steps (a minimized or an explored one).
    func text(name: String, steps: [ScenarioStep]) throws -> String {
        guard case .object(var fields) = try AuditValue(json: source) else { return source }
        fields["name"] = .string(name)
        fields["steps"] = .array(try steps.map { try AuditValue(json: $0.description) })
        return AuditValue.object(fields).json
    }

    /// This scenario with `steps` instead of its own and its text to match, named `name`.
    func replacing(steps: [ScenarioStep], name: String) throws -> Scenario {
        var scenario = self
        scenario.source = try text(name: name, steps: steps)
        scenario.name = name
        scenario.steps = steps
        return scenario
    }
}
