import Foundation

/// One kind of widget, registered once: how a scenario file describes it, how a live widget
/// describes itself back (so a session recorded in code can be replayed), the inputs that drive it
/// and the callbacks its delegate protocol declares.
///
/// The package's own kinds are registrations like any other (`WidgetCatalog.builtIn`); a
/// widget of your own is one more:
///
/// ```swift
/// struct SliderProperties: Codable, Sendable { var value = 0.5 }
///
/// extension Slider {
///     static let kind = WidgetKind(
///         "Slider", properties: SliderProperties.self,
///         make: { id, frame, properties in Slider(identifier: id, frame: frame, value: properties.value) },
///         describe: { SliderProperties(value: $0.value) },
///         inputs: [Slider.drag], callbacks: SliderCallbacks.invokers)
/// }
///
/// let catalog = WidgetCatalog.builtIn.adding(Slider.kind)
/// ```
///
/// In a scenario file the widget is `{"kind": "Slider", "id": "volume", "value": 0.3}`: `kind`, `id`,
/// `frame`, `gestures` and `children` as for every widget, the rest decoded as the properties (an
/// unknown field is an error, and a field of the wrong type is reported by its path).
public struct WidgetKind: Sendable {
    /// The name a scenario's `kind` gives and a widget's `widgetKind` returns.
    public let name: String
    /// The callbacks of the widget's delegate protocol, invocable by name in replay.
    public let callbacks: [CallbackInvoker]
    /// How `explore` generates the kind's inputs (`exploring(_:)` adds to them).
    public internal(set) var generators: [InputGenerator] = []
    let inputs: [InputAction]
    let build: Builder
    let describe: @Sendable (View) -> [String: AuditValue]

    /// Reads the kind's own fields of a widget object and returns how to make the widget.
    typealias Builder = @Sendable (inout FieldReader, String, Rect) throws(ScenarioError) -> @Sendable () -> View

    init(
        name: String, inputs: [InputAction], callbacks: [CallbackInvoker], build: @escaping Builder,
        describe: @escaping @Sendable (View) -> [String: AuditValue]
    ) {
        self.name = name
        self.inputs = inputs
        self.callbacks = callbacks
        self.build = build
        self.describe = describe
    }

    /// A widget kind whose scenario properties are a `Codable` value: `make` builds the widget from
    /// them, `describe` reads them back off a live widget (its state when the recorder attaches).
    public init<Widget: View, Properties: Codable & Sendable>(
        _ name: String, properties: Properties.Type,
        make: @escaping @Sendable (_ identifier: String, _ frame: Rect, _ properties: Properties) -> Widget,
        describe: @escaping @Sendable (Widget) -> Properties, inputs: [any WidgetInput] = [],
        callbacks: [CallbackInvoker] = []
    ) {
        self.init(
            name: name, inputs: inputs.map(\.action), callbacks: callbacks,
            build: { fields, id, frame throws(ScenarioError) in
                let properties = try CodableProperties.decode(Properties.self, fields.remaining(), at: fields.path)
                return { make(id, frame, properties) }
            },
            describe: { view in
                guard let widget = view as? Widget else { return [:] }
                return CodableProperties.encode(describe(widget))
            })
    }

    /// A widget kind with no properties beyond `id` and `frame`.
    public init<Widget: View>(
        _ name: String, make: @escaping @Sendable (_ identifier: String, _ frame: Rect) -> Widget,
        inputs: [any WidgetInput] = [], callbacks: [CallbackInvoker] = []
    ) {
        self.init(
            name: name, inputs: inputs.map(\.action), callbacks: callbacks,
            build: { fields, id, frame throws(ScenarioError) in
                try fields.finish()
                return { make(id, frame) }
            },
            describe: { _ in [:] })
    }
}

/// A kind's properties read from, and written to, a scenario object's fields with `Codable`.
enum CodableProperties {
    static func decode<Properties: Codable>(
        _ type: Properties.Type, _ fields: [String: AuditValue], at path: String
    ) throws(ScenarioError) -> Properties {
        let properties: Properties
        do {
            properties = try JSONDecoder().decode(type, from: Data(AuditValue.object(fields).json.utf8))
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
        case is Int.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default: "a value of type \(type)"
        }
    }
}
