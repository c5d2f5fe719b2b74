/// One input of a scenario, applied to the widget named by its path.
///
/// Each step is an object with an `action` and the action's fields. New actions are added as new
/// cases; files written for older builds keep their meaning.
public enum ScenarioStep: Sendable, Hashable {
    /// The user taps a segment.
    case tapSegment(widget: String, segment: Int)
    /// Code selects a segment; `notify: false` suppresses the did-callback.
    case selectSegment(widget: String, segment: Int, notify: Bool)

    public var widget: String {
        switch self {
        case .tapSegment(let widget, _), .selectSegment(let widget, _, _): widget
        }
    }

    public static let actions = ["tapSegment", "selectSegment"]

    init(_ value: AuditValue, at path: String) throws(ScenarioError) {
        var fields = try FieldReader(value, at: path)
        let action = try fields.string("action")
        let widget = try fields.string("widget")
        switch action {
        case "tapSegment":
            self = .tapSegment(widget: widget, segment: try fields.int("segment"))
        case "selectSegment":
            self = .selectSegment(
                widget: widget, segment: try fields.int("segment"), notify: try fields.bool("notify", default: true))
        default:
            throw ScenarioError(
                at: fields.location("action"),
                "unknown action '\(action)' (known: \(Self.actions.joined(separator: ", ")))")
        }
        try fields.finish()
    }

    /// The step that a recorded input event stands for: an input's name is its step's `action`
    /// and its argument labels are the step's fields, so recorded inputs can be driven again.
    public init(input name: String, widget: String, arguments: AuditValue, at path: String) throws(ScenarioError) {
        guard case .object(var fields) = arguments else { throw ScenarioError(at: path, "arguments are not an object") }
        fields["action"] = .string(name)
        fields["widget"] = .string(widget)
        try self.init(.object(fields), at: path)
    }

    /// Checks the step against the scenario's tree: the widget exists, has the right kind, and the
    /// values are in range.
    func validate(in root: View, at path: String) throws(ScenarioError) {
        guard let view = root.view(atPath: widget) else {
            throw ScenarioError(at: "\(path).widget", "no widget at '\(widget)'")
        }
        switch self {
        case .tapSegment(_, let segment), .selectSegment(_, let segment, _):
            guard let control = view as? SegmentedControl else {
                throw ScenarioError(at: "\(path).widget", "'\(widget)' is a \(view.widgetKind), not a SegmentedControl")
            }
            let allowsNone: Bool = if case .selectSegment = self { true } else { false }
            guard control.segments.indices.contains(segment) || (allowsNone && segment == SegmentedControl.noSegment)
            else {
                throw ScenarioError(
                    at: "\(path).segment", "segment \(segment) is out of range 0..<\(control.numberOfSegments)")
            }
        }
    }

    /// Drives the widget. The step must have been validated against this tree's spec.
    public func perform(in root: View) {
        let view = root.view(atPath: widget)
        switch self {
        case .tapSegment(_, let segment):
            (view as! SegmentedControl).tapSegment(segment)
        case .selectSegment(_, let segment, let notify):
            (view as! SegmentedControl).setSelectedSegmentIndex(segment, notify: notify)
        }
    }
}
