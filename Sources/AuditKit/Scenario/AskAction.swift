import AuditModel
import AuditStorage

/// The step action `ask`: asks a widget's delegate one callback directly, as a widget does outside
/// any input — from a public method or property of its own that asks the delegate, or from layout.
///
/// In a scenario file: `{"action": "ask", "widget": "screen/volume", "callback":
/// "SliderDelegate.slider(_:accessibilityLabelFor:)", "arguments": {"value": 0.5}}`. A callback
/// recorded outside any input (the app read a property that asks the delegate) is replayed as this
/// step, in both modes, so a session recorded in code replays identically; `minimize` and
/// `explore` write it back the same way.
extension InputAction {
    static let askName = "ask"

    /// The `ask` action for `invoker`'s callback. The widget's delegate is the one its kind's
    /// registration names in `catalog` (a recognizer's is its `delegate`).
    package static func asking(_ invoker: CallbackInvoker, catalog: WidgetCatalog) -> InputAction {
        let name = invoker.descriptor.description
        let labels = invoker.descriptor.argumentLabels
        let fields = [
            ActionField(
                part: ArgumentPart(
                    "callback", expected: "a callback's name, Protocol.name(_:…)", accepts: { $0 == .string(name) }),
                defaultValue: nil),
            ActionField(
                part: ArgumentPart(
                    "arguments", expected: "an object of the callback's arguments",
                    accepts: { if case .object = $0 { true } else { false } }),
                defaultValue: .object([:])),
        ]
        @Sendable func values(_ arguments: [AuditValue]) -> [AuditValue] { labels.map { arguments[1][$0] ?? .null } }
        @Sendable func root(of object: AnyObject) -> View? {
            (object as? View)?.root ?? (object as? GestureRecognizer)?.view?.root
        }
        let problem: @Sendable (AnyObject, [AuditValue]) -> StepProblem? = { object, arguments in
            invoker.decodes(values(arguments), root(of: object))
                ? nil
                : StepProblem(
                    field: "arguments", "expected the arguments of \(name): \(labels.joined(separator: ", "))")
        }
        return InputAction(
            descriptor: CallbackDescriptor(
                input: askName, of: invoker.descriptor.protocolName, arguments: ["callback", "arguments"]),
            fields: fields, widgetKind: "widget whose delegate is a \(invoker.descriptor.protocolName)",
            accepts: invoker.accepts,
            staticCheck: problem, check: problem,
            perform: { object, arguments in
                let delegate: AnyObject?
                if let view = object as? View {
                    delegate = catalog.kind(named: view.widgetKind)?.delegateOf(view)
                } else {
                    delegate = (object as? GestureRecognizer)?.delegate
                }
                invoker.askAudited(delegate, object, values(arguments), root(of: object))
            })
    }

    /// The `ask` step a scenario file's fields name: the callback looked up in `catalog`.
    static func asking(named name: String, catalog: WidgetCatalog) -> InputAction? {
        guard let dot = name.firstIndex(of: "."),
            let invoker = catalog.invoker(
                protocolName: String(name[..<dot]), name: String(name[name.index(after: dot)...]))
        else { return nil }
        return asking(invoker, catalog: catalog)
    }
}
