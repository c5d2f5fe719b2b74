/// Whether an event is an input that drove a widget or a delegate callback the widget made.
public enum EventKind: String, Sendable, Codable {
    case input
    case callback
}

/// What a callback's answer can do to the widget that asked.
public enum AnswerKind: String, Sendable {
    /// Nothing: a notification (`did…`).
    case none
    /// A `Bool` answer where `false` stops the widget (`should…`).
    case veto
    /// An answer that replaces a proposed value (`willSelectRowAt` returning another index path or
    /// nil). Recorded as overridden when it differs from the proposal.
    case override
    /// A plain answer (a title, an optional string): recorded with its result, it never vetoes and
    /// never overrides.
    case value
}

/// What every audited name has in common, whatever its Swift types: the part that is stored,
/// listed by `auditctl callbacks`, and compared by the differ.
public final class CallbackDescriptor: Sendable, CustomStringConvertible {
    public let kind: EventKind
    /// The delegate protocol's name, or the widget kind for an input.
    public let protocolName: String
    /// The Swift selector, e.g. `segmentedControl(_:shouldSelectSegmentAt:)`, or the input's name.
    public let name: String
    public let argumentLabels: [String]
    public let answer: AnswerKind
    /// The answer a widget uses when the delegate does not implement the callback, in words.
    public let defaultAnswer: String
    /// How the answer reaches the widget: returned, or later through a handler or an `async` method.
    public let answered: AnswerTiming

    public convenience init(
        kind: EventKind, protocolName: String, name: String, argumentLabels: [String], answer: AnswerKind,
        defaultAnswer: String
    ) {
        self.init(
            kind: kind, protocolName: protocolName, name: name, argumentLabels: argumentLabels, answer: answer,
            defaultAnswer: defaultAnswer, answered: .returned)
    }

    /// A callback whose answer reaches the widget as `answered` says.
    public init(
        kind: EventKind, protocolName: String, name: String, argumentLabels: [String], answer: AnswerKind,
        defaultAnswer: String, answered: AnswerTiming
    ) {
        self.kind = kind
        self.protocolName = protocolName
        self.name = name
        self.argumentLabels = argumentLabels
        self.answer = answer
        self.defaultAnswer = defaultAnswer
        self.answered = answered
    }

    public var description: String { kind == .input ? name : "\(protocolName).\(name)" }
}

extension CallbackDescriptor {
    /// Declares an input of a widget kind.
    public convenience init(input name: String, of widgetKind: String, arguments: [String]) {
        self.init(
            kind: .input, protocolName: widgetKind, name: name, argumentLabels: arguments, answer: .none,
            defaultAnswer: "—")
    }
}
