import AuditModel
import AuditStorage

/// One input of a widget kind, declared once: its name and arguments (what the recorder stores as
/// an event of kind `input`, and a scenario step's `action` and fields), and how replay drives it.
///
/// Input names belong to their widget kind: two kinds may both have a `drag`, and a step or a
/// recorded input finds the one of the widget it names.
///
/// ```swift
/// extension Slider {
///     static let drag: Input<Slider, Double> = Input(
///         "drag", of: "Slider", arguments: .one("value", .double),
///         check: { slider, value in (0...1).contains(value) ? nil : "\(value) is outside 0...1" },
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
    private let defaults: [String: AuditValue]
    let checkAsBuilt: @Sendable (Widget, Arguments) -> StepProblem?
    let check: @Sendable (Widget, Arguments) -> StepProblem?
    private let perform: @Sendable (Widget, Arguments) -> Void

    /// Declares input `name` of widget kind `kind`; `perform` drives the widget as the user would.
    ///
    /// - `defaults`: the value of an argument a scenario step may leave out, by its label
    ///   (`["notify": .bool(true)]`).
    /// - `checkAsBuilt`: why the arguments can never be used on the widget as it was made (a
    ///   segment index beyond its segments). A scenario file is refused when it is read, before any
    ///   step runs.
    /// - `check`: why they cannot be used in the widget's current state (a text range beyond the
    ///   current text).
    ///
    /// Both checks run whenever the input is performed: a scenario step fails with the message,
    /// replay skips such an input, and performed in code the input is refused (it does nothing,
    /// and a recorder reports it in `RecordingSummary.refusedInputs`). A problem names its field
    /// (`StepProblem(field: "range", …)`); a plain string is about the only argument, or about the
    /// step as a whole when there are several.
    public init(
        _ name: String, of kind: String, arguments: ArgumentList<Arguments>, defaults: [String: AuditValue] = [:],
        checkAsBuilt: @escaping @Sendable (Widget, Arguments) -> StepProblem? = { _, _ in nil },
        check: @escaping @Sendable (Widget, Arguments) -> StepProblem? = { _, _ in nil },
        perform: @escaping @Sendable (Widget, Arguments) -> Void
    ) {
        precondition(
            defaults.keys.allSatisfy(arguments.labels.contains),
            "\(name): a default names an argument the input does not have (\(arguments.labels))")
        descriptor = CallbackDescriptor(input: name, of: kind, arguments: arguments.labels)
        self.arguments = arguments
        self.defaults = defaults
        self.checkAsBuilt = checkAsBuilt
        self.check = check
        self.perform = perform
    }

    /// The first problem either check finds with `arguments` on `widget`, located.
    func problem(_ widget: Widget, _ arguments: Arguments) -> StepProblem? {
        (checkAsBuilt(widget, arguments) ?? check(widget, arguments)).map(located)
    }

    /// `problem` named by the only argument when it names no field.
    private func located(_ problem: StepProblem) -> StepProblem {
        guard problem.field == nil, arguments.labels.count == 1 else { return problem }
        return StepProblem(field: arguments.labels[0], problem.message)
    }

    public var action: InputAction {
        let input = self
        let arguments = arguments
        /// The arguments `values` stand for, or the first problem with them. A step is read with
        /// `checkShapes` (the member a file got wrong is named); once read, its values decode.
        @Sendable func decoded(_ values: [AuditValue], checkShapes: Bool) -> Result<Arguments, StepProblem> {
            if checkShapes, let problem = arguments.problem(values) { return .failure(problem) }
            guard let decoded = arguments.decode(values, nil) else {
                return .failure(
                    arguments.problem(values)
                        ?? StepProblem(field: arguments.labels.first, "the value does not have the input's shape"))
            }
            return .success(decoded)
        }
        return InputAction(
            descriptor: descriptor,
            fields: arguments.parts.map { ActionField(part: $0, defaultValue: defaults[$0.label]) },
            widgetKind: descriptor.protocolName, accepts: { $0 is Widget },
            staticCheck: { widget, values in
                switch decoded(values, checkShapes: true) {
                case .failure(let problem): problem
                case .success(let decoded): input.checkAsBuilt(widget as! Widget, decoded).map(input.located)
                }
            },
            check: { widget, values in
                switch decoded(values, checkShapes: false) {
                case .failure(let problem): problem
                case .success(let decoded): input.check(widget as! Widget, decoded).map(input.located)
                }
            },
            perform: { widget, values in
                if let decoded = arguments.decode(values, nil) { input.perform(widget as! Widget, decoded) }
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
        performInput(input, arguments, recording: input.arguments.encode(arguments).values, body)
    }

    /// The same, recording `values` for the arguments instead of their coding (a secure text
    /// view's text as its hash).
    func performInput<Widget, Arguments>(
        _ input: Input<Widget, Arguments>, _ arguments: Arguments, recording values: @autoclosure () -> [AuditValue],
        _ body: () -> AuditValue?
    ) {
        if let widget = self as? Widget, let problem = input.problem(widget, arguments) {
            auditLink?.refuse("\(input.descriptor.name) on \(path) refused: \(problem.message)")
            return
        }
        perform(input.descriptor, recording: values(), body)
    }

    /// Not an input: an input is declared once, as an `Input`, and performed with its arguments.
    @available(
        *, unavailable,
        message:
            "declare the input as 'static let x: Input<Widget, Arguments> = Input(…)' and call 'performInput(Self.x, arguments) { … }'"
    )
    public func performInput(_ input: CallbackDescriptor, _ arguments: [AuditValue], _ body: () -> AuditValue?) {
        fatalError()
    }
}
