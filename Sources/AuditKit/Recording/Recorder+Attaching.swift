import AuditModel
import AuditStorage
import Foundation
import Synchronization

/// Attaching a recorder to a widget tree: linking every widget and recognizer to it, and, for a
/// session recorded in code, describing the tree as the session's scenario.
extension Recorder {
    /// Audits every widget under `root` and every gesture recognizer of those views, and widgets
    /// and recognizers added later: every callback they ask through is recorded.
    ///
    /// For a session recorded in code (`NewSession(recordedInCode:delegate:labels:)`), the tree as
    /// it is now is stored as the session's scenario, each widget describing itself through its
    /// kind's registration, so that the session can be replayed; a widget whose kind the catalog
    /// does not register is refused here, before anything about it is recorded. A recorder that
    /// attaches to nothing stores no session: `finish()` deletes the empty one it made and says so
    /// in `RecordingSummary.lastError` (its `session` is 0).
    ///
    /// Such a session stores one tree, from its root: attaching first a view that has a superview,
    /// or later a view of another tree than the one attached first, is a programming error that
    /// stops the program with one line naming the root to attach (the session could not be
    /// replayed). A view of the stored tree may be attached again (after `detach(from:)`).
    public func attach(to root: View) throws(UnregisteredKind) {
        if describesTree {
            // nil: a first attach to a view under a root; false: a view of another tree.
            let (attached, top, isRoot) = (WeakView(root), WeakView(root.root), root.superview == nil)
            let ofTheTree = tree.withLock { tree -> Bool? in
                guard tree.rootAttached else {
                    guard isRoot else { return nil }
                    tree.rootAttached = true
                    tree.rootView = attached
                    return true
                }
                return tree.rootView.view != nil && tree.rootView.view === top.view
            }
            precondition(
                ofTheTree != nil,
                "attach(to:) takes the root of the tree the session stores: attach to '\(root.root.path)', "
                    + "not '\(root.path)' (the views under it are audited with it)")
            precondition(
                ofTheTree == true,
                "a session recorded in code stores one tree: '\(root.root.path)' is not the tree attached first; "
                    + "record it in a session of its own")
            describe(root, as: try catalog.describe(root))
        } else {
            try catalog.checkRegistered(root)
        }
        link(root)
    }

    /// Attaches a view added under an audited one (`View.addSubview`). Added between events (by
    /// the app's code), it joins the stored tree with its state now; added inside one (a delegate
    /// adding a view from a callback), it is a consequence of the recorded events, which replay
    /// brings about again. A view of an unregistered kind is audited but cannot join the tree; a
    /// replay then reports the inputs on it as unknown.
    func attachAdded(_ view: View) {
        if describesTree, !isInsideEvent, let description = try? catalog.describe(view) {
            describe(view, as: description)
        }
        link(view)
    }

    /// Whether an audited event of this recorder is in progress on this thread.
    private var isInsideEvent: Bool { ThreadContext.current.parent(of: ObjectIdentifier(self)) != nil }

    private func link(_ root: View) {
        writer.attached.store(true, ordering: .releasing)
        root.visit { view in
            let id = nextWidget.add(1, ordering: .relaxed).oldValue
            let parent = view.superview?.auditLink.flatMap { $0.recorder === self ? $0.widget : nil }
            queue.append(WidgetRecord(id: id, path: view.path, kind: view.widgetKind, parent: parent))
            view.auditLink = AuditLink(recorder: self, widget: id)
            for recognizer in view.gestureRecognizers { attach(recognizer, viewWidget: id) }
        }
    }

    /// Registers `recognizer` as a widget of the session (path `<view path>#<identifier>`, its
    /// view's widget as parent) and wraps its delegate.
    func attach(_ recognizer: GestureRecognizer, viewWidget: Int32) {
        let id = nextWidget.add(1, ordering: .relaxed).oldValue
        queue.append(WidgetRecord(id: id, path: recognizer.path, kind: recognizer.widgetKind, parent: viewWidget))
        recognizer.auditLink = AuditLink(recorder: self, widget: id)
    }

    /// Attaches a recognizer added to an audited view (`View.addGestureRecognizer`).
    func attachAdded(_ recognizer: GestureRecognizer, viewWidget: Int32) {
        if describesTree, !isInsideEvent, let view = recognizer.view, let description = try? catalog.describe(view) {
            describe(view, as: description)
        }
        attach(recognizer, viewWidget: viewWidget)
    }

    /// Adds `view`'s description to the stored tree (or replaces its earlier one) and queues the
    /// scenario for the writer.
    private func describe(_ view: View, as description: AuditValue) {
        let source = tree.withLock { tree -> String? in
            var updated = description
            if let root = tree.root {
                // A tree unrelated to the first one cannot join a scenario's single root.
                guard let replaced = root.replacing(view.path, with: description) else { return nil }
                updated = replaced
            }
            tree.root = updated
            return scenarioSource(name: tree.name, root: updated, secure: view.root)
        }
        if let source { queue.setScenario(source) }
    }

    /// The scenario text for a described tree, with the text of secure text views hashed.
    private func scenarioSource(name: String, root: AuditValue, secure tree: View) -> String {
        let document = AuditValue.object([
            "format": .int(Scenario.currentFormat), "name": .string(name), "root": root, "steps": .array([]),
        ])
        var secure: Set<String> = []
        tree.visit { view in
            if let text = view as? TextView, text.isSecureTextEntry { secure.insert(view.path) }
        }
        return secure.isEmpty ? document.json : Scenario.redacting(document, secure: secure, secrets).json
    }

    /// Restores the original delegates of every widget and gesture recognizer under `root` that
    /// this recorder wraps.
    public func detach(from root: View) {
        root.visit { view in
            if view.auditLink?.recorder === self { view.auditLink = nil }
            for recognizer in view.gestureRecognizers where recognizer.auditLink?.recorder === self {
                recognizer.auditLink = nil
            }
        }
    }
}

/// The tree a recorder describes for a session recorded in code, as it grows.
struct StoredTree {
    let name: String
    var root: AuditValue?
    /// Whether a root was attached, in a session recorded in code, and which (weakly: the app
    /// owns its views).
    var rootAttached = false
    var rootView = WeakView(nil)
}

/// A weak reference to a view, kept under the stored tree's lock and compared by identity only.
struct WeakView: @unchecked Sendable {
    // @unchecked: the view is never touched through it, only compared.
    weak var view: View?

    init(_ view: View?) { self.view = view }
}

extension AuditValue {
    /// This widget description with the widget at `path` (a descendant, or a new child of one)
    /// replaced by `description`; nil when no widget on the way to `path` is here.
    fileprivate func replacing(_ path: String, with description: AuditValue) -> AuditValue? {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)[...]
        guard case .object(var fields) = self, case .string(let id)? = fields["id"], components.first == id else {
            return nil
        }
        components = components.dropFirst()
        guard let next = components.first else { return description }
        var children: [AuditValue] = []
        if case .array(let existing)? = fields["children"] { children = existing }
        if components.count == 1 {
            if let index = children.firstIndex(where: { $0["id"] == .string(next) }) {
                children[index] = description
            } else {
                children.append(description)
            }
        } else {
            guard let index = children.firstIndex(where: { $0["id"] == .string(next) }),
                let child = children[index].replacing(components.joined(separator: "/"), with: description)
            else { return nil }
            children[index] = child
        }
        fields["children"] = .array(children)
        return .object(fields)
    }
}
