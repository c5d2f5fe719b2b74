/// What an event's answer did, the one model of it from capture to the `timeline` view: whether
/// the delegate implemented the callback, and, for a veto or an override, whether it took effect.
///
/// The recorder captures it as one byte on the caller's thread; the store writes it as the
/// `events` row's `implemented`, `vetoed` and `overridden` columns and reads it back from them;
/// the replayer gets it from a candidate's answer; the differ compares it; `show`, `search`,
/// `report` and the HTML page read `effect`.
public struct AnswerOutcome: Sendable, Hashable {
    @usableFromInline package var bits: UInt8

    @usableFromInline static let asked: UInt8 = 1
    @usableFromInline static let implementedBit: UInt8 = 2
    @usableFromInline static let veto: UInt8 = 4
    @usableFromInline static let vetoTookEffect: UInt8 = 8
    @usableFromInline static let override: UInt8 = 16
    @usableFromInline static let overrideTookEffect: UInt8 = 32

    @usableFromInline init(bits: UInt8) { self.bits = bits }

    /// An input's: no delegate was asked, so it implemented nothing, vetoed and overrode nothing.
    public static let input = AnswerOutcome(bits: 0)

    /// A callback's answer of `kind`, which took effect or not (a veto vetoed; an override differs
    /// from its proposal), given by a delegate that `implemented` the callback or not.
    @inlinable
    package init(answering kind: AnswerKind, tookEffect: Bool, implemented: Bool) {
        var bits = Self.asked | (implemented ? Self.implementedBit : 0)
        switch kind {
        case .none, .value: break
        case .veto: bits |= Self.veto | (tookEffect ? Self.vetoTookEffect : 0)
        case .override: bits |= Self.override | (tookEffect ? Self.overrideTookEffect : 0)
        }
        self.bits = bits
    }

    /// The outcome an `events` row stores: `implemented` is nil for an input, `vetoed` unless the
    /// answer is a veto, `overridden` unless it is an override. Any three values read back as
    /// given (a tampered row's too).
    package init(implemented: Bool?, vetoed: Bool?, overridden: Bool?) {
        var bits: UInt8 = 0
        if let implemented { bits |= Self.asked | (implemented ? Self.implementedBit : 0) }
        if let vetoed { bits |= Self.veto | (vetoed ? Self.vetoTookEffect : 0) }
        if let overridden { bits |= Self.override | (overridden ? Self.overrideTookEffect : 0) }
        self.bits = bits
    }

    /// nil for an input; whether the delegate implemented the callback (false: the protocol's
    /// default answered, or no delegate was there).
    public var implemented: Bool? { bits & Self.asked == 0 ? nil : bits & Self.implementedBit != 0 }

    /// nil unless the answer is a veto; then whether it vetoed.
    public var vetoed: Bool? { bits & Self.veto == 0 ? nil : bits & Self.vetoTookEffect != 0 }

    /// nil unless the answer is an override; then whether it differs from the proposal.
    public var overridden: Bool? { bits & Self.override == 0 ? nil : bits & Self.overrideTookEffect != 0 }

    /// What the answer did to the widget: nil when it let the widget go on as proposed.
    public var effect: AnswerEffect? {
        if overridden == true { return .overridden }
        return vetoed == true ? .vetoed : nil
    }

    /// This outcome with `implemented` set as given, for a callback.
    @inlinable
    package func implemented(_ implemented: Bool) -> AnswerOutcome {
        AnswerOutcome(bits: (bits & ~Self.implementedBit) | Self.asked | (implemented ? Self.implementedBit : 0))
    }
}

/// What an answer did to the widget that asked.
public enum AnswerEffect: String, Sendable {
    /// A veto: the widget did not do what it asked about.
    case vetoed
    /// An override: the widget took another value than the one it proposed.
    case overridden

    /// `VETOED` or `OVERRIDDEN`, as `show`, `diff` and the HTML page mark an answer.
    public var label: String { rawValue.uppercased() }
}
