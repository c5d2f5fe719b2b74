import AuditModel
import AuditStorage

/// Recognizes one gesture in the touches of its view and the view's subviews; its delegate takes
/// part in the arbitration between recognizers (the Gestures article).
///
/// A recognizer is not a view: a view owns it (`View.addGestureRecognizer`), it names its view
/// weakly, and its path is the view's path, `#`, and its identifier (`root/scroll#pan`). The
/// `TouchDispatcher` of the view's root delivers touches to it and runs its timers; a subclass
/// turns them into state requests with `transition(to:)`, and the arbitration decides what happens.
/// Actions run on every change to began, changed, ended (recognized) or cancelled.
open class GestureRecognizer: Auditable {
    /// Where a recognizer is in its state machine. Discrete recognizers (tap) go from `possible`
    /// to `ended` (`recognized`); continuous ones (long press, pan) through `began` and `changed`.
    public enum State: String, Sendable, CaseIterable {
        case possible
        case began
        case changed
        case ended
        case cancelled
        case failed

        /// A discrete recognizer's success.
        public static let recognized = State.ended

        /// Began or changed: the gesture is going on.
        public var isActive: Bool { self == .began || self == .changed }

        /// Ended, cancelled or failed: nothing more happens until the touch sequence is over.
        public var isFinished: Bool { self == .ended || self == .cancelled || self == .failed }
    }

    public let identifier: String
    public internal(set) weak var view: View?
    /// The state the app reads. While a request to leave `possible` waits for failure requirements
    /// (its delegate already said it may begin), it reads the state reached — `ended` for a tap,
    /// `began` for a continuous gesture, `ended` if that also ended meanwhile — and only its
    /// actions are held back, as UIKit's header has the subclass set `state` and the
    /// arbitration decide when the actions run (the Gestures article, rule 6).
    public var state: State {
        guard let pending else { return settledState }
        return pending.endsAfterBegin ? .ended : pending.target
    }
    /// The state the arbitration granted: `possible` while a request waits.
    var settledState: State = .possible
    /// A disabled recognizer is not offered touches. Disabling one that takes part in a touch
    /// sequence knocks it out: cancelled if active, failed if still possible (its waiting request
    /// dropped) — UIKit's `isEnabled`: "If you change this property to false while a gesture
    /// recognizer is currently recognizing a gesture, the gesture recognizer transitions to a
    /// cancelled state." It stays finished until the end of the event or timer being delivered
    /// (when set between events, of the next one), then is reset and leaves the sequence
    /// (the Gestures article, rules 9 and 10): enabled again, it may join again on a new finger.
    public var isEnabled = true {
        didSet {
            if oldValue && !isEnabled { arbiter?.knockOutFromOutside(self) }
        }
    }

    /// The app's delegate, held weakly, and asked at each callback: assigning it while the
    /// recognizer is audited retargets the audit at once.
    public weak var delegate: (any GestureRecognizerDelegate)?
    /// Set while a recorder or an isolated replay audits this recognizer.
    public package(set) var auditLink: AuditLink?

    /// The callbacks of `GestureRecognizerDelegate`, each declared once.
    public static let callbacks = GestureRecognizerCallbacks()

    private var requirements: [WeakRecognizer] = []
    private var actions: [(GestureRecognizer) -> Void] = []

    // The current touch sequence, kept by the dispatcher and the arbiter.
    /// The sequence this recognizer takes part in, nil between sequences.
    weak var arbiter: GestureArbiter?
    /// The touches it tracks that are still down, in the order they began.
    private(set) var touches: [Touch] = []
    /// Every touch id it received in this sequence: two recognizers conflict only when they share one.
    private(set) var receivedTouches: Set<Int> = []
    /// A request to leave `possible` that waits for failure requirements.
    var pending: PendingTransition?
    /// The one timer a recognizer can run: its deadline on the dispatcher's clock (nanoseconds),
    /// and its name.
    private(set) var timer: (deadline: Int64, name: String)?
    private var lastLocation = Point(x: 0, y: 0)

