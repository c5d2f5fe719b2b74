/// A node of the headless widget tree, named by a stable `identifier`.
///
/// Its `path` (the identifiers from the root, joined by `/`) names it in every recorded event.
/// Widgets are confined to the thread that drives them, like UIKit views to the main thread.
open class View {
    public let identifier: String
    public var frame: Rect
    public private(set) weak var superview: View?
    public private(set) var subviews: [View] = []

    /// Set while a recorder audits this view. Setting it installs or removes the widget's
    /// delegate proxy (see `auditLinkDidChange`).
    var auditLink: AuditLink? {
        didSet { auditLinkDidChange(auditLink) }
    }

    public init(identifier: String, frame: Rect = .zero) {
        precondition(!identifier.isEmpty && !identifier.contains("/"), "a view identifier is non-empty and has no '/'")
        self.identifier = identifier
        self.frame = frame
    }

    /// The widget's kind as recorded (`SegmentedControl`, …). Subclasses return their own.
    open var widgetKind: String { "View" }

    /// Called when a recorder starts or stops auditing this widget. A widget with a delegate
    /// installs its proxy in its delegate slot when `link` is set and removes it when nil.
    open func auditLinkDidChange(_ link: AuditLink?) {}

    /// Takes `candidate` as this widget's delegate if it conforms to the widget's protocol; a
    /// scenario run offers its delegate object to every widget this way.
    open func adoptDelegate(_ candidate: AnyObject) {}

    /// The identifiers from the root to this view, joined by `/`.
    public var path: String {
        guard let superview else { return identifier }
        return superview.path + "/" + identifier
    }

    public var root: View { superview?.root ?? self }

    /// Adds `view` as the last subview. When this view is audited, the new subtree is audited by
    /// the same recorder at once.
    public func addSubview(_ view: View) {
        precondition(view !== self && !isDescendant(of: view), "adding \(view.path) under \(path) would make a cycle")
        precondition(
            !subviews.contains { $0.identifier == view.identifier }, "\(path) already has a subview \(view.identifier)")
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
        auditLink?.recorder.attach(to: view)
    }

    public func removeFromSuperview() {
        guard let superview else { return }
        superview.subviews.removeAll { $0 === self }
        self.superview = nil
    }

    public func isDescendant(of view: View) -> Bool {
        var current: View? = self
        while let node = current {
            if node === view { return true }
            current = node.superview
        }
        return false
    }

    /// The view at `path`, relative to this view's superview (so a root's own path names it).
    public func view(atPath path: String) -> View? {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)[...]
        guard components.first.map(String.init) == identifier else { return nil }
        components = components.dropFirst()
        var current: View = self
        for component in components {
            guard let next = current.subviews.first(where: { $0.identifier == component }) else { return nil }
            current = next
        }
        return current
    }

    /// Calls `body` on this view and every descendant, parents before children.
    public func visit(_ body: (View) -> Void) {
        body(self)
        for subview in subviews { subview.visit(body) }
    }

    /// Runs an input that drives this widget (a tap, typed text, a programmatic selection). When the
    /// widget is audited, the input is recorded as an event of kind `input`, with what `body`
    /// returns as its result, and the callbacks it causes are nested under it.
    public func performInput(
        _ input: CallbackDescriptor, _ arguments: @autoclosure () -> [AuditValue], _ body: () -> AuditValue?
    ) {
        guard let link = auditLink else {
            _ = body()
            return
        }
        link.recorder.capture(input, widget: link.widget, arguments: arguments()) { _ in
            let outcome = body()
            return ((), 0, outcome)
        }
    }
}
