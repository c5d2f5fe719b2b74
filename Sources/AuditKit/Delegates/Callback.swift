import AuditModel
import AuditStorage

/// The arguments of a callback after the widget itself: their labels and how each is recorded.
public struct ArgumentList<Arguments>: Sendable {
    @usableFromInline let encode: @Sendable (Arguments) -> CapturedArguments
    let decode: @Sendable ([AuditValue], View?) -> Arguments?
    /// Each argument, in label order: its label and how its recorded or written value is read.
    let parts: [ArgumentPart]

    public var labels: [String] { parts.map(\.label) }

    init(
        parts: [ArgumentPart], encode: @escaping @Sendable (Arguments) -> CapturedArguments,
        decode: @escaping @Sendable ([AuditValue], View?) -> Arguments?
    ) {
        self.parts = parts
        self.encode = encode
        self.decode = decode
    }

    public static var none: ArgumentList<Void> {
        ArgumentList<Void>(parts: [], encode: { _ in .none }, decode: { _, _ in () })
    }

    public static func one(_ label: String, _ coding: ValueCoding<Arguments>) -> ArgumentList<Arguments> {
        ArgumentList(
            parts: [ArgumentPart(label, coding)], encode: { .one(coding.encode($0)) },
            decode: { values, root in values.count == 1 ? coding.decode(values[0], in: root) : nil })
    }

    public static func two<A, B>(
        _ label1: String, _ coding1: ValueCoding<A>, _ label2: String, _ coding2: ValueCoding<B>
    ) -> ArgumentList<(A, B)> where Arguments == (A, B) {
        ArgumentList(
            parts: [ArgumentPart(label1, coding1), ArgumentPart(label2, coding2)],
            encode: { .two(coding1.encode($0.0), coding2.encode($0.1)) },
            decode: { values, root in
                guard values.count == 2, let a = coding1.decode(values[0], in: root),
                    let b = coding2.decode(values[1], in: root)
                else {
                    return nil
                }
                return (a, b)
            })
    }

    public static func three<A, B, C>(
        _ label1: String, _ coding1: ValueCoding<A>, _ label2: String, _ coding2: ValueCoding<B>,
        _ label3: String, _ coding3: ValueCoding<C>
    ) -> ArgumentList<(A, B, C)> where Arguments == (A, B, C) {
        ArgumentList(
            parts: [ArgumentPart(label1, coding1), ArgumentPart(label2, coding2), ArgumentPart(label3, coding3)],
            encode: { .three(coding1.encode($0.0), coding2.encode($0.1), coding3.encode($0.2)) },
            decode: { values, root in
                guard values.count == 3, let a = coding1.decode(values[0], in: root),
                    let b = coding2.decode(values[1], in: root), let c = coding3.decode(values[2], in: root)
                else { return nil }
                return (a, b, c)
            })
    }

    /// The first of recorded or written `values` (in label order) that its argument's coding
    /// cannot read, named by its label and the member inside it (`value`, `change.reason`,
    /// `events[2].t`).
    func problem(_ values: [AuditValue]) -> StepProblem? {
        for (value, part) in zip(values, parts) {
            if let problem = part.problem(value) { return problem }
        }
        return nil
    }
}

/// One argument of an `ArgumentList`, its type erased: its label, what it must be in words, and
/// why a value is not one.
struct ArgumentPart: Sendable {
    let label: String
    let expected: String
    let accepts: @Sendable (AuditValue) -> Bool
    private let memberProblem: @Sendable (AuditValue) -> PropertyProblem?

    init<Value>(_ label: String, _ coding: ValueCoding<Value>) {
        self.label = label
        expected = coding.expected
        accepts = { coding.decode($0) != nil }
        memberProblem = coding.problem
    }

    /// An argument that is one of the values `accepts` takes, `expected` saying which in words.
    init(_ label: String, expected: String, accepts: @escaping @Sendable (AuditValue) -> Bool) {
        self.label = label
        self.expected = expected
        self.accepts = accepts
        memberProblem = { accepts($0) ? nil : PropertyProblem(nil, "expected \(expected)") }
    }

    /// Why `value` is not this argument, located under the label (`events[2].t`); nil when it is.
    func problem(_ value: AuditValue) -> StepProblem? {
        guard let problem = memberProblem(value) else { return nil }
        let field = problem.field.map { $0.hasPrefix("[") ? label + $0 : "\(label).\($0)" }
        return StepProblem(field: field ?? label, problem.message)
    }
}

