import AuditModel
import AuditStorage
import Foundation

/// One kind of widget, registered once: how a scenario file describes it (and which values are
/// valid), how a live widget describes itself back (so a session recorded in code can be
/// replayed), its delegate, the inputs that drive it and the callbacks its delegate protocol
/// declares.
///
/// The package's own kinds are registrations like any other (`WidgetCatalog.builtIn`); a
/// widget of your own is one more:
///
/// ```swift
/// public struct SliderProperties: Codable, Sendable { var value: Double }
///
/// extension Slider {
///     public static let kind: WidgetKind = WidgetKind(
///         "Slider", properties: SliderProperties.self,
///         make: { id, frame, properties in Slider(identifier: id, frame: frame, value: properties.value) },
///         describe: { SliderProperties(value: $0.value) },
///         check: { (0...1).contains($0.value) ? nil : PropertyProblem("value", "must be in 0...1") },
///         delegate: \.delegate, callbacks: Slider.callbacks, inputs: [Slider.drag])
/// }
///
/// let catalog = WidgetCatalog.builtIn.adding(Slider.kind)
/// ```
///
/// In a scenario file the widget is `{"kind": "Slider", "id": "volume", "value": 0.3}`: `kind`, `id`,
/// `frame`, `gestures` and `children` as for every widget, the rest decoded as the properties (an
/// unknown field is an error, a field of the wrong type is reported by its path, and `check` says
/// which values are out of range, before the widget is made). A scenario run gives its delegate
/// object to every widget whose registered `delegate` property's type it conforms to.
public struct WidgetKind: Sendable {
    /// The name a scenario's `kind` gives and a widget's `widgetKind` returns (its class's name).
    public let name: String
    /// The callbacks of the widget's delegate protocol, invocable by name in replay.
    public let callbacks: [CallbackInvoker]
    /// How `explore` generates the kind's inputs (`exploring(_:)` adds to them).
    public internal(set) var generators: [InputGenerator] = []
    let inputs: [InputAction]
    let build: Builder
    let describe: @Sendable (View) -> [String: AuditValue]
    /// Gives a scenario's delegate object to a widget of this kind, when it conforms to the kind's
    /// delegate protocol, and says whether it did; nothing for a kind without a delegate.
    let adopt: @Sendable (View, AnyObject) -> Bool
    /// Reads the kind's delegate off a widget of this kind (nil for a kind without one).
    let delegateOf: @Sendable (View) -> AnyObject?
    /// The protocol of the kind's delegate property (nil for a kind without one).
    let delegateProtocol: String?

    /// Reads the kind's own fields of a widget object and returns how to make the widget.
    typealias Builder = @Sendable (inout FieldReader, String, Rect) throws(ScenarioError) -> @Sendable () -> View

    init(
        name: String, inputs: [InputAction], callbacks: [CallbackInvoker], delegate: Delegation = .none,
        build: @escaping Builder, describe: @escaping @Sendable (View) -> [String: AuditValue]
    ) {
        self.name = name
        self.inputs = inputs
        self.callbacks = callbacks
        self.build = build
        self.describe = describe
        adopt = delegate.adopt
        delegateOf = delegate.read
        delegateProtocol = delegate.protocolName
    }

