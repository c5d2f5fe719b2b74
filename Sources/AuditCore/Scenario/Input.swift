/// One input of a widget kind, declared once: its name and arguments (what the recorder stores as
/// an event of kind `input`, and a scenario step's `action` and fields), and how replay drives it.
///
/// Input names belong to their widget kind: two kinds may both have a `drag`, and a step or a
/// recorded input finds the one of the widget it names.
///
/// ```swift
/// extension Slider {
///     static let drag = Input<Slider, Double>(
///         "drag", of: "Slider", arguments: .one("value", .double),
///         check: { slider, value in (0...1).contains(value) ? nil : "value \(value) is outside 0...1" },
///         perform: { slider, value in slider.drag(to: value) })
///
///     func drag(to value: Double) {
///         performInput(Self.drag, value) { … return .double(self.value) }  // recorded when audited
///     }
/// }
/// ```
public struct Input<Widget: AnyObject, Arguments>: Sendable, WidgetInput {
    public let descriptor: CallbackDescriptor
    let arguments: ArgumentList<Arguments>
    let check: @Sendable (Widget, Arguments) -> String?
    private let perform: @Sendable (Widget, Arguments) -> Void

    /// Declares input `name` of widget kind `kind`. `check` says why the arguments cannot be used
    /// in the widget's current state (nil when they can). It runs whenever the input is performed:
    /// a scenario step fails with its message, replay skips such an input, and performed in code
    /// the input is refused (it does nothing, and a recorder reports it in
    /// `RecordingSummary.refusedInputs`). `perform` drives the widget as the user would.
    public init(
        _ name: String, of kind: String, arguments: ArgumentList<Arguments>,
        check: @escaping @Sendable (Widget, Arguments) -> String? = { _, _ in nil },
        perform: @escaping @Sendable (Widget, Arguments) -> Void
    ) {
        descriptor = CallbackDescriptor(input: name, of: kind, arguments: arguments.labels)
        self.arguments = arguments
        self.check = check
        self.perform = perform
    }

    public var action: InputAction {
        let (arguments, check, perform) = (arguments, check, perform)
        let fields = zip(arguments.labels, arguments.expected).map { label, expected in
            ActionField(label: label, expected: expected, defaultValue: nil, accepts: { _ in true })
        }
        // A problem the input's check finds is about its argument when it has only one.
        let checkedField = arguments.labels.count == 1 ? arguments.labels.first : nil
        return InputAction(
            descriptor: descriptor, fields: fields, widgetKind: descriptor.protocolName, accepts: { $0 is Widget },
            staticCheck: { _, values in
                if let problem = arguments.problem(values) { return problem }
                guard let decoded = arguments.decode(values, nil) else {
                    return StepProblem(field: arguments.labels.first, "the value does not have the input's shape")
                }
                // A member the coding ignored (a typo inside a `Codable` argument) is named.
                let written = arguments.encode(decoded).values
                for (label, (given, known)) in zip(arguments.labels, zip(values, written)) {
                    if let member = FieldShape.firstIgnoredMember(given, known, at: label) {
                        return StepProblem(field: member, "unknown field")
                    }
                }
                return nil
            },
            check: { widget, values in
                guard let decoded = arguments.decode(values, nil) else {
                    return arguments.problem(values)
                        ?? StepProblem(field: arguments.labels.first, "the value does not have the input's shape")
                }
                return check(widget as! Widget, decoded).map { StepProblem(field: checkedField, $0) }
            },
            perform: { widget, values in
                if let decoded = arguments.decode(values, nil) { perform(widget as! Widget, decoded) }
            })
    }
}

/// What a `WidgetKind` lists as its inputs: any `Input`, whatever its widget and argument types.
public protocol WidgetInput: Sendable {
    /// The input as a scenario step and the replayer use it.
    var action: InputAction { get }
}

extension View {
    /// Runs `input` with `arguments` on this widget: recorded as an input event when audited (its
    /// arguments encoded as the input declares), with what `body` returns as its result.
    ///
    /// The input's `check` runs first, as for a scenario step: when it finds a problem the input is
    /// refused, audited or not: `body` does not run, nothing is recorded, and a recorder auditing
    /// the widget reports `"<input> on <path> refused: <problem>"` in
    /// `RecordingSummary.refusedInputs`.
    public func performInput<Widget, Arguments>(
        _ input: Input<Widget, Arguments>, _ arguments: Arguments, _ body: () -> AuditValue?
    ) {
        if let widget = self as? Widget, let problem = input.check(widget, arguments) {
            auditLink?.refuse("\(input.descriptor.name) on \(path) refused: \(problem)")
            return
        }
        performInput(input.descriptor, input.arguments.encode(arguments).values, body)
    }
}