/// The answer side of a callback: its default, how it is recorded, and when it takes effect.
public struct Answer<Arguments, Result>: Sendable {
    public let kind: AnswerKind
    public let defaultDescription: String
    @usableFromInline let defaultResult: @Sendable (Arguments) -> Result
    /// nil for `Void` callbacks: their result is recorded as SQL NULL.
    @usableFromInline package let coding: ValueCoding<Result>?
    /// Whether a veto vetoed, or an override differs from its proposal; false for other kinds.
    @usableFromInline let takesEffect: @Sendable (Arguments, Result) -> Bool

    /// A notification: no answer.
    public static var void: Answer<Arguments, Void> {
        Answer<Arguments, Void>(
            kind: .none, defaultDescription: "—", defaultResult: { _ in () }, coding: nil,
            takesEffect: { _, _ in false })
    }

    /// A `should…` answer: `false` vetoes. UIKit's default is `true` unless told otherwise.
    public static func veto(default value: Bool = true) -> Answer<Arguments, Bool> {
        Answer<Arguments, Bool>(
            kind: .veto, defaultDescription: String(value), defaultResult: { _ in value }, coding: .bool,
            takesEffect: { _, answer in !answer })
    }

    /// An answer that replaces `proposal(arguments)`; the default keeps the proposal.
    public static func override<Value: Equatable & Sendable>(
        proposal: @escaping @Sendable (Arguments) -> Value, coding: ValueCoding<Value>, described: String
    ) -> Answer<Arguments, Value> {
        Answer<Arguments, Value>(
            kind: .override, defaultDescription: described, defaultResult: proposal, coding: coding,
            takesEffect: { arguments, answer in answer != proposal(arguments) })
    }

    /// A plain answer, recorded with its result: it never vetoes and never overrides.
    ///
    /// `described` is the default in words for `auditctl callbacks`; without it, the default as
    /// recorded (`null` for `.value(coding: .optional(.string), default: nil)`).
    public static func value<Value: Sendable>(
        coding: ValueCoding<Value>, default value: Value, described: String? = nil
    ) -> Answer<Arguments, Value> {
        Answer<Arguments, Value>(
            kind: .value, defaultDescription: described ?? coding.encode(value).json, defaultResult: { _ in value },
            coding: coding, takesEffect: { _, _ in false })
    }

    /// What answering `result` to `arguments` did, given by a delegate that `implemented` the
    /// callback or not: a veto or an override, and whether it took effect.
    @inlinable
    package func outcome(_ arguments: Arguments, _ result: Result, implemented: Bool) -> AnswerOutcome {
        let tookEffect = (kind == .veto || kind == .override) && takesEffect(arguments, result)
        return AnswerOutcome(answering: kind, tookEffect: tookEffect, implemented: implemented)
    }
}

/// One audited delegate callback, declared once: the widget asks its delegate through it (and so is
/// recorded), the protocol's default implementation takes its default from it, the replayer
/// invokes it by name, and `auditctl callbacks` lists it.
///
/// `Delegate` is the protocol's existential (`any SliderDelegate`), `Widget` the object passed first
/// (a `View` or a `GestureRecognizer`), `Arguments` the rest (a tuple when there are several).
/// Declare a protocol's callbacks as the stored properties of one `CallbackTable`:
///
/// ```swift
/// public struct SliderCallbacks: CallbackTable {
///     public let shouldBeginTracking = Callback<any SliderDelegate, Slider, Double, Bool>(
///         "slider(_:shouldBeginTrackingTo:)", arguments: .one("value", .double), answer: .veto(),
///         invoke: { $0.slider($1, shouldBeginTrackingTo: $2) })
/// }
/// ```
public struct Callback<Delegate, Widget: Auditable, Arguments, Result>: Sendable, CallbackDeclaration {
    public let descriptor: CallbackDescriptor
    @usableFromInline let arguments: ArgumentList<Arguments>
    @usableFromInline package let answer: Answer<Arguments, Result>
    @usableFromInline let invoke: @Sendable (Delegate, Widget, Arguments) -> Result

