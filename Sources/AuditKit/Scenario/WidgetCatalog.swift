import AuditModel
import AuditStorage

/// The widget kinds a tool knows, each with its inputs and callbacks: what a scenario can name,
/// what a recorder can describe, what the replayer can drive and invoke, and what
/// `auditctl callbacks` lists. Recorder, replayer, minimizer, `AuditCommandLine` and
/// `AuditTesting` all take the same value.
///
/// `builtIn` holds this package's widget kinds; add your own with `adding(_:)`:
/// `WidgetCatalog.builtIn.adding(Slider.kind)`.
public struct WidgetCatalog: Sendable {
    public private(set) var kinds: [WidgetKind]
    public private(set) var gestureKinds: [GestureKind]
    private var kindsByName: [String: WidgetKind]
    /// Every callback a widget of the catalog's kinds can ask: the recognizers' delegate protocol
    /// (every view may carry recognizers), then each kind's.
    private var invokers: [CallbackInvoker]
    private var invokersByName: [String: CallbackInvoker]
    private var inputsByName: [String: [InputAction]]

    public init(_ kinds: [WidgetKind], gestures: [GestureKind] = []) {
        var unique: [WidgetKind] = []
        for kind in kinds {
            unique.removeAll { $0.name == kind.name }
            unique.append(kind)
        }
        var uniqueGestures: [GestureKind] = []
        for kind in gestures {
            uniqueGestures.removeAll { $0.name == kind.name }
            uniqueGestures.append(kind)
        }
        gestureKinds = uniqueGestures
        self.kinds = unique
        kindsByName = Dictionary(unique.map { ($0.name, $0) }) { $1 }
        invokers = GestureRecognizer.callbacks.invokers + unique.flatMap(\.callbacks)
        invokersByName = Dictionary(
            invokers.map { (Self.key($0.descriptor.protocolName, $0.descriptor.name), $0) }
        ) { $1 }
        inputsByName = Dictionary(grouping: unique.flatMap(\.inputs), by: \.name)
    }

    /// The package's widget kinds: `View` (which carries touches and gesture recognizers),
    /// `SegmentedControl`, `TextView`, `NoteTextView`, `ScrollView`, `TableView` and `WebView`; and
    /// its recognizer kinds: tap, long press and pan.
    public static let builtIn: WidgetCatalog = WidgetCatalog(
        [.view, .segmentedControl, .textView, .noteTextView, .scrollView, .tableView, .webView],
        gestures: [.tap, .longPress, .pan])

    /// This catalog with more widget kinds (a kind of a name already registered replaces it).
    public func adding(_ more: WidgetKind...) -> WidgetCatalog { WidgetCatalog(kinds + more, gestures: gestureKinds) }

    /// This catalog with more gesture recognizer kinds (one of a name already registered replaces it).
    public func adding(gestures more: GestureKind...) -> WidgetCatalog {
        WidgetCatalog(kinds, gestures: gestureKinds + more)
    }

    public func kind(named name: String) -> WidgetKind? { kindsByName[name] }

    public func gestureKind(named name: String) -> GestureKind? { gestureKinds.first { $0.name == name } }

    /// Every callback of every kind, each once (kinds may share a protocol).
    public var callbacks: [CallbackDescriptor] {
        var seen: Set<String> = []
        return invokers.map(\.descriptor).filter {
            seen.insert(Self.key($0.protocolName, $0.name)).inserted
        }
    }

    /// Every input of every kind.
    public var inputs: [CallbackDescriptor] { kinds.flatMap(\.inputs).map(\.descriptor) }

    public func invoker(protocolName: String, name: String) -> CallbackInvoker? {
        invokersByName[Self.key(protocolName, name)]
    }

    /// The input `name` that `object` takes: among the inputs of that name, one declared for the
    /// object's class (its own kind's first, when a subclass redeclares an inherited name).
    package func input(named name: String, for object: AnyObject) -> InputAction? {
        guard let candidates = inputsByName[name] else { return nil }
        let kind = (object as? View)?.widgetKind ?? (object as? GestureRecognizer)?.widgetKind
        return candidates.first { $0.widgetKind == kind && $0.accepts(object) }
            ?? candidates.first { $0.accepts(object) }
    }

    /// The input `name` of a widget of kind `kind` that is not at hand (added to its tree later):
    /// the kind's own, else the only input of that name.
    package func input(named name: String, kind: String) -> InputAction? {
        guard let candidates = inputsByName[name] else { return nil }
        return candidates.first { $0.widgetKind == kind } ?? (candidates.count == 1 ? candidates[0] : nil)
    }

    /// The kinds that declare an input called `name`, for an error message.
    func kinds(declaringInput name: String) -> [String] { inputsByName[name]?.map(\.widgetKind) ?? [] }

    /// The names of the inputs `object` takes, for an error message.
    func inputNames(for object: AnyObject) -> [String] {
        var names = Set(kinds.flatMap(\.inputs).filter { $0.accepts(object) }.map(\.name))
        if invokers.contains(where: { $0.accepts(object) }) { names.insert(InputAction.askName) }
        return names.sorted()
    }

    private static func key(_ protocolName: String, _ name: String) -> String { protocolName + "." + name }
}
