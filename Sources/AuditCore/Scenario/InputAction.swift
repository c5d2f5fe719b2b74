/// A problem with one step, found before it runs: the field it is about (nil for the whole step)
/// and what is wrong.
public struct StepProblem: Sendable, Equatable {
    public var field: String?
    public var message: String

    public init(field: String? = nil, _ message: String) {
        self.field = field
        self.message = message
    }
}

/// One field of a step: its name (the input's argument label), how to read it, and its default.
struct ActionField: Sendable {
    let label: String
    let expected: String
    let defaultValue: AuditValue?
    let accepts: @Sendable (AuditValue) -> Bool
    /// For a field that holds objects: how a scenario file's value is read, member by member.
    var shape: FieldShape? = nil

    static func field<T>(
        _ label: String, _ coding: ValueCoding<T>, expected: String, default value: T? = nil, shape: FieldShape? = nil
    ) -> ActionField {
        ActionField(
            label: label, expected: expected, defaultValue: value.map(coding.encode),
            accepts: { coding.decode($0) != nil }, shape: shape)
    }
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
    let descriptor: CallbackDescriptor
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

    typealias Check<W> = @Sendable (W, [AuditValue]) -> StepProblem?

    static func on<W: AnyObject>(
        _ widget: W.Type, _ descriptor: CallbackDescriptor,
        check: @escaping @Sendable (W) -> StepProblem? = { _ in nil },
        perform: @escaping @Sendable (W) -> Void
    ) -> InputAction {
        let runtime: Check<W> = { widget, _ in check(widget) }
        return make(widget, descriptor, fields: [], staticCheck: { _, _ in nil }, check: runtime) { widget, _ in
            perform(widget)
        }
    }

    static func on<W: AnyObject, A>(
        _ widget: W.Type, _ descriptor: CallbackDescriptor, _ field: ActionField, _ coding: ValueCoding<A>,
        staticCheck: @escaping @Sendable (W, A) -> StepProblem? = { _, _ in nil },
        check: @escaping @Sendable (W, A) -> StepProblem? = { _, _ in nil }, perform: @escaping @Sendable (W, A) -> Void
    ) -> InputAction {
        let decode: @Sendable ([AuditValue]) -> A = { coding.decode($0[0])! }
        let staticCheck: Check<W> = { widget, values in staticCheck(widget, decode(values)) }
        let runtime: Check<W> = { widget, values in check(widget, decode(values)) }
        return make(widget, descriptor, fields: [field], staticCheck: staticCheck, check: runtime) { widget, values in
            perform(widget, decode(values))
        }
    }

    static func on<W: AnyObject, A, B>(
        _ widget: W.Type, _ descriptor: CallbackDescriptor, _ first: ActionField, _ firstCoding: ValueCoding<A>,
        _ second: ActionField, _ secondCoding: ValueCoding<B>,
        staticCheck: @escaping @Sendable (W, A, B) -> StepProblem? = { _, _, _ in nil },
        check: @escaping @Sendable (W, A, B) -> StepProblem? = { _, _, _ in nil },
        perform: @escaping @Sendable (W, A, B) -> Void
    ) -> InputAction {
        let decode: @Sendable ([AuditValue]) -> (A, B) = { (firstCoding.decode($0[0])!, secondCoding.decode($0[1])!) }
        let staticCheck: Check<W> = { widget, values in
            let (a, b) = decode(values)
            return staticCheck(widget, a, b)
        }
        let runtime: Check<W> = { widget, values in
            let (a, b) = decode(values)
            return check(widget, a, b)
        }
        return make(widget, descriptor, fields: [first, second], staticCheck: staticCheck, check: runtime) {
            widget, values in
            let (a, b) = decode(values)
            perform(widget, a, b)
        }
    }

    private static func make<W: AnyObject>(
        _ widget: W.Type, _ descriptor: CallbackDescriptor, fields: [ActionField], staticCheck: @escaping Check<W>,
        check: @escaping Check<W>, perform: @escaping @Sendable (W, [AuditValue]) -> Void
    ) -> InputAction {
        precondition(
            fields.map(\.label) == descriptor.argumentLabels, "\(descriptor.name): fields must match the input")
        return InputAction(
            descriptor: descriptor, fields: fields, widgetKind: descriptor.protocolName, accepts: { $0 is W },
            staticCheck: { view, values in staticCheck(view as! W, values) },
            check: { view, values in check(view as! W, values) },
            perform: { view, values in perform(view as! W, values) })
    }
}
