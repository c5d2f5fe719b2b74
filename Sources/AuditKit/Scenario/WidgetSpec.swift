import AuditModel
import AuditStorage

/// One widget of a scenario's tree, validated: its kind, identifier, frame, properties, gesture
/// recognizers and children.
public struct WidgetSpec: Sendable {
    public let kind: String
    public let identifier: String
    public let frame: Rect
    public let children: [WidgetSpec]
    let gestures: [GestureSpec]
    private let make: @Sendable () -> View

    init(_ value: AuditValue, at path: String, catalog: WidgetCatalog) throws(ScenarioError) {
        var fields = try FieldReader(value, at: path)
        kind = try fields.string("kind")
        identifier = try fields.string("id")
        guard isValidIdentifier(identifier) else { throw ScenarioError(at: fields.location("id"), invalidIdentifier) }
        if fields.optional("frame") == nil {
            frame = .zero
        } else {
            let box = try fields.quad("frame")
            frame = Rect(x: box.0, y: box.1, width: box.2, height: box.3)
        }
        guard let registered = catalog.kind(named: kind) else {
            throw ScenarioError(
                at: fields.location("kind"),
                "unknown widget kind '\(kind)' (registered: \(catalog.kinds.map(\.name).sorted().joined(separator: ", ")))"
            )
        }
        var gestures: [GestureSpec] = []
        if fields.optional("gestures") != nil {
            for (index, gesture) in try fields.array("gestures").enumerated() {
                let spec = try GestureSpec(gesture, at: "\(fields.location("gestures"))[\(index)]", catalog: catalog)
                guard !gestures.contains(where: { $0.identifier == spec.identifier }) else {
                    throw ScenarioError(at: "\(spec.location).id", "duplicate gesture id '\(spec.identifier)'")
                }
                gestures.append(spec)
            }
        }
        self.gestures = gestures
        var children: [WidgetSpec] = []
        if fields.optional("children") != nil {
            for (index, child) in try fields.array("children").enumerated() {
                let spec = try WidgetSpec(child, at: "\(fields.location("children"))[\(index)]", catalog: catalog)
                guard !children.contains(where: { $0.identifier == spec.identifier }) else {
                    throw ScenarioError(
                        at: "\(fields.location("children"))[\(index)].id",
                        "duplicate id '\(spec.identifier)' under \(path)")
                }
                children.append(spec)
            }
        }
        self.children = children
        // The kind's own fields last: a kind that takes every remaining field (a `Codable` one)
        // then leaves nothing for `finish` to refuse.
        make = try registered.build(&fields, identifier, frame)
        try fields.finish()
    }

    /// A fresh widget tree as the spec describes, with no delegates.
    public func build() -> View {
        let root = buildNode()
        resolveFailureRequirements(in: root)
        return root
    }

    private func buildNode() -> View {
        let view = make()
        for gesture in gestures { view.addGestureRecognizer(gesture.build()) }
        for child in children { view.addSubview(child.buildNode()) }
        return view
    }

    /// Checks every `requireToFail` reference against the built tree.
    func validateReferences(in root: View) throws(ScenarioError) {
        try validateReferences(of: root, in: root)
    }

    private func validateReferences(of view: View, in root: View) throws(ScenarioError) {
        for (gesture, recognizer) in zip(gestures, view.gestureRecognizers) {
            for (index, path) in gesture.requireToFail.enumerated() {
                let location = "\(gesture.location).requireToFail[\(index)]"
                guard let other = root.auditedObject(atPath: path) as? GestureRecognizer else {
                    throw ScenarioError(at: location, "no gesture recognizer at '\(path)'")
                }
                guard other !== recognizer else {
                    throw ScenarioError(at: location, "a recognizer cannot wait for itself")
                }
            }
        }
        for (child, subview) in zip(children, view.subviews) { try child.validateReferences(of: subview, in: root) }
    }

    private func resolveFailureRequirements(in root: View) {
        resolve(root, in: root)
    }

    private func resolve(_ view: View, in root: View) {
        for (gesture, recognizer) in zip(gestures, view.gestureRecognizers) {
            for path in gesture.requireToFail {
                // A self-reference is refused by `validateReferences`; building skips it rather than trap.
                if let other = root.auditedObject(atPath: path) as? GestureRecognizer, other !== recognizer {
                    recognizer.require(toFail: other)
                }
            }
        }
        for (child, subview) in zip(children, view.subviews) { child.resolve(subview, in: root) }
    }
}

/// A gesture recognizer of a scenario's widget: the fields every recognizer has, then its kind's.
struct GestureSpec: Sendable {
    let identifier: String
    let location: String
    let requireToFail: [String]
    private let make: @Sendable () -> GestureRecognizer

    init(_ value: AuditValue, at path: String, catalog: WidgetCatalog) throws(ScenarioError) {
        location = path
        var fields = try FieldReader(value, at: path)
        let kind = try fields.string("kind")
        let id = try fields.string("id")
        guard isValidIdentifier(id) else { throw ScenarioError(at: fields.location("id"), invalidIdentifier) }
        identifier = id
        let enabled = try fields.bool("enabled", default: true)
        let reference = fields.location("requireToFail")
        var references: [String] = []
        if fields.optional("requireToFail") != nil {
            for (index, value) in try fields.array("requireToFail").enumerated() {
                references.append(try FieldReader.string(value, at: "\(reference)[\(index)]"))
            }
        }
        requireToFail = references
        guard let registered = catalog.gestureKind(named: kind) else {
            throw ScenarioError(
                at: fields.location("kind"),
                "unknown gesture kind '\(kind)' (registered: \(catalog.gestureKinds.map(\.name).joined(separator: ", ")))"
            )
        }
        let build = try registered.build(&fields, id)
        make = {
            let recognizer = build()
            recognizer.isEnabled = enabled
            return recognizer
        }
        try fields.finish()
    }

    func build() -> GestureRecognizer { make() }
}

/// Whether `id` can name a widget or recognizer: non-empty, without the path separators `/` and `#`,
/// and without control characters (a NUL or a newline in a path would garble every listing).
private func isValidIdentifier(_ id: String) -> Bool {
    !id.isEmpty && !id.utf8.contains(where: isPathSeparator)
        && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
}

private let invalidIdentifier = "an id is non-empty and has no '/', '#' or control characters"