    /// Declares the callback `name` (the Swift selector, `slider(_:shouldBeginTrackingTo:)`) of the
    /// protocol `Delegate` names: how its arguments are recorded, what its answer does and what a
    /// delegate that does not implement it answers (`answer`), and how to call it (`invoke`).
    public init(
        _ name: String, arguments: ArgumentList<Arguments>, answer: Answer<Arguments, Result>,
        invoke: @escaping @Sendable (Delegate, Widget, Arguments) -> Result
    ) {
        self.init(
            protocolName: String(describing: Delegate.self), name, arguments: arguments, answer: answer,
            invoke: invoke)
    }

    /// The same, with the protocol's name given (a protocol recorded under another name).
    init(
        protocolName: String, _ name: String, arguments: ArgumentList<Arguments>,
        answer: Answer<Arguments, Result>, invoke: @escaping @Sendable (Delegate, Widget, Arguments) -> Result
    ) {
        self.descriptor = CallbackDescriptor(
            kind: .callback, protocolName: protocolName, name: name, argumentLabels: arguments.labels,
            answer: answer.kind, defaultAnswer: answer.defaultDescription)
        self.arguments = arguments
        self.answer = answer
        self.invoke = invoke
    }

    private init(
        descriptor: CallbackDescriptor, arguments: ArgumentList<Arguments>, answer: Answer<Arguments, Result>,
        invoke: @escaping @Sendable (Delegate, Widget, Arguments) -> Result
    ) {
        self.descriptor = descriptor
        self.arguments = arguments
        self.answer = answer
        self.invoke = invoke
    }

    /// This callback, recording its arguments with `encode` instead: the same descriptor, default,
    /// answer and invocation. What a secure text view uses to record a hash, not the text.
    func recording(_ encode: @escaping @Sendable (Arguments) -> [AuditValue]) -> Callback {
        Callback(
            descriptor: descriptor,
            arguments: ArgumentList(
                parts: arguments.parts, encode: { CapturedArguments(encode($0)) }, decode: arguments.decode),
            answer: answer, invoke: invoke)
    }

    /// UIKit's answer when the delegate does not implement the callback.
    public func defaultResult(_ arguments: Arguments) -> Result { answer.defaultResult(arguments) }

    /// What the protocol's default implementation returns: the declared default, marked so the
    /// audit records "not implemented, default used". Write every default implementation of an
    /// audited protocol with it, so the default is declared in one place:
    /// `func slider(_ slider: Slider, shouldBeginTrackingTo value: Double) -> Bool { Slider.callbacks.shouldBeginTracking.unimplemented(value) }`.
    @inline(__always)
    public func unimplemented(_ arguments: Arguments) -> Result {
        ThreadContext.current.defaultUsed = true
        return answer.defaultResult(arguments)
    }

    /// Asks `delegate` (the widget's own, as it is now), or takes the default when there is none:
    /// how a widget calls its delegate, and the only way. While the widget is audited the call is
    /// recorded (its arguments, answer, veto and whether the delegate implemented it); during an
    /// isolated replay the recorded answer is given. Either way `delegate` is called exactly once,
    /// with the same arguments, and the widget gets what it returned: auditing never changes
    /// behaviour.
    @inlinable
    public func ask(_ delegate: Delegate?, _ widget: Widget, _ arguments: Arguments) -> Result {
        guard let link = widget.auditLink else { return unaudited(delegate, widget, arguments) }
        return link.forward(self, to: delegate, widget, arguments)
    }

    /// Asks `delegate` with no audit. Keeps the thread's "default used" mark as it found it, so a
    /// delegate call that is not audited, made from inside an audited one, cannot make the audited
    /// call look unimplemented.
    @usableFromInline
    func unaudited(_ delegate: Delegate?, _ widget: Widget, _ arguments: Arguments) -> Result {
        guard let delegate else { return answer.defaultResult(arguments) }
        let context = ThreadContext.current
        let outer = context.defaultUsed
        defer { context.defaultUsed = outer }
        return invoke(delegate, widget, arguments)
    }

    /// Asks `target` (or takes the default) and says what the answer did. Used by the replayer.
    package func ask(_ target: Delegate?, _ widget: Widget, _ arguments: Arguments, on context: ThreadContext)
        -> (result: Result, outcome: AnswerOutcome)
    {
        let outer = context.defaultUsed
        context.defaultUsed = false
        defer { context.defaultUsed = outer }
        let result: Result
        var implemented = false
        if let target {
            result = invoke(target, widget, arguments)
            implemented = !context.defaultUsed
        } else {
            result = answer.defaultResult(arguments)
        }
        return (result, answer.outcome(arguments, result, implemented: implemented))
    }

