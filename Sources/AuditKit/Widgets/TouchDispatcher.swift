import AuditModel
import AuditStorage

/// Delivers timed touch events to the gesture recognizers of one view tree, on a virtual clock.
///
/// Each root view has one (`View.touchDispatcher`), which names the root weakly. A touch that
/// begins is hit-tested (`View.hitTest(_:)`) and stays bound to the view it hit; the recognizers of
/// that view and its ancestors are offered it, the arbitration decides what they do
/// (the Gestures article). The clock counts whole nanoseconds (`VirtualTime`) and moves only with the
/// events' timestamps: before an event is delivered, every recognizer timer due by then fires, in
/// deadline order, so a sequence behaves the same on every run, wherever it starts on the clock,
/// and takes no real time. A timer due at the very instant of an event fires first: a threshold
/// reached exactly counts as reached (the Gestures article, "Touches and the clock").
///
/// Audited, each event is an input of kind `input` named `touch` on the view it is bound to (the
/// root when it hit nothing), and each timer an input named `gestureTimer` on its recognizer; the
/// delegate callbacks they cause are nested under them. Their result is the hit view's path and
/// the state of every recognizer of the sequence after the event.
public final class TouchDispatcher {
    public private(set) weak var root: View?
    /// The virtual clock, in nanoseconds: the time of the last event or timer.
    public private(set) var nowNanoseconds: Int64 = 0
    /// The virtual clock in seconds (`nowNanoseconds` converted).
    public var now: Double { VirtualTime.seconds(nowNanoseconds) }
    /// Touches down: the event last seen of each, and the view it is bound to (nil: it hit nothing).
    private var down: [Int: Finger] = [:]
    private var arbiter: GestureArbiter?
    /// The states of the sequence that just finished, kept for the event that finished it.
    private var lastOutcome: AuditValue?
    /// Set while an event or a timer is being delivered: delivery is not reentrant.
    private var delivering = false

    init(root: View) {
        self.root = root
    }

    /// A touch that is down and the view it is bound to, held weakly: the root owns its dispatcher,
    /// so a strong reference to a view of the tree (the root itself, for a touch that hit it) would
    /// keep the whole tree alive while a finger stays down.
    private struct Finger {
        var touch: Touch
        weak var view: View?
    }

    /// The recognizers taking part in the current touch sequence, in the order they joined.
    public var activeRecognizers: [GestureRecognizer] { arbiter?.members ?? [] }

    /// Delivers one event, after firing the timers due by its timestamp.
    ///
    /// - Precondition: the timestamp is not before `now`; a touch begins while it is not down and
    ///   moves, ends or is cancelled while it is (`Touch.validate(_:)` checks a whole sequence);
    ///   no event or timer is being delivered (an action or a delegate cannot send touches).
    public func send(_ touch: Touch) {
        precondition(!delivering, "a touch cannot be sent while another is being delivered")
        guard let root else { return }
        precondition(touch.timestampNanoseconds >= nowNanoseconds, "touch at \(touch.timestamp) is before \(now)")
        advance(toNanoseconds: touch.timestampNanoseconds)
        let bound: View?
        if touch.phase == .began {
            precondition(down[touch.id] == nil, "touch \(touch.id) began while it was already down")
            bound = root.hitTest(root.convert(touch.location, from: nil))
        } else {
            guard let finger = down[touch.id] else { preconditionFailure("touch \(touch.id) is not down") }
            bound = finger.view
        }
        delivering = true
        defer { delivering = false }
        (bound ?? root).perform(Inputs.touch.descriptor, recording: [ValueCoding<Touch>.touch.encode(touch)]) {
            if touch.phase == .ended || touch.phase == .cancelled {
                down[touch.id] = nil
            } else {
                down[touch.id] = Finger(touch: touch, view: bound)
            }
            deliver(touch, to: bound)
            return outcome(view: bound.map { .string($0.path) } ?? .null)
        }
    }

    /// Why `send(_:)` cannot take `touch` now, or nil: its time is before the clock, or its phase
    /// does not fit whether that finger is down.
    public func problem(sending touch: Touch) -> String? {
        guard touch.location.x.isFinite, touch.location.y.isFinite else {
            return "timestamp and location must be finite"
        }
        if touch.timestampNanoseconds < nowNanoseconds {
            return "touch at \(touch.timestamp) s is before the clock (\(now) s)"
        }
        let isDown = down[touch.id] != nil
        if touch.phase == .began && isDown { return "touch \(touch.id) began while it was already down" }
        if touch.phase != .began && !isDown { return "touch \(touch.id) is not down" }
        if touch.phase == .began, let miss = missedView(touch) { return miss }
        return nil
    }

    /// Why a touch beginning at `touch.location` reaches no view, or nil.
    private func missedView(_ touch: Touch) -> String? {
        guard let root, root.hitTest(root.convert(touch.location, from: nil)) == nil else { return nil }
        return "touch \(touch.id) at (\(touch.location.x), \(touch.location.y)) hits no view"
    }

