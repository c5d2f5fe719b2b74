import AuditModel
import AuditStorage

/// A node of the headless widget tree, named by a stable `identifier`.
///
/// Its `path` (the identifiers from the root, joined by `/`) names it in every recorded event.
/// Widgets are confined to the thread that drives them, like UIKit views to the main thread.
open class View: Auditable {
    public let identifier: String
    public var frame: Rect
    public private(set) weak var superview: View?
    public private(set) var subviews: [View] = []
    /// Whether touches can land on this view or its subviews (see `hitTest(_:)`).
    public var isUserInteractionEnabled = true
    /// The recognizers attached to this view, in the order they were added; the view owns them.
    public private(set) var gestureRecognizers: [GestureRecognizer] = []
    /// The root's touch dispatcher, made on first use (see `touchDispatcher`).
    private var dispatcher: TouchDispatcher?

    /// Set while a recorder or an isolated replay audits this view: every callback the widget asks
    /// through (`Callback.ask`) is then recorded or pinned.
    public package(set) var auditLink: AuditLink?

    public init(identifier: String, frame: Rect = .zero) {
        precondition(
            !identifier.isEmpty && !identifier.utf8.contains(UInt8(ascii: "/")),
            "a view identifier is non-empty and has no '/'")
        self.identifier = identifier
        self.frame = frame
    }

    /// The widget's kind as recorded and as its `WidgetKind` registration names it: the class's
    /// name (`Slider`). The package's open classes return their own name, so a subclass of one is
    /// of that kind.
    open var widgetKind: String { String(describing: type(of: self)) }

    /// Removed: the recorder links the widget itself; nothing is installed by hand.
    @available(
        *, unavailable,
        message:
            "delete this override: a widget asks 'Callbacks.x.ask(delegate, self, arguments)', which is recorded while audited"
    )
    open func auditLinkDidChange(_ link: AuditLink?) {}