    /// This callback, callable by name with recorded values: what isolated replay uses, and what
    /// replays a callback the delegate was asked outside any input.
    public var invoker: CallbackInvoker {
        CallbackInvoker(
            descriptor: descriptor,
            call: { candidate, widget, values, root in
                guard let widget = widget as? Widget, let arguments = arguments.decode(values, root) else { return nil }
                let (result, outcome) = ask(candidate as? Delegate, widget, arguments, on: .current)
                return InvocationOutcome(result: answer.coding?.encode(result), answer: outcome)
            },
            accepts: { $0 is Widget }, decodes: { values, root in arguments.decode(values, root) != nil },
            askAudited: { delegate, widget, values, root in
                guard let widget = widget as? Widget, let arguments = arguments.decode(values, root) else { return }
                _ = ask(delegate as? Delegate, widget, arguments)
            })
    }
}

/// A callback that can be invoked with recorded values on any candidate delegate object.
public struct CallbackInvoker: Sendable {
    public let descriptor: CallbackDescriptor
    let call: @Sendable (AnyObject?, AnyObject, [AuditValue], View?) -> InvocationOutcome?
    /// Whether an object is a widget of the callback's type.
    let accepts: @Sendable (AnyObject) -> Bool
    /// Whether values (in label order) are arguments of the callback.
    let decodes: @Sendable ([AuditValue], View?) -> Bool
    /// Asks the widget's delegate (given) as the widget would: recorded or pinned when audited.
    let askAudited: @Sendable (AnyObject?, AnyObject, [AuditValue], View?) -> Void

    /// Calls the callback on `candidate` (its default when the candidate does not conform or does
    /// not implement it) for `widget`, with the recorded argument object. nil when the widget is
    /// of the wrong kind or the arguments do not decode.
    public func invoke(on candidate: AnyObject?, widget: AnyObject, arguments: AuditValue, root: View?)
        -> InvocationOutcome?
    {
        call(candidate, widget, descriptor.argumentLabels.map { arguments[$0] ?? .null }, root)
    }
}

/// What a callback answered when invoked by the replayer.
public struct InvocationOutcome: Sendable, Equatable {
    /// The answer as recorded: nil for a void callback.
    public var result: AuditValue?
    /// What the answer did.
    public var answer: AnswerOutcome

    public var implemented: Bool { answer.implemented == true }
    /// nil unless the answer is a veto; then whether it vetoed (the `timeline` view's `vetoed`).
    public var vetoed: Bool? { answer.vetoed }
    /// nil unless the callback overrides a proposal; then whether the answer differs from it (the
    /// `timeline` view's `overridden`).
    public var overridden: Bool? { answer.overridden }
}

/// Any `Callback`, whatever its types: what a `CallbackTable` lists.
public protocol CallbackDeclaration: Sendable {
    /// The callback, callable by name with recorded values (replay).
    var invoker: CallbackInvoker { get }
}

/// A delegate protocol's callbacks, each declared once as a stored property (a `Callback`):
/// a widget kind's registration lists them from here, so no list is written by hand.
///
/// ```swift
/// public struct SliderCallbacks: CallbackTable {
///     public let didChange = Callback<any SliderDelegate, Slider, SliderChange, Void>(
///         "slider(_:didChange:)", arguments: .one("change", .codable), answer: .void,
///         invoke: { $0.slider($1, didChange: $2) })
/// }
/// ```
public protocol CallbackTable: Sendable {}

extension CallbackTable {
    /// Every callback the table declares, in declaration order.
    public var invokers: [CallbackInvoker] {
        Mirror(reflecting: self).children.compactMap { ($0.value as? any CallbackDeclaration)?.invoker }
    }

    /// What is stored and listed of each callback, in declaration order.
    public var descriptors: [CallbackDescriptor] { invokers.map(\.descriptor) }
}

@available(
    *, unavailable,
    message:
        "write the default implementation as 'Callbacks.x.unimplemented(arguments)', which returns the callback's declared default"
)
public func delegateDefault<T>(_ value: T) -> T { value }
