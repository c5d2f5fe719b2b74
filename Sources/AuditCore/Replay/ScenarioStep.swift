/// One input of a scenario, applied to the widget named by its path.
///
/// Each step is an object with an `action`, the `widget` it drives, and the action's fields; the
/// actions are the widgets' inputs (see `auditctl callbacks`), so a recorded input is the step
/// that caused it. New actions are added as new names; files written for older builds keep their
/// meaning.
public struct ScenarioStep: Sendable, Hashable, CustomStringConvertible {
    public let action: String
    public let widget: String
    /// The action's fields, in the input's argument order, defaults filled in.
    public let arguments: [AuditValue]

    public var description: String {
        var fields: [String: AuditValue] = ["action": .string(action), "widget": .string(widget)]
        for (label, value) in zip(definition.fields.map(\.label), arguments) { fields[label] = value }
        return AuditValue.object(fields).json
    }

    private var definition: InputAction { InputActions.byName[action]! }

    init(_ value: AuditValue, at path: String) throws(ScenarioError) {
        var fields = try FieldReader(value, at: path)
        action = try fields.string("action")
        widget = try fields.string("widget")
        guard let definition = InputActions.byName[action] else {
            throw ScenarioError(
                at: fields.location("action"),
                "unknown action '\(action)' (known: \(InputActions.all.map(\.name).joined(separator: ", ")))")
        }
        var arguments: [AuditValue] = []
        for field in definition.fields {
            guard let value = fields.optional(field.label) ?? field.defaultValue else {
                throw ScenarioError(at: fields.location(field.label), "missing required field")
            }
            guard field.accepts(value) else {
                throw ScenarioError(at: fields.location(field.label), "expected \(field.expected)")
            }
            arguments.append(value)
        }
        self.arguments = arguments
        try fields.finish()
    }

    /// The step that a recorded input event stands for: an input's name is its step's `action`
    /// and its argument labels are the step's fields, so recorded inputs can be driven again.
    public init(input name: String, widget: String, arguments: AuditValue, at path: String) throws(ScenarioError) {
        guard case .object(var fields) = arguments else { throw ScenarioError(at: path, "arguments are not an object") }
        fields["action"] = .string(name)
        fields["widget"] = .string(widget)
        try self.init(.object(fields), at: path)
    }

    /// Checks what can be known from the file: the widget exists, is of the action's kind, and
    /// the values fit the tree as described (a segment index against the segments).
    func validate(in root: View, at path: String) throws(ScenarioError) {
        let view = try target(in: root, at: path)
        if let problem = definition.staticCheck(view, arguments) { throw error(problem, at: path) }
    }

    /// Checks the step against the tree's current state (a text range against the current text).
    func check(in root: View, at path: String) throws(ScenarioError) {
        let view = try target(in: root, at: path)
        if let problem = definition.check(view, arguments) { throw error(problem, at: path) }
    }

    /// Drives the widget. The step must have passed `check` on this tree's current state.
    public func perform(in root: View) {
        definition.perform(root.auditedObject(atPath: widget)!, arguments)
    }

    private func target(in root: View, at path: String) throws(ScenarioError) -> AnyObject {
        guard let object = root.auditedObject(atPath: widget) else {
            throw ScenarioError(at: "\(path).widget", "no widget at '\(widget)'")
        }
        guard definition.accepts(object) else {
            let kind =
                (object as? View)?.widgetKind ?? (object as? GestureRecognizer)?.widgetKind ?? "\(type(of: object))"
            throw ScenarioError(at: "\(path).widget", "'\(widget)' is a \(kind), not a \(definition.widgetKind)")
        }
        return object
    }

    private func error(_ problem: StepProblem, at path: String) -> ScenarioError {
        ScenarioError(at: problem.field.map { "\(path).\($0)" } ?? path, problem.message)
    }
}

extension ScenarioStep {
    /// The user taps a segment.
    public static func tapSegment(widget: String, segment: Int) -> ScenarioStep {
        try! ScenarioStep(
            .object(["action": .string("tapSegment"), "widget": .string(widget), "segment": .int(segment)]), at: "")
    }

    /// Code selects a segment; `notify: false` suppresses the did-callback.
    public static func selectSegment(widget: String, segment: Int, notify: Bool) -> ScenarioStep {
        try! ScenarioStep(
            .object([
                "action": .string("selectSegment"), "widget": .string(widget), "segment": .int(segment),
                "notify": .bool(notify),
            ]), at: "")
    }
}