    public init(identifier: String) {
        precondition(
            !identifier.isEmpty && !identifier.utf8.contains(where: isPathSeparator),
            "a gesture recognizer identifier is non-empty and has no '/' or '#'")
        self.identifier = identifier
    }

    /// The recognizer's kind as recorded (`TapGestureRecognizer`, …). Subclasses return their own.
    open var widgetKind: String { "GestureRecognizer" }

    /// The thresholds at which this recognizer decides, which the touches `explore` generates
    /// meet exactly, or just miss, half the time. A recognizer of your own returns its own.
    open var thresholds: GestureThresholds { GestureThresholds() }

    /// Takes `candidate` as this recognizer's delegate if it conforms to `GestureRecognizerDelegate`
    /// (what a scenario run does for every recognizer), and says whether it did.
    func adoptDelegate(_ candidate: AnyObject) -> Bool {
        guard let delegate = candidate as? any GestureRecognizerDelegate else { return false }
        self.delegate = delegate
        return true
    }

    /// The view's path, `#`, and the identifier: how events and arguments name the recognizer.
    public var path: String { (view?.path ?? "") + "#" + identifier }

    /// Makes this recognizer wait, in every touch sequence, until `other` fails; if `other`
    /// recognizes, this one fails. Held weakly.
    public func require(toFail other: GestureRecognizer) {
        precondition(other !== self, "a recognizer cannot require its own failure")
        requirements.removeAll { $0.recognizer == nil || $0.recognizer === other }
        requirements.append(WeakRecognizer(recognizer: other))
    }

    /// The recognizers set with `require(toFail:)` that are still alive.
    public var failureRequirements: [GestureRecognizer] { requirements.compactMap(\.recognizer) }

    /// Adds an action, run with the recognizer on each change to began, changed, ended or cancelled.
    /// The recognizer holds it strongly: capture the recognizer through the argument, not directly.
    public func addAction(_ action: @escaping (GestureRecognizer) -> Void) {
        actions.append(action)
    }

    /// How many tracked touches are down.
    public var numberOfTouches: Int { touches.count }

    /// The centroid of the tracked touches in `view`'s coordinates (window coordinates when nil);
    /// the last known location once they are up.
    public func location(in view: View?) -> Point {
        var point = lastLocation
        if !touches.isEmpty {
            point.x = touches.map(\.location.x).reduce(0, +) / Double(touches.count)
            point.y = touches.map(\.location.y).reduce(0, +) / Double(touches.count)
        }
        return view?.convert(point, from: nil) ?? point
    }

    // MARK: For subclasses

    /// A tracked touch began. Subclasses override the four touch methods and `timerFired`; the
    /// base implementations do nothing.
    open func touchBegan(_ touch: Touch) {}
    open func touchMoved(_ touch: Touch) {}
    open func touchEnded(_ touch: Touch) {}
    open func touchCancelled(_ touch: Touch) {}
    /// The timer scheduled with `scheduleTimer(_:atNanoseconds:)` is due; the clock reads `time`
    /// nanoseconds. The base implementation calls `timerFired(_:at:)` with the time in seconds.
    open func timerFired(_ name: String, atNanoseconds time: Int64) {
        timerFired(name, at: VirtualTime.seconds(time))
    }
    /// The older spelling of `timerFired(_:atNanoseconds:)`, in seconds, still called for
    /// subclasses that override it; the base implementation does nothing.
    open func timerFired(_ name: String, at time: Double) {}
    /// Clears the subclass's own state at the end of a touch sequence. Call super.
    open func reset() {}

    /// Whether this recognizer may prevent `preventedGestureRecognizer`: a class-wide rule, as
    /// UIKit's `canPrevent(_:)`, checked before the delegates are asked (the Gestures article, rule 7).
    /// The base implementation returns true.
    open func canPrevent(_ preventedGestureRecognizer: GestureRecognizer) -> Bool { true }

