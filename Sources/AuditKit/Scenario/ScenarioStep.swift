import AuditModel
import AuditStorage

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
    /// The input this step performs: the one of that name that the widget's kind declares.
    package let definition: InputAction

    public var description: String {
        var fields: [String: AuditValue] = ["action": .string(action), "widget": .string(widget)]
        for (label, value) in zip(definition.fields.map(\.label), arguments) { fields[label] = value }
        return AuditValue.object(fields).json
    }

    public static func == (a: ScenarioStep, b: ScenarioStep) -> Bool {
        a.action == b.action && a.widget == b.widget && a.arguments == b.arguments
            && a.definition.widgetKind == b.definition.widgetKind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(action)
        hasher.combine(widget)
        hasher.combine(arguments)
    }

    package init(definition: InputAction, widget: String, arguments: [AuditValue]) {
        self.definition = definition
        action = definition.name
        self.widget = widget
        self.arguments = arguments
    }

    /// Reads a step and checks it against `tree` as the file describes it: the widget exists, it
    /// takes an input of that name (looked up in the widget's kind, so two kinds may both have a
    /// `drag`), the fields have the input's shape and fit the tree (a segment index against the
    /// segments).
    package init(_ value: AuditValue, at path: String, in tree: View, catalog: WidgetCatalog) throws(ScenarioError) {
        var fields = try FieldReader(value, at: path)
        action = try fields.string("action")
        widget = try fields.string("widget")
        guard let object = tree.auditedObject(atPath: widget) else {
            throw ScenarioError(at: "\(path).widget", "no widget at '\(widget)'")
        }
        let asked = action == InputAction.askName ? try Self.asked(fields, in: catalog) : nil
        guard let definition = asked ?? catalog.input(named: action, for: object) else {
            let kind = Self.kind(of: object)
            let declaring = catalog.kinds(declaringInput: action)
            if declaring.isEmpty {
                throw ScenarioError(
                    at: fields.location("action"),
                    "unknown action '\(action)' for a \(kind) (it takes: "
                        + "\(catalog.inputNames(for: object).joined(separator: ", ")))")
            }
            throw ScenarioError(
                at: "\(path).widget", "'\(widget)' is a \(kind), not a \(declaring.joined(separator: " or "))")
        }
        self.definition = definition
        var arguments: [AuditValue] = []
        for field in definition.fields {
            guard let value = fields.optional(field.label) ?? field.defaultValue else {
                throw ScenarioError(at: fields.location(field.label), "missing required field")
            }
            if let problem = field.part.problem(value) { throw Self.error(problem, at: path) }
            arguments.append(value)
        }
        self.arguments = arguments
        try fields.finish()
        if let problem = definition.staticCheck(object, arguments) { throw Self.error(problem, at: path) }
    }

    /// The step that recorded input arguments stand for, in label order, for the widget `object`
    /// of the kind `definition` belongs to: checked as a file's step is, without going through
    /// field names (replay makes one for every recorded input). With no `object` (a widget added
    /// during the session) only the values' shapes are checked here.
    package init(
        recorded definition: InputAction, widget: String, arguments: [AuditValue], object: AnyObject?, at path: String
    )
        throws(ScenarioError)
    {
        guard arguments.count == definition.fields.count else {
            throw ScenarioError(
                at: path, "\(arguments.count) arguments; '\(definition.name)' takes \(definition.fields.count)")
        }
        for (field, value) in zip(definition.fields, arguments) where !field.part.accepts(value) {
            throw ScenarioError(at: "\(path).\(field.label)", "expected \(field.part.expected)")
        }
        if let object, let problem = definition.staticCheck(object, arguments) { throw Self.error(problem, at: path) }
        self.init(definition: definition, widget: widget, arguments: arguments)
    }

    /// The widget or recognizer this step drives in `root`'s tree, checked against its current
    /// state (a text range against the current text).
    ///
    /// `path` names the step in an error; it is made only then (replay checks every input).
    package func target(in root: View, at path: @autoclosure () -> String) throws(ScenarioError) -> AnyObject {
        guard let object = root.auditedObject(atPath: widget) else {
            throw ScenarioError(at: "\(path()).widget", "no widget at '\(widget)'")
        }
        guard definition.accepts(object) else {
            throw ScenarioError(
                at: "\(path()).widget", "'\(widget)' is a \(Self.kind(of: object)), not a \(definition.widgetKind)")
        }
        if let problem = definition.check(object, arguments) { throw Self.error(problem, at: path()) }
        return object
    }

    /// Drives the widget. The step must have passed `target(in:at:)` on this tree's current state.
    public func perform(in root: View) {
        perform(on: root.auditedObject(atPath: widget)!)
    }

    /// Drives `object`, the step's widget as `target(in:at:)` found it.
    func perform(on object: AnyObject) {
        definition.perform(object, arguments)
    }

    /// The `ask` action for the callback a step's `callback` field names.
    private static func asked(_ fields: FieldReader, in catalog: WidgetCatalog) throws(ScenarioError) -> InputAction {
        var fields = fields
        guard let value = fields.optional("callback") else {
            throw ScenarioError(at: fields.location("callback"), "missing required field")
        }
        let name = try FieldReader.string(value, at: fields.location("callback"))
        guard let action = InputAction.asking(named: name, catalog: catalog) else {
            throw ScenarioError(
                at: fields.location("callback"),
                "unknown callback '\(name)' (`auditctl callbacks` lists them, as Protocol.name(_:…))")
        }
        return action
    }

    private static func kind(of object: AnyObject) -> String {
        (object as? View)?.widgetKind ?? (object as? GestureRecognizer)?.widgetKind ?? "\(type(of: object))"
    }

    private static func error(_ problem: StepProblem, at path: String) -> ScenarioError {
        ScenarioError(at: problem.field.map { "\(path).\($0)" } ?? path, problem.message)
    }
}

extension ScenarioStep {
    /// The user taps a segment.
    public static func tapSegment(widget: String, segment: Int) -> ScenarioStep {
        ScenarioStep(definition: SegmentedControl.Inputs.tap.action, widget: widget, arguments: [.int(segment)])
    }

    /// Code selects a segment; `notify: false` suppresses the did-callback.
    public static func selectSegment(widget: String, segment: Int, notify: Bool) -> ScenarioStep {
        ScenarioStep(
            definition: SegmentedControl.Inputs.select.action, widget: widget,
            arguments: [.int(segment), .bool(notify)])
    }
}