    /// Removed: the registration gives the delegate to the widget.
    @available(
        *, unavailable,
        message:
            "delete this override and register the delegate: 'WidgetKind(..., delegate: \\.delegate, callbacks: ...)'"
    )
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
        auditLink?.attachAdded(view)
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
        // Walks the path's UTF-8 bytes, with no array of components: replay looks up a widget for
        // every input it drives.
        var rest = path.utf8[...]
        var current: View?
        while true {
            let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let component = Substring(rest[..<end])
            if let parent = current {
                guard let next = parent.subviews.first(where: { $0.identifier == component }) else { return nil }
                current = next
            } else {
                guard component == identifier else { return nil }
                current = self
            }
            guard end < rest.endIndex else { return current }
            rest = rest[rest.index(after: end)...]
        }
    }

    /// Attaches `recognizer`, taking it from the view it was on. When this view is audited, the
    /// recognizer is audited by the same recorder at once.
    public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        if recognizer.view === self { return }
        precondition(
            !(recognizer is ScrollViewPanGestureRecognizer), "a scroll view's own pan recognizer stays with it")
        precondition(
            !gestureRecognizers.contains { $0.identifier == recognizer.identifier },
            "\(path) already has a gesture recognizer \(recognizer.identifier)")
        recognizer.view?.removeGestureRecognizer(recognizer)
        gestureRecognizers.append(recognizer)
        recognizer.view = self
        auditLink?.attachAdded(recognizer)
    }

    /// Detaches `recognizer`. It leaves the audit too: its delegate slot holds the app's delegate
    /// again.
    public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        // A widget's own recognizer (a scroll view's pan) is not the app's to remove.
        guard recognizer.view === self, gestureRecognizers.contains(where: { $0 === recognizer }) else { return }
        gestureRecognizers.removeAll { $0 === recognizer }
        // Removed during a touch sequence, it is cancelled (or fails) and leaves the sequence
        // (the Gestures article, rule 10).
        recognizer.arbiter?.remove(recognizer)
        recognizer.auditLink = nil
        recognizer.view = nil
    }

    /// The view's own coordinate space: its size is the frame's, and its origin the point of its
    /// own coordinates shown at the frame's top-left corner. (0, 0) for a plain view; a scroll view's
    /// is its content offset, so its subviews move as it scrolls. As UIKit's `UIView.bounds`.
    open var bounds: Rect {
        Rect(x: 0, y: 0, width: frame.width, height: frame.height)
    }

    /// Whether `point`, in this view's own coordinates, lies inside its bounds.
    public func point(inside point: Point) -> Bool {
        bounds.contains(point)
    }

    /// The deepest view under `point` (in this view's own coordinates) that can receive touches.
    ///
    /// As UIKit: nil when this view has user interaction disabled or the point is outside its
    /// bounds; otherwise the first subview, front-most (last) first, that returns a view, or else
    /// this view. A point reaches a subview through the subview's frame and bounds origin (what
    /// `convert(_:to:)` does), so content a scroll view has scrolled out of its bounds cannot be
    /// hit, and content scrolled into them can. A subview that sticks out of its superview cannot
    /// be hit where it does.
    public func hitTest(_ point: Point) -> View? {
        guard isUserInteractionEnabled, self.point(inside: point) else { return nil }
        for subview in subviews.reversed() {
            let origin = subview.bounds
            let local = Point(x: point.x - subview.frame.x + origin.x, y: point.y - subview.frame.y + origin.y)
            if let hit = subview.hitTest(local) { return hit }
        }
        return self
    }

    /// Converts `point` from this view's coordinates to `view`'s (to window coordinates when nil).
    public func convert(_ point: Point, to view: View?) -> Point {
        let from = originInWindow
        let to = view?.originInWindow ?? Point(x: 0, y: 0)
        return Point(x: point.x + from.x - to.x, y: point.y + from.y - to.y)
    }

    /// Converts `point` from `view`'s coordinates (window coordinates when nil) to this view's.
    public func convert(_ point: Point, from view: View?) -> Point {
        let from = view?.originInWindow ?? Point(x: 0, y: 0)
        let to = originInWindow
        return Point(x: point.x + from.x - to.x, y: point.y + from.y - to.y)
    }

    /// Where the origin of this view's own coordinates lies in window coordinates: frames are in
    /// superview coordinates (the root's in window coordinates), and each view's bounds origin
    /// shifts the coordinates of what it contains.
    private var originInWindow: Point {
        var origin = Point(x: 0, y: 0)
        var current: View? = self
        while let node = current {
            let bounds = node.bounds
            origin.x += node.frame.x - bounds.x
            origin.y += node.frame.y - bounds.y
            current = node.superview
        }
        return origin
    }

    /// The recognizers a touch on this view is offered, in order: the app's `gestureRecognizers`,
    /// after any the widget has of its own (a scroll view's `panGestureRecognizer`).
    var touchRecognizers: [GestureRecognizer] { gestureRecognizers }

    /// The root's dispatcher if a touch has been sent in this tree, without making one.
    var touchDispatcherIfCreated: TouchDispatcher? { root.dispatcher }

    /// The view or gesture recognizer at `path` (`a/b` names a view, `a/b#pan` a recognizer of
    /// `a/b`), relative to this view as in `view(atPath:)`.
    package func auditedObject(atPath path: String) -> AnyObject? {
        guard let hash = path.utf8.lastIndex(of: UInt8(ascii: "#")) else { return view(atPath: path) }
        let identifier = Substring(path.utf8[path.utf8.index(after: hash)...])
        // The app's recognizers first: one of them may share an identifier with a widget's own.
        guard let view = view(atPath: String(path[..<hash])) else { return nil }
        return view.gestureRecognizers.first { $0.identifier == identifier }
            ?? view.touchRecognizers.first { $0.identifier == identifier }
    }

    /// The dispatcher that delivers touches to this view's tree: one per root, made on first use.
    /// A subtree added under another root uses that root's dispatcher from then on.
    public var touchDispatcher: TouchDispatcher {
        let root = self.root
        if let dispatcher = root.dispatcher { return dispatcher }
        let dispatcher = TouchDispatcher(root: root)
        root.dispatcher = dispatcher
        return dispatcher
    }

    /// Calls `body` on this view and every descendant, parents before children.
    public func visit(_ body: (View) -> Void) {
        body(self)
        for subview in subviews { subview.visit(body) }
    }

    /// Runs an input that drives this widget (a tap, typed text, a programmatic selection). When the
    /// widget is audited, the input is recorded as an event of kind `input`, with what `body`
    /// returns as its result, and the callbacks it causes are nested under it.
    ///
    /// An input started from inside `InputNesting.limit` others on this thread (a delegate that
    /// drives widgets from its callbacks, deeper and deeper) is refused, audited or not: it does
    /// nothing and `InputNesting.takeRefusal()` reports it.
    func perform(
        _ input: CallbackDescriptor, recording arguments: @autoclosure () -> [AuditValue], _ body: () -> AuditValue?
    ) {
        InputNesting.run(input, on: path) {
            guard let link = auditLink else {
                _ = body()
                return
            }
            link.perform(input, CapturedArguments(arguments()), body)
        }
    }
}

/// Whether a byte of UTF-8 is `/` or `#`, which join identifiers into paths (a view's to its
/// superview's, a recognizer's to its view's). Identifiers are checked byte by byte, because
/// `String.contains("/")` resolves to Foundation's string search, which took 2.6 % of a replay's
/// instructions in building widgets.
func isPathSeparator(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "/") || byte == UInt8(ascii: "#")
}
