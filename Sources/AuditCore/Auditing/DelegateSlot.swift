/// A weak reference to a widget's delegate, declared once per delegate protocol:
/// `struct WeakStepperDelegate: WeakDelegateReference { weak var delegate: (any StepperDelegate)? }`.
///
/// `DelegateSlot` needs it because Swift cannot hold a generic type weakly: `weak` takes only a
/// class-constrained type, and a protocol existential such as `any StepperDelegate` does not satisfy
/// `AnyObject` even when its protocol is class-bound. The one-line struct supplies the `weak`
/// storage with the concrete type, so reading the delegate costs what a `weak var` costs: no cast.
public protocol WeakDelegateReference {
    associatedtype Delegate
    /// An empty reference (no delegate).
    init()
    /// The delegate, held weakly (declare it `weak var`).
    var delegate: Delegate? { get set }
}

/// A widget's one delegate slot: the app's delegate, held weakly, and while the widget is audited
/// the forwarding proxy (a `DelegateProxy`) in front of it.
///
/// The widget calls `callee` at every callback, and nothing else: the proxy while audited, else the
/// app's delegate. No call site can bypass the proxy. The proxy reads the app's delegate from the
/// widget's public `delegate` (which reads `slot.delegate`) at each call, so assigning the delegate
/// while audited retargets it and the proxy stays in place. `audit(_:with:)`, called from
/// `View.auditLinkDidChange(_:)`, installs the proxy or removes it.
///
/// ```swift
/// struct WeakStepperDelegate: WeakDelegateReference { weak var delegate: (any StepperDelegate)? }
///
/// final class Stepper: View {
///     private var slot = DelegateSlot<WeakStepperDelegate>()
///     var delegate: (any StepperDelegate)? {
///         get { slot.delegate }
///         set { slot.delegate = newValue }
///     }
///     override func auditLinkDidChange(_ link: AuditLink?) { slot.audit(link, with: StepperProxy.init(link:)) }
///
///     func increment() {
///         if StepperCallbacks.shouldChange.ask(slot.callee, self, value + 1) { … }
///     }
/// }
/// ```
///
/// The slot is not copyable: a copy of a struct holding a weak reference costs a weak-reference
/// copy, which would double the cost of reading `callee`; borrowed in place it costs one weak load
/// (or one strong load while audited), as a hand-written `weak var` does. Keep it in a stored
/// property of the widget.
public struct DelegateSlot<Reference: WeakDelegateReference>: ~Copyable {
    public typealias Delegate = Reference.Delegate

    @usableFromInline var reference: Reference
    /// The audit proxy while the widget is audited, else nil. The slot owns it.
    public private(set) var proxy: Delegate?

    public init() {
        reference = Reference()
        proxy = nil
    }

    /// The app's delegate, held weakly: what the widget's public `delegate` reads and writes.
    @inlinable
    public var delegate: Delegate? {
        get { reference.delegate }
        set { reference.delegate = newValue }
    }

    /// What the widget calls, read at each call: the proxy while audited, else the app's delegate.
    @inlinable
    public var callee: Delegate? { proxy ?? reference.delegate }

    /// Whether a proxy is installed.
    @inlinable
    public var isAudited: Bool { proxy != nil }

    /// Installs a proxy made by `makeProxy` when `link` is set (replacing any proxy), or removes it
    /// when `link` is nil. Call it from `auditLinkDidChange(_:)`; the app's delegate is untouched.
    public mutating func audit(_ link: AuditLink?, with makeProxy: (AuditLink) -> Delegate) {
        proxy = link.map(makeProxy)
    }
}