    /// A widget kind whose scenario properties are a `Codable` value and whose delegate is the
    /// widget's `delegate` property: `make` builds the widget from the properties, `describe` reads
    /// them back off a live widget (its state when the recorder attaches), `check` says why
    /// properties cannot be used (nil when they can; run before `make`). `callbacks` is the delegate
    /// protocol's `CallbackTable`, or several: a protocol that refines another lists the other's
    /// table first (`callbacks: ScrollView.callbacks, TableView.tableCallbacks`).
    public init<Widget: View, Properties: Codable & Sendable, Delegate>(
        _ name: String, properties: Properties.Type,
        make: @escaping @Sendable (_ identifier: String, _ frame: Rect, _ properties: Properties) -> Widget,
        describe: @escaping @Sendable (Widget) -> Properties,
        check: @escaping @Sendable (Properties) -> PropertyProblem? = { _ in nil },
        delegate: ReferenceWritableKeyPath<Widget, Delegate?>, callbacks: any CallbackTable...,
        inputs: [any WidgetInput] = []
    ) {
        for table in callbacks where table.invokers.isEmpty {
            preconditionFailure(
                "\(type(of: table)) declares no Callback: declare each callback as a stored 'let' of the table")
        }
        let invokers = callbacks.flatMap(\.invokers)
        var declared: Set<[String]> = []
        for invoker in invokers
        where !declared.insert([invoker.descriptor.protocolName, invoker.descriptor.name]).inserted {
            preconditionFailure(
                "\(invoker.descriptor.protocolName) declares '\(invoker.descriptor.name)' twice in the callback tables "
                    + "of \(name): give each callback its own name (its selector), once")
        }
        self.init(
            name, make: make, describe: describe, check: check, inputs: inputs, callbacks: invokers,
            delegate: .property(delegate))
    }

    /// Not a registration: callbacks without the delegate property they are asked of.
    @available(
        *, unavailable,
        message: "name the widget's delegate property too: 'delegate: \\.delegate, callbacks: Widget.callbacks'"
    )
    public init<Widget: View, Properties: Codable & Sendable>(
        _ name: String, properties: Properties.Type,
        make: @escaping @Sendable (_ identifier: String, _ frame: Rect, _ properties: Properties) -> Widget,
        describe: @escaping @Sendable (Widget) -> Properties,
        check: @escaping @Sendable (Properties) -> PropertyProblem? = { _ in nil }, callbacks: some CallbackTable,
        inputs: [any WidgetInput] = []
    ) { fatalError() }

    /// A widget kind with no delegate: properties as above.
    public init<Widget: View, Properties: Codable & Sendable>(
        _ name: String, properties: Properties.Type,
        make: @escaping @Sendable (_ identifier: String, _ frame: Rect, _ properties: Properties) -> Widget,
        describe: @escaping @Sendable (Widget) -> Properties,
        check: @escaping @Sendable (Properties) -> PropertyProblem? = { _ in nil }, inputs: [any WidgetInput] = []
    ) {
        self.init(name, make: make, describe: describe, check: check, inputs: inputs, callbacks: [], delegate: .none)
    }

    /// A kind whose properties are `Properties`: decoded from a scenario's fields and checked
    /// before `make`, encoded back from a live widget by `describe`.
    private init<Widget: View, Properties: Codable & Sendable>(
        _ name: String, make: @escaping @Sendable (String, Rect, Properties) -> Widget,
        describe: @escaping @Sendable (Widget) -> Properties,
        check: @escaping @Sendable (Properties) -> PropertyProblem?,
        inputs: [any WidgetInput], callbacks: [CallbackInvoker], delegate: Delegation
    ) {
        self.init(
            name: name, inputs: inputs.map(\.action), callbacks: callbacks, delegate: delegate,
            build: { fields, id, frame throws(ScenarioError) in
                let properties = try CodableProperties.decode(Properties.self, fields.remaining(), at: fields.path)
                if let problem = check(properties) { throw ScenarioError(problem, at: fields.path) }
                return { make(id, frame, properties) }
            },
            describe: { view in
                guard let widget = view as? Widget else { return [:] }
                return CodableProperties.encode(describe(widget))
            })
    }

    /// A widget kind with no properties beyond `id` and `frame`, and no delegate.
    public init<Widget: View>(
        _ name: String, make: @escaping @Sendable (_ identifier: String, _ frame: Rect) -> Widget,
        inputs: [any WidgetInput] = []
    ) {
        self.init(
            name: name, inputs: inputs.map(\.action), callbacks: [],
            build: { fields, id, frame throws(ScenarioError) in
                try fields.finish()
                return { make(id, frame) }
            },
            describe: { _ in [:] })
    }