    /// Why `perform(_:)` cannot take `events` now, or nil.
    public func problem(performing events: [Touch]) -> String? {
        do {
            try Touch.validate(events)
        } catch {
            return error.description
        }
        if let finger = events.first(where: { down[$0.id] != nil }) { return "touch \(finger.id) is already down" }
        if let last = events.last,
            last.timestampNanoseconds > 1_000_000 * VirtualTime.nanosecondsPerSecond
                || nowNanoseconds.addingReportingOverflow(last.timestampNanoseconds).overflow
        {
            return "a touch sequence lasts at most 1,000,000 s and ends before the clock's end (292 years)"
        }
        for (index, event) in events.enumerated() where event.phase == .began {
            if let miss = missedView(event) { return "event \(index): \(miss)" }
        }
        return nil
    }

    /// Sends `events`, whose timestamps count from the current clock, then lets every timer run
    /// (`settle()`). What a scenario's raw touch sequence does.
    public func perform(_ events: [Touch]) {
        let start = nowNanoseconds
        for var event in events {
            event.timestampNanoseconds += start
            send(event)
        }
        settle()
    }

    /// Moves the clock to `time` (nanoseconds), firing the recognizer timers due by then — a
    /// deadline equal to `time` included — in deadline order (ties in join order).
    public func advance(toNanoseconds time: Int64) {
        precondition(!delivering, "the clock cannot move while a touch or a timer is being delivered")
        precondition(time >= nowNanoseconds, "the clock cannot go back from \(now) to \(VirtualTime.seconds(time))")
        fireTimers(throughNanoseconds: time)
        nowNanoseconds = time
    }

    /// `advance(toNanoseconds:)` with `time` in seconds, rounded to the nearest nanosecond.
    public func advance(to time: Double) {
        advance(toNanoseconds: VirtualTime.converting(time))
    }

    /// Fires the timers due by `time` (nanoseconds; a deadline equal to it included), moving the
    /// clock to each deadline but no further: what replaying a recorded timer does.
    public func fireTimers(throughNanoseconds time: Int64) {
        precondition(!delivering, "the clock cannot move while a touch or a timer is being delivered")
        while let next = nextTimer(), next.deadline <= time {
            fire(next.recognizer, at: max(next.deadline, nowNanoseconds))
        }
    }

    /// `fireTimers(throughNanoseconds:)` with `time` in seconds, rounded to the nearest nanosecond.
    public func fireTimers(through time: Double) {
        fireTimers(throughNanoseconds: VirtualTime.converting(time))
    }

    /// Fires every timer, moving the clock to each deadline, until none runs.
    public func settle() {
        while let next = nextTimer() {
            fire(next.recognizer, at: max(next.deadline, nowNanoseconds))
        }
    }

    // MARK: Delivery

    private func deliver(_ touch: Touch, to view: View?) {
        if touch.phase == .began {
            offer(touch, to: view)
        } else if let arbiter {
            arbiter.deliverEvent {
                for recognizer in arbiter.members
                where recognizer.tracks(touch.id) && !recognizer.settledState.isFinished {
                    recognizer.deliver(touch)
                }
            }
        }
        finishIfIdle()
    }

    /// Rule 2: the recognizers of the hit view, then of each ancestor, are asked whether they
    /// receive the touch; those that do join the sequence, then each is given the touch.
    private func offer(_ touch: Touch, to view: View?) {
        var chain: [GestureRecognizer] = []
        var current = view
        while let node = current {
            chain += node.touchRecognizers
            current = node.superview
        }
        let arbiter = self.arbiter ?? GestureArbiter()
        let accepted = chain.filter { recognizer in
            guard recognizer.isEnabled else { return false }
            if recognizer.arbiter === arbiter {
                guard
                    recognizer.settledState.isActive
                        || (recognizer.settledState == .possible && recognizer.pending == nil)
                else {
                    return false
                }
            } else if recognizer.arbiter != nil {
                return false  // in another dispatcher's sequence
            }
            return recognizer.ask(GestureRecognizer.callbacks.shouldReceive, touch)
        }
        guard !accepted.isEmpty else { return }
        self.arbiter = arbiter
        for recognizer in accepted where recognizer.arbiter !== arbiter { arbiter.join(recognizer) }
        arbiter.drain()
        arbiter.deliverEvent {
            for recognizer in accepted where recognizer.arbiter === arbiter && !recognizer.settledState.isFinished {
                recognizer.deliver(touch)
            }
        }
    }

    private func nextTimer() -> (recognizer: GestureRecognizer, deadline: Int64)? {
        var next: (recognizer: GestureRecognizer, deadline: Int64)?
        for recognizer in arbiter?.members ?? [] {
            if let timer = recognizer.timer, next == nil || timer.deadline < next!.deadline {
                next = (recognizer, timer.deadline)
            }
        }
        return next
    }

    private func fire(_ recognizer: GestureRecognizer, at time: Int64) {
        precondition(!delivering, "the clock cannot move while a touch or a timer is being delivered")
        delivering = true
        defer { delivering = false }
        nowNanoseconds = time
        let name = recognizer.timer?.name ?? ""
        record(Inputs.timer.descriptor, on: recognizer.auditLink, [.string(name), .double(VirtualTime.seconds(time))]) {
            recognizer.fireTimer(at: time)
            finishIfIdle()
            return outcome(view: nil)
        }
    }

