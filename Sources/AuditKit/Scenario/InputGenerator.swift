import AuditModel
import AuditStorage

/// How `explore` makes random arguments for one input of a widget kind: registered with the kind
/// (`WidgetKind.exploring(_:)`), so a widget of your own is explored like the package's.
///
/// ```swift
/// extension Slider {
///     static let exploredKind = kind.exploring(
///         drag.generator { _, random in Double.random(in: 0...1, using: &random) },
///         resetInput.generator(weight: 0.2) { _, _ in () })
/// }
/// ```
///
/// A generator sees the widget in the state earlier steps left and may return nil when its input
/// makes no sense now; what it returns is still checked as a scenario step is (`Input`'s `check`)
/// before it is used. `weight` is how often it is chosen against the others of the tree's widgets;
/// `Explorer.Options.weights` scales it per input.
public struct InputGenerator: Sendable {
    /// The input's name, as a step's `action` and `Explorer.Options.weights` name it.
    public let input: String
    /// The widget kind that declares the input.
    public let widgetKind: String
    /// How often this generator is chosen, relative to the others offered (0 never).
    public var weight: Double
    package let accepts: @Sendable (AnyObject) -> Bool
    package let generate: @Sendable (AnyObject, inout ExplorationRandom) -> [AuditValue]?
    /// The input's arguments at the widget's boundaries in its current state, each as the
    /// arguments' values: what the minimizer shrinks a value toward besides zero.
    package let boundaries: @Sendable (AnyObject) -> [[AuditValue]]

    /// This generator chosen `weight` times as often as one of weight 1.
    public func weighted(_ weight: Double) -> InputGenerator {
        var copy = self
        copy.weight = weight
        return copy
    }
}

extension Input {
    /// A generator of this input: `make` returns random arguments for the widget in its current
    /// state, or nil when the input makes no sense now. A value of a minimal reproducer shrinks
    /// toward zero only (`generator(weight:boundaries:_:)` declares boundaries too).
    public func generator(
        weight: Double = 1, _ make: @escaping @Sendable (Widget, inout ExplorationRandom) -> Arguments?
    ) -> InputGenerator {
        generator(weight: weight, boundaries: { _ in [] }, make)
    }

    /// A generator of this input, as `generator(weight:_:)`, whose `boundaries` give the arguments
    /// at the widget's boundaries in its current state (the first and last segment, the ends of a
    /// range): once `minimize` or `explore` has a minimal reproducer, a value of it is tried at the
    /// nearest of these, after zero, while the divergence holds. Exploring draws only from `make`:
    /// draw near the same boundaries there (`ExplorationRandom.value(in:orNear:chance:)`).
    public func generator(
        weight: Double = 1, boundaries: @escaping @Sendable (Widget) -> [Arguments],
        _ make: @escaping @Sendable (Widget, inout ExplorationRandom) -> Arguments?
    ) -> InputGenerator {
        let encode = arguments.encode
        return InputGenerator(
            input: descriptor.name, widgetKind: descriptor.protocolName, weight: weight, accepts: { $0 is Widget },
            generate: { object, random in make(object as! Widget, &random).map { encode($0).values } },
            boundaries: { object in boundaries(object as! Widget).map { encode($0).values } })
    }
}

extension WidgetKind {
    /// This kind with `generators` added to the ones it has: what `explore` drives its widgets with.
    public func exploring(_ generators: InputGenerator...) -> WidgetKind { exploring(generators) }

    /// This kind with `generators` added to the ones it has.
    public func exploring(_ generators: [InputGenerator]) -> WidgetKind {
        var copy = self
        copy.generators += generators
        return copy
    }
}
