/// One widget of a scenario's tree, validated: its kind, identifier, frame and properties.
public struct WidgetSpec: Sendable {
    public let kind: String
    public let identifier: String
    public let frame: Rect
    public let children: [WidgetSpec]
    private let make: @Sendable () -> View

    /// The widget kinds a scenario can name, with the properties each takes beyond
    /// `kind`, `id`, `frame` and `children`.
    static let kinds:
        [String: @Sendable (inout FieldReader, String, Rect) throws(ScenarioError) -> @Sendable () -> View] = [
            "View": { _, id, frame in { View(identifier: id, frame: frame) } },
            "SegmentedControl": { fields, id, frame throws(ScenarioError) in
                let location = fields.location("segments")
                let segments = try fields.array("segments").enumerated().map { index, value throws(ScenarioError) in
                    try FieldReader.string(value, at: "\(location)[\(index)]")
                }
                guard !segments.isEmpty else {
                    throw ScenarioError(at: location, "a segmented control needs at least one segment")
                }
                var selected = SegmentedControl.noSegment
                if let value = fields.optional("selected") {
                    selected = try FieldReader.int(value, at: fields.location("selected"))
                    guard segments.indices.contains(selected) || selected == SegmentedControl.noSegment else {
                        throw ScenarioError(
                            at: fields.location("selected"),
                            "segment \(selected) is out of range 0..<\(segments.count) (or -1 for none)")
                    }
                }
                let initial = selected
                return {
                    SegmentedControl(identifier: id, frame: frame, segments: segments, selectedSegmentIndex: initial)
                }
            },
        ]

    init(_ value: AuditValue, at path: String) throws(ScenarioError) {
        var fields = try FieldReader(value, at: path)
        kind = try fields.string("kind")
        identifier = try fields.string("id")
        guard !identifier.isEmpty, !identifier.contains("/") else {
            throw ScenarioError(at: fields.location("id"), "an id is non-empty and has no '/'")
        }
        frame =
            try fields.optional("frame").map { value throws(ScenarioError) in
                try Self.frame(value, at: fields.location("frame"))
            } ?? .zero
        guard let builder = Self.kinds[kind] else {
            throw ScenarioError(
                at: fields.location("kind"),
                "unknown widget kind '\(kind)' (known: \(Self.kinds.keys.sorted().joined(separator: ", ")))")
        }
        make = try builder(&fields, identifier, frame)
        var children: [WidgetSpec] = []
        if fields.optional("children") != nil {
            for (index, child) in try fields.array("children").enumerated() {
                let spec = try WidgetSpec(child, at: "\(fields.location("children"))[\(index)]")
                guard !children.contains(where: { $0.identifier == spec.identifier }) else {
                    throw ScenarioError(
                        at: "\(fields.location("children"))[\(index)].id",
                        "duplicate id '\(spec.identifier)' under \(path)")
                }
                children.append(spec)
            }
        }
        self.children = children
        try fields.finish()
    }

    /// A fresh widget tree as the spec describes, with no delegates.
    public func build() -> View {
        let view = make()
        for child in children { view.addSubview(child.build()) }
        return view
    }

    private static func frame(_ value: AuditValue, at location: String) throws(ScenarioError) -> Rect {
        guard case .array(let values) = value, values.count == 4 else {
            throw ScenarioError(at: location, "expected [x, y, width, height]")
        }
        var numbers: [Double] = []
        for (index, value) in values.enumerated() {
            numbers.append(try FieldReader.number(value, at: "\(location)[\(index)]"))
        }
        guard numbers[2] >= 0, numbers[3] >= 0 else {
            throw ScenarioError(at: location, "width and height must not be negative")
        }
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
