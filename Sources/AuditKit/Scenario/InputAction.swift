import AuditModel
import AuditStorage

/// A problem with one step, found before it runs: the field it is about (nil for the whole step)
/// and what is wrong.
///
/// A string is a problem with no field: `check: { _, value in value < 0 ? "must not be negative" : nil }`.
public struct StepProblem: Error, Sendable, Equatable, ExpressibleByStringInterpolation {
    public var field: String?
    public var message: String

    public init(field: String? = nil, _ message: String) {
        self.field = field
        self.message = message
    }

    public init(stringLiteral message: String) { self.init(message) }
}

/// One field of a step: the input's argument (its label, how its value is read) and the value a
/// step that leaves it out has.
struct ActionField: Sendable {
    let part: ArgumentPart
    let defaultValue: AuditValue?

    var label: String { part.label }
}

/// A scenario action, declared once per widget input: the input it performs (its name is the
/// step's `action`, its argument labels the step's fields), the widget class it drives, the
/// checks made before it runs, and how it runs.
///
/// `staticCheck` needs only the tree as the file describes it (a segment index against the number
/// of segments) and runs when the scenario is parsed. `check` depends on the state earlier steps
/// left (a text range against the current text) and runs right before the step, in the runner's
/// dry run and again in the recorded run.
///
/// A class: every step of a scenario or a replay refers to its action, and a reference is one
/// retain where the closures would be six.
public final class InputAction: Sendable {
    package let descriptor: CallbackDescriptor
    let fields: [ActionField]
    let widgetKind: String
    let accepts: @Sendable (AnyObject) -> Bool
    let staticCheck: @Sendable (AnyObject, [AuditValue]) -> StepProblem?
    let check: @Sendable (AnyObject, [AuditValue]) -> StepProblem?
    let perform: @Sendable (AnyObject, [AuditValue]) -> Void

    init(
        descriptor: CallbackDescriptor, fields: [ActionField], widgetKind: String,
        accepts: @escaping @Sendable (AnyObject) -> Bool,
        staticCheck: @escaping @Sendable (AnyObject, [AuditValue]) -> StepProblem?,
        check: @escaping @Sendable (AnyObject, [AuditValue]) -> StepProblem?,
        perform: @escaping @Sendable (AnyObject, [AuditValue]) -> Void
    ) {
        self.descriptor = descriptor
        self.fields = fields
        self.widgetKind = widgetKind
        self.accepts = accepts
        self.staticCheck = staticCheck
        self.check = check
        self.perform = perform
    }

    var name: String { descriptor.name }

    /// Whether this is the action of `input`.
    package func performs<Widget, Arguments>(_ input: Input<Widget, Arguments>) -> Bool {
        descriptor.name == input.descriptor.name && widgetKind == input.descriptor.protocolName
    }
}