    /// Whether `preventingGestureRecognizer` may prevent this recognizer: a class-wide rule, as
    /// UIKit's `canBePrevented(by:)`. The base implementation returns true.
    open func canBePrevented(by preventingGestureRecognizer: GestureRecognizer) -> Bool { true }

    /// Asks to move to `newState`. The arbitration decides (the Gestures article): leaving `possible`
    /// may wait for failure requirements, be refused by the delegate, or be prevented; from
    /// `possible`, `ended` recognizes a discrete gesture. Requests made outside a touch sequence,
    /// after the recognizer finished, or that make no sense from its state, are ignored.
    public final func transition(to newState: State) {
        arbiter?.request(self, newState)
    }

    /// Runs `timerFired(name, atNanoseconds:)` when the dispatcher's clock reaches `deadline`
    /// (nanoseconds), replacing any timer this recognizer had. Timers are cleared when it finishes.
    /// A timer due at the instant of a touch fires before the touch is delivered.
    public final func scheduleTimer(_ name: String, atNanoseconds deadline: Int64) {
        timer = (deadline, name)
    }

    /// Schedules a timer `duration` nanoseconds after `time` (a deadline past the clock's end
    /// never fires before the sequence settles).
    public final func scheduleTimer(_ name: String, after duration: Int64, from time: Int64) {
        scheduleTimer(name, atNanoseconds: VirtualTime.adding(duration, to: time))
    }

    /// `scheduleTimer(_:atNanoseconds:)` with `deadline` in seconds, rounded to the nearest
    /// nanosecond.
    public final func scheduleTimer(_ name: String, at deadline: Double) {
        scheduleTimer(name, atNanoseconds: VirtualTime.converting(deadline))
    }

    public final func cancelTimer() {
        timer = nil
    }

    // MARK: Driven by the dispatcher and the arbiter

    /// Asks the delegate (recorded when audited), or takes the default.
    func ask<Arguments, Result>(
        _ callback: Callback<any GestureRecognizerDelegate, GestureRecognizer, Arguments, Result>,
        _ arguments: Arguments
    ) -> Result {
        callback.ask(delegate, self, arguments)
    }

    func deliver(_ touch: Touch) {
        lastLocation = touch.location
        switch touch.phase {
        case .began:
            touches.append(touch)
            receivedTouches.insert(touch.id)
            touchBegan(touch)
        case .moved:
            if let index = touches.firstIndex(where: { $0.id == touch.id }) { touches[index] = touch }
            touchMoved(touch)
        case .ended, .cancelled:
            touches.removeAll { $0.id == touch.id }
            if touch.phase == .ended { touchEnded(touch) } else { touchCancelled(touch) }
        }
    }

    func tracks(_ touchID: Int) -> Bool { touches.contains { $0.id == touchID } }

    func fireTimer(at time: Int64) {
        guard let timer else { return }
        self.timer = nil
        timerFired(timer.name, atNanoseconds: time)
    }

    /// Sets the state and runs the actions; finishing clears the timer and any waiting request.
    func apply(_ newState: State) {
        settledState = newState
        if newState.isFinished {
            timer = nil
            pending = nil
        }
        if newState != .failed && newState != .possible {
            for action in actions { action(self) }
        }
    }

    /// Back to `possible` for the next touch sequence.
    func resetForNextSequence() {
        settledState = .possible
        touches = []
        receivedTouches = []
        pending = nil
        timer = nil
        arbiter = nil
        reset()
    }
}

/// A request to leave `possible` that waits: the state asked for, and whether a continuous
/// gesture also ended while it waited (it then begins and ends at once).
struct PendingTransition {
    var target: GestureRecognizer.State
    var endsAfterBegin = false
}

private struct WeakRecognizer {
    weak var recognizer: GestureRecognizer?
}
