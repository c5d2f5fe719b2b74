/// The audited callbacks and inputs a tool knows: what `auditctl callbacks` lists and what the
/// replayer can invoke by name. `builtIn` holds every table of this package; add your own
/// protocols' invokers to audit and replay them too.
public struct CallbackCatalog: Sendable {
    public private(set) var invokers: [CallbackInvoker]
    public private(set) var inputs: [CallbackDescriptor]
    private var byName: [String: CallbackInvoker]

    public init(invokers: [CallbackInvoker], inputs: [CallbackDescriptor]) {
        self.invokers = invokers
        self.inputs = inputs
        byName = Dictionary(invokers.map { (Self.key($0.descriptor.protocolName, $0.descriptor.name), $0) }) { $1 }
    }

    public static let builtIn = CallbackCatalog(
        invokers: SegmentedControlCallbacks.invokers + TextViewCallbacks.invokers + NoteTextViewCallbacks.invokers
            + ScrollViewCallbacks.invokers + TableViewCallbacks.invokers + GestureRecognizerCallbacks.invokers,
        inputs: SegmentedControl.Inputs.all + TextView.Inputs.all + ScrollView.Inputs.all + TableView.Inputs.all
            + TouchDispatcher.Inputs.all)

    /// This catalog with more callbacks and inputs (a later declaration of the same name wins).
    public func adding(invokers more: [CallbackInvoker], inputs moreInputs: [CallbackDescriptor] = []) -> Self {
        CallbackCatalog(invokers: invokers + more, inputs: inputs + moreInputs)
    }

    public var callbacks: [CallbackDescriptor] { invokers.map(\.descriptor) }

    public func invoker(protocolName: String, name: String) -> CallbackInvoker? { byName[Self.key(protocolName, name)] }

    private static func key(_ protocolName: String, _ name: String) -> String { protocolName + "." + name }
}
