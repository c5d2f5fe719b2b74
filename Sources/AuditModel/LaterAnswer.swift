/// How a callback's answer reaches the widget that asked.
public enum AnswerTiming: String, Sendable, CaseIterable {
    /// The method returns it: every `Callback`.
    case returned
    /// The delegate calls a completion handler, now or later (`LaterCallback` with `invoke:`).
    case handler
    /// An `async` method returns it (`LaterCallback` with `invokeAsync:`).
    case async

    /// Whether the answer can come after the call has returned: a `LaterCallback`'s.
    public var isLater: Bool { self != .returned }
}

/// What one event of a callback answered later records: the ask, then its answer, the widget
/// giving up on it, or a mistake the delegate made with it.
///
/// An ask is followed by exactly one `answered`, `gaveUp` or `neverAnswered` event, and by one
/// more event for each further call of the handler (`answeredTwice`, `answeredAfterGivingUp`).
/// Every event after the ask names it (the `timeline` view's `answers`).
public enum LaterStep: UInt8, Sendable, CaseIterable {
    /// The widget asked; the answer comes later (the `timeline` view's `result` is NULL).
    case asked = 1
    /// The delegate answered: the row holds the answer and what it did.
    case answered
    /// The widget stopped waiting (a navigation cancelled by another one): a later answer is a
    /// mistake.
    case gaveUp
    /// A mistake: the handler was never called, by the end of the recording or when the widget
    /// that asked went away.
    case neverAnswered
    /// A mistake: the handler was called again; the widget took only the first answer.
    case answeredTwice
    /// A mistake: the handler was called after the widget gave up; the widget did not take it.
    case answeredAfterGivingUp

    /// The name stored in the `events` table's `later` column and shown by `show`.
    public var name: String {
        switch self {
        case .asked: "asked"
        case .answered: "answered"
        case .gaveUp: "gave up"
        case .neverAnswered: "never answered"
        case .answeredTwice: "answered twice"
        case .answeredAfterGivingUp: "answered after giving up"
        }
    }

    /// The step stored as `name`; nil for any other text.
    public init?(name: String) {
        guard let step = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = step
    }

    /// Whether the delegate broke the handler's contract: never called it, called it twice, or
    /// called it after the widget gave up.
    public var isMistake: Bool {
        switch self {
        case .neverAnswered, .answeredTwice, .answeredAfterGivingUp: true
        case .asked, .answered, .gaveUp: false
        }
    }

    /// Whether the event carries the delegate's answer (its result and what it did).
    public var carriesAnswer: Bool {
        switch self {
        case .answered, .answeredTwice, .answeredAfterGivingUp: true
        case .asked, .gaveUp, .neverAnswered: false
        }
    }
}