    /// Rule 9: once nothing can change, the sequence is over and its recognizers are reset.
    /// Otherwise the finished recognizers nothing waits on are reset at once, and take new fingers.
    private func finishIfIdle() {
        guard let arbiter else { return }
        if arbiter.finishIfIdle(touchesDown: !down.isEmpty) {
            lastOutcome = states(of: arbiter.members)
            for recognizer in arbiter.members { recognizer.resetForNextSequence() }
            self.arbiter = nil
            return
        }
        let before = states(of: arbiter.members)
        let released = arbiter.releaseFinished()
        guard !released.isEmpty else { return }
        lastOutcome = before
        for recognizer in released { recognizer.resetForNextSequence() }
    }

    /// An input's recorded result: the hit view when given, and the recognizers' states.
    private func outcome(view: AuditValue?) -> AuditValue {
        let states = lastOutcome ?? states(of: arbiter?.members ?? [])
        lastOutcome = nil
        var fields: [String: AuditValue] = ["states": states]
        if let view { fields["view"] = view }
        return .object(fields)
    }

    private func states(of recognizers: [GestureRecognizer]) -> AuditValue {
        .object(Dictionary(recognizers.map { ($0.path, .string($0.state.rawValue)) }, uniquingKeysWith: { a, _ in a }))
    }

    private func record(
        _ input: CallbackDescriptor, on link: AuditLink?, _ arguments: [AuditValue], _ body: () -> AuditValue
    ) {
        guard let link else {
            _ = body()
            return
        }
        link.perform(input, CapturedArguments(arguments), body)
    }

    /// The inputs a touch dispatcher records.
    public enum Inputs {
        /// One touch event, on the view it is bound to: `{"touch":{"id":1,"x":…,"y":…,"phase":…,"t":…}}`.
        public static let touch: Input<View, Touch> = Input(
            "touch", of: "View", arguments: .one("touch", .touch),
            check: { view, touch in view.root.touchDispatcher.problem(sending: touch).map { StepProblem($0) } },
            perform: { view, touch in view.root.touchDispatcher.send(touch) })

        /// A recognizer's timer firing, on the recognizer: `{"timer":"minimumPressDuration","t":0.5}`.
        /// Replay fires the timers due by its time, as they fired in the recording, and leaves the
        /// clock at the last one.
        public static let timer: Input<GestureRecognizer, (String, Double)> = Input(
            "gestureTimer", of: "GestureRecognizer", arguments: .two("timer", .string, "t", .double),
            check: { recognizer, arguments in
                guard let root = recognizer.view?.root else { return "the recognizer is on no view" }
                let time = arguments.1
                guard let nanoseconds = VirtualTime.nanoseconds(fromSeconds: time) else {
                    return StepProblem(field: "t", "\(time) s is not a time the virtual clock can hold")
                }
                return nanoseconds >= root.touchDispatcher.nowNanoseconds
                    ? nil : StepProblem(field: "t", "\(time) s is before the clock (\(root.touchDispatcher.now) s)")
            },
            perform: { recognizer, arguments in
                guard let nanoseconds = VirtualTime.nanoseconds(fromSeconds: arguments.1) else { return }
                recognizer.view?.root.touchDispatcher.fireTimers(throughNanoseconds: nanoseconds)
            })

        /// A scenario's raw touch sequence: not an input itself (never recorded), it sends each
        /// touch, which is recorded as a `touch` input, then lets the recognizers' timers run.
        public static let touches: Input<View, [Touch]> = Input(
            "touches", of: "View", arguments: .one("events", touchSequence),
            check: { view, events in
                missedView(events, in: view.root)
                    ?? view.root.touchDispatcher.problem(performing: events).map { StepProblem($0) }
            },
            perform: { view, events in view.root.touchDispatcher.perform(events) })

        /// The inputs a dispatcher records (a `touches` sequence is recorded as its touches).
        public static let all: [any WidgetInput] = [touch, timer]

        private static let touchSequence: ValueCoding<[Touch]> = ValueCoding(
            encode: { .array($0.map(ValueCoding<Touch>.touch.encode)) },
            decode: { value in
                guard case .array(let values) = value else { return nil }
                let touches = values.compactMap { ValueCoding<Touch>.touch.decode($0) }
                return touches.count == values.count ? touches : nil
            }, expected: "an array of \(FieldShape.touchShape)", shape: .touches)

        /// The first event of `events` that begins where no view of `root`'s tree is, named by its index.
        private static func missedView(_ events: [Touch], in root: View) -> StepProblem? {
            for (index, event) in events.enumerated()
            where event.phase == .began && root.hitTest(root.convert(event.location, from: nil)) == nil {
                return StepProblem(
                    field: "events[\(index)]",
                    "touch \(event.id) at (\(event.location.x), \(event.location.y)) hits no view")
            }
            return nil
        }
    }
}
