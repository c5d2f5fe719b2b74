import AuditModel
import AuditStorage

/// A live widget tree written back as a scenario: what a recorder stores for a session recorded in
/// code, so that it replays like a session recorded from a file.
extension WidgetCatalog {
    /// Fails on the first widget or recognizer under `root` whose kind is not registered.
    func checkRegistered(_ root: View) throws(UnregisteredKind) {
        var unregistered: UnregisteredKind?
        root.visit { view in
            guard unregistered == nil else { return }
            if kind(named: view.widgetKind) == nil {
                unregistered = UnregisteredKind(kind: view.widgetKind, path: view.path, registered: kinds.map(\.name))
            } else if let recognizer = view.gestureRecognizers.first(where: { gestureKind(named: $0.widgetKind) == nil }
            ) {
                unregistered = UnregisteredKind(
                    kind: recognizer.widgetKind, path: recognizer.path, registered: gestureKinds.map(\.name))
            }
        }
        if let unregistered { throw unregistered }
    }

    /// `view` and its subtree as a scenario's widget object.
    func describe(_ view: View) throws(UnregisteredKind) -> AuditValue {
        guard let kind = kind(named: view.widgetKind) else {
            throw UnregisteredKind(kind: view.widgetKind, path: view.path, registered: kinds.map(\.name))
        }
        var fields = kind.describe(view)
        fields["kind"] = .string(kind.name)
        fields["id"] = .string(view.identifier)
        fields["frame"] = .array(
            [view.frame.x, view.frame.y, view.frame.width, view.frame.height].map(AuditValue.double))
        if !view.gestureRecognizers.isEmpty {
            fields["gestures"] = .array(
                try view.gestureRecognizers.map { recognizer throws(UnregisteredKind) in
                    try describe(recognizer)
                })
        }
        if !view.subviews.isEmpty {
            fields["children"] = .array(
                try view.subviews.map { subview throws(UnregisteredKind) in try describe(subview) })
        }
        return .object(fields)
    }

    /// A recognizer as a scenario's gesture object: the fields every recognizer has, then its kind's.
    private func describe(_ recognizer: GestureRecognizer) throws(UnregisteredKind) -> AuditValue {
        guard let kind = gestureKind(named: recognizer.widgetKind) else {
            throw UnregisteredKind(
                kind: recognizer.widgetKind, path: recognizer.path, registered: gestureKinds.map(\.name))
        }
        var fields = kind.describe(recognizer)
        fields["kind"] = .string(kind.name)
        fields["id"] = .string(recognizer.identifier)
        if !recognizer.isEnabled { fields["enabled"] = .bool(false) }
        let requirements = recognizer.failureRequirements.map(\.path)
        if !requirements.isEmpty { fields["requireToFail"] = .array(requirements.map(AuditValue.string)) }
        return .object(fields)
    }
}

/// A widget (or gesture recognizer) whose kind the catalog does not register: a session with it
/// could not be rebuilt for replay, so recording refuses it when it begins.
public struct UnregisteredKind: Error, CustomStringConvertible, Sendable {
    public let kind: String
    public let path: String
    public let registered: [String]

    public var description: String {
        "'\(path)' is a \(kind), a widget kind the catalog does not register (registered: "
            + "\(registered.sorted().joined(separator: ", "))); add its WidgetKind with WidgetCatalog.adding(_:) "
            + "(a widget's kind is its class's name unless it overrides widgetKind)"
    }
}