    /// How a kind's widgets hold their delegate: the property a scenario run sets and replay reads.
    struct Delegation: Sendable {
        let adopt: @Sendable (View, AnyObject) -> Bool
        let read: @Sendable (View) -> AnyObject?
        let protocolName: String?

        static let none = Delegation(adopt: { _, _ in false }, read: { _ in nil }, protocolName: nil)

        /// The widget's delegate property: set when the candidate conforms to its type.
        static func property<Widget: View, Delegate>(_ keyPath: ReferenceWritableKeyPath<Widget, Delegate?>)
            -> Delegation
        {
            // A key path to a stored property of a class holds no mutable state of its own.
            nonisolated(unsafe) let keyPath = keyPath
            return Delegation(
                adopt: { view, candidate in
                    guard let widget = view as? Widget, let delegate = candidate as? Delegate else { return false }
                    widget[keyPath: keyPath] = delegate
                    return true
                },
                read: { view in
                    guard let widget = view as? Widget, let delegate = widget[keyPath: keyPath] else { return nil }
                    return delegate as AnyObject
                }, protocolName: String(describing: Delegate.self))
        }
    }
}

/// Why a widget's properties cannot be used: the field (a path under the widget's object, such as
/// `value` or `range.lower`) and what was expected, reported as
/// `root.children[0].value: must be in 0...1`.
public struct PropertyProblem: Error, Sendable, Equatable {
    public let field: String?
    public let message: String

    /// A problem with `field` (nil: the widget as a whole).
    public init(_ field: String?, _ message: String) {
        self.field = field
        self.message = message
    }
}

extension ScenarioError {
    /// `problem` located under the widget object at `path`.
    init(_ problem: PropertyProblem, at path: String) {
        self.init(at: problem.field.map { path.isEmpty ? $0 : "\(path).\($0)" } ?? path, problem.message)
    }
}

/// A kind's properties read from, and written to, a scenario object's fields with `Codable`.
enum CodableProperties {
    static func decode<Properties: Codable>(
        _ type: Properties.Type, _ fields: [String: AuditValue], at path: String
    ) throws(ScenarioError) -> Properties {
        let properties: Properties
        do {
            properties = try AuditValueDecoder(nullIsAbsent: false).decode(type, from: .object(fields))
        } catch let error as DecodingError {
            throw ScenarioError(decoding: error, at: path)
        } catch {
            throw ScenarioError(at: path, "\(error)")
        }
        // Codable ignores fields it does not know, at any depth; a scenario names them as errors,
        // as for every kind.
        if let unknown = FieldShape.firstIgnoredMember(.object(fields), .object(encode(properties)), at: path) {
            throw ScenarioError(at: unknown, "unknown field")
        }
        return properties
    }

    static func encode<Properties: Encodable>(_ properties: Properties) -> [String: AuditValue] {
        guard let data = try? JSONEncoder().encode(properties),
            case .object(let fields)? = try? AuditValue.parse(json: Array(data))
        else { return [:] }
        return fields
    }
}

extension ScenarioError {
    /// A `Codable` decoding failure, located by its coding path under `path`.
    init(decoding error: DecodingError, at path: String) {
        func location(_ codingPath: [any CodingKey]) -> String {
            codingPath.reduce(path) { partial, key in
                if let index = key.intValue { return "\(partial)[\(index)]" }
                return partial.isEmpty ? key.stringValue : "\(partial).\(key.stringValue)"
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(at: location(context.codingPath + [key]), "missing required field")
        case .typeMismatch(let type, let context):
            self.init(at: location(context.codingPath), "expected \(Self.expected(type))")
        case .valueNotFound(let type, let context):
            self.init(at: location(context.codingPath), "expected \(Self.expected(type)), not null")
        case .dataCorrupted(let context):
            self.init(at: location(context.codingPath), context.debugDescription)
        @unknown default:
            self.init(at: path, "\(error)")
        }
    }

    private static func expected(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is any FixedWidthInteger.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a value of type \(type)"
        }
    }
}
