import AuditModel
import Dispatch
import Synchronization

/// Who hears of an ask's steps: an isolated replay's pin (the recorder's asks are `RecordedAsk`s,
/// which hold what their events need themselves). Called once per step,
/// on the thread that takes it, with the answer given (nil for a step without one: `gaveUp`,
/// `neverAnswered`) and whether the delegate implemented the callback. For `.answered` only,
/// `deliver` hands the answer to the widget and must be called exactly once; other steps pass a
/// closure that does nothing.
///
/// A closure rather than a protocol: made in inlinable code, it is specialized for the
/// callback's types, and the answer's way back runs no generic code through an existential.
@usableFromInline
package typealias LaterObserver<Result> =
    @Sendable (_ step: LaterStep, _ result: Result?, _ implemented: Bool, _ deliver: () -> Void) -> Void

/// Where one ask of a `LaterCallback` stands, whatever its result type: what `PendingAnswer`, the
/// recorder's waiting asks and the pin hold.
///
/// The whole state is one atomic byte (`word`: the stage and a few flags), so that the answer,
/// which most delegates give at once, takes no lock and allocates nothing; a semaphore is made
/// only when a thread waits for the ask (`sleeper()`). Each step moves the byte once, so the
/// steps are totally ordered: the first answer wins, and a step the observer hears of is one it
/// still observed when the step was taken.
@usableFromInline
package class LaterAskState: @unchecked Sendable {
    // @unchecked: a class that `LaterAsk` refines cannot be checked; `word` is atomic,
    // `sleepers` is set once, atomically, and `ifNeverAnswered` is the widget's closure, called once
    // (on the thread that lets go of the handler, as the widget's own code would be).
    @usableFromInline let word: Atomic<UInt8>
    /// The semaphore threads waiting for the ask sleep on: made by the first of them.
    /// (Set once and never cleared, so an atomic reference, which costs the ask nothing to end,
    /// rather than a lock.)
    private let sleepers = AtomicLazyReference<DispatchSemaphore>()
    private let ifNeverAnswered: () -> Void

    @usableFromInline
    init(ifNeverAnswered: @escaping () -> Void, observed: Bool) {
        word = Atomic(observed ? Self.waiting : Self.waiting | Self.unobserved)
        self.ifNeverAnswered = ifNeverAnswered
    }

    // MARK: The word

    /// The two bits of the stage: waiting, then one of answered, gave up, never answered.
    @inlinable static var stageBits: UInt8 { 0b11 }
    @inlinable static var waiting: UInt8 { 0 }
    @inlinable static var answered: UInt8 { 1 }
    @inlinable static var gaveUp: UInt8 { 2 }
    @inlinable static var neverAnswered: UInt8 { 3 }
    /// Nobody hears of the steps: there was no observer, or its observation ended.
    @inlinable static var unobserved: UInt8 { 1 << 2 }
    /// A thread waits for the ask: leaving waiting wakes it.
    @inlinable static var sleeping: UInt8 { 1 << 3 }
    /// The call that asked returned, and whether the delegate implemented the callback.
    @inlinable static var implementationKnown: UInt8 { 1 << 4 }
    @inlinable static var implemented: UInt8 { 1 << 5 }
    /// The step that left waiting is over: the widget's closure (or `ifNeverAnswered`) and the
    /// observer have run. What a waiting thread waits for (`sleep(on:before:)`), not the stage
    /// alone, which a step sets before it runs them.
    @inlinable static var over: UInt8 { 1 << 6 }

    /// Whether the answer has not come yet and the widget still waits for it.
    @usableFromInline package final var isWaiting: Bool {
        word.load(ordering: .acquiring) & Self.stageBits == Self.waiting
    }

    /// Whether the ask no longer waits and the step that ended it is over: nothing the widget can
    /// do with it (`PendingAnswer`) does anything any more.
    @inlinable final var isOver: Bool { word.load(ordering: .acquiring) & Self.over != 0 }

    /// An ask that is over (answered), for `PendingAnswer.over`.
    @usableFromInline static let ended: LaterAskState = {
        let ask = LaterAskState(ifNeverAnswered: {}, observed: false)
        ask.word.store(answered | implementationKnown | over | unobserved, ordering: .releasing)
        return ask
    }()

    /// Moves from waiting to `stage`; returns the word as it was, waiting or not (so the caller
    /// knows which step it took, and whether it is observed).
    @inlinable final func leave(for stage: UInt8) -> UInt8 {
        var old = word.load(ordering: .acquiring)
        while old & Self.stageBits == Self.waiting {
            let (exchanged, original) = word.compareExchange(
                expected: old, desired: old | stage, ordering: .acquiringAndReleasing)
            if exchanged { break }
            old = original
        }
        return old
    }

    /// Whether the delegate implemented the callback, once the call that asked has returned;
    /// while it is still running (an answer given at once), as this thread has seen so far.
    @inlinable final func isImplemented(_ word: UInt8) -> Bool {
        if word & Self.implementationKnown != 0 { return word & Self.implemented != 0 }
        return !ThreadContext.current.defaultUsed
    }

    /// The same, `context` being this thread's.
    @inlinable final func isImplemented(_ word: UInt8, on context: ThreadContext) -> Bool {
        if word & Self.implementationKnown != 0 { return word & Self.implemented != 0 }
        return !context.defaultUsed
    }

    /// The call that asked the delegate returned: whether the delegate implemented the callback.
    @inlinable package final func called(implemented: Bool) {
        let known = Self.implementationKnown | (implemented ? Self.implemented : 0)
        _ = word.bitwiseOr(known, ordering: .releasing)
    }

    /// Both at once, for an ask whose answer came during the call on its thread and whose step
    /// is over (`RecordedAsk`): one atomic operation, not two.
    @inlinable final func calledAndSettled(implemented: Bool) {
        let known = Self.implementationKnown | (implemented ? Self.implemented : 0) | Self.over
        if word.bitwiseOr(known, ordering: .acquiringAndReleasing).oldValue & Self.sleeping != 0 { wake() }
    }

    /// The step that left waiting is over: wakes the threads that wait for it (one may have
    /// begun to wait after the step left waiting).
    @inlinable final func settled() {
        if word.bitwiseOr(Self.over, ordering: .acquiringAndReleasing).oldValue & Self.sleeping != 0 { wake() }
    }

    @usableFromInline final func wake() { _ = sleepers.load()?.signal() }

    // MARK: Steps without an answer

    /// The observer hears of `step`, which has no answer; `word` is the word when it was taken.
    /// The result type's `LaterAsk` tells its observer; a bare state has none.
    @usableFromInline func noted(_ step: LaterStep, _ word: UInt8) {}

    /// The widget stops waiting (`PendingAnswer.giveUp()`); nothing happens once it no longer waits.
    package final func giveUp() {
        let old = leave(for: Self.gaveUp)
        guard old & Self.stageBits == Self.waiting else { return }
        if old & Self.unobserved == 0 { noted(.gaveUp, old) }
        settled()
    }

    /// The delegate let go of the handler: when it never called it, the mistake "never
    /// answered", and the widget hears of it (`ifNeverAnswered`). Also how an isolated replay
    /// replays a recorded "never answered".
    @usableFromInline package final func handlerReleased() {
        let old = leave(for: Self.neverAnswered)
        guard old & Self.stageBits == Self.waiting else { return }
        if old & Self.unobserved == 0 { noted(.neverAnswered, old) }
        ifNeverAnswered()
        settled()
    }

    /// After the call that asked: when the caller's `ask` is the only reference left to it, the
    /// delegate let go of the handler during the call, so an ask that still waits was never
    /// answered (found here, when the call returns, on the asking thread).
    @inlinable package static func endIfLetGoOf<Ask: LaterAskState>(_ ask: inout Ask) {
        if ask.isWaiting && isKnownUniquelyReferenced(&ask) { ask.handlerReleased() }
    }

    /// The recording (or replay) that observes the ask ends while it still waits: its observer
    /// hears "never answered" and hears nothing more; the ask itself goes on unobserved, as it
    /// would have unaudited.
    package final func observationEnded() {
        let old = word.bitwiseOr(Self.unobserved, ordering: .acquiringAndReleasing).oldValue
        if old & Self.stageBits == Self.waiting && old & Self.unobserved == 0 { noted(.neverAnswered, old) }
    }

    /// What a thread that waits for the ask sleeps on, nil when the ask is over. A thread that
    /// calls this must then `sleep(on:before:)`: from now on whoever ends a step wakes it. Apart,
    /// so that a thread can sleep without holding the ask (`PendingAnswer.wait()`, the pin's
    /// `finish()`), which must end when its handler does.
    package final func sleeper() -> DispatchSemaphore? {
        guard word.load(ordering: .acquiring) & Self.over == 0 else { return nil }
        let semaphore = sleepers.load() ?? sleepers.storeIfNil(DispatchSemaphore(value: 0))
        // Set after the semaphore exists: whoever ends a step from now on wakes it.
        let old = word.bitwiseOr(Self.sleeping, ordering: .acquiringAndReleasing).oldValue
        return old & Self.over == 0 ? semaphore : nil
    }

    /// Sleeps on `semaphore` (`sleeper()`) until the ask's step is over or `deadline`; returns
    /// whether it came to that.
    package static func sleep(on semaphore: DispatchSemaphore?, before deadline: DispatchTime) -> Bool {
        guard let semaphore else { return true }
        guard semaphore.wait(timeout: deadline) == .success else { return false }
        semaphore.signal()  // for whoever waits next
        return true
    }
}

/// An ask the delegate's handler answers: `LaterCallback.call` is generic over it, so that the
/// handler calls the ask's own `answer`, specialized, whichever kind of ask it is (the recorder's
/// `RecordedAsk`, or a `LaterAsk` with an observer or none).
@usableFromInline
package protocol LaterAnswering<Result>: LaterAskState {
    associatedtype Result
    /// The delegate called the handler with `result`.
    func answer(_ result: Result)
}

/// One ask of a `LaterCallback`: where its answer stands, what the widget does with it, and who
/// hears of its steps (set when it is made, before the delegate can answer).
@usableFromInline
package final class LaterAsk<Result: Sendable>: LaterAskState, LaterAnswering, @unchecked Sendable {
    // @unchecked: `deliver` is the widget's closure, called once, on the thread that answers,
    // as the widget's own code would be; the observer is Sendable; the rest is the state's.
    @usableFromInline let deliver: (Result) -> Void
    @usableFromInline let observer: LaterObserver<Result>?

    @inlinable
    package init(
        _ deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void = {},
        observer: LaterObserver<Result>? = nil
    ) {
        self.deliver = deliver
        self.observer = observer
        super.init(ifNeverAnswered: ifNeverAnswered, observed: observer != nil)
    }

    /// The delegate called the handler. Inlinable, with the observer a closure, so that an
    /// answer runs code specialized for the callback's types all the way to the observer.
    @inlinable
    package func answer(_ result: Result) {
        let old = leave(for: Self.answered)
        let observer = old & Self.unobserved == 0 ? observer : nil
        switch old & Self.stageBits {
        case Self.waiting:
            if let observer {
                observer(.answered, result, isImplemented(old)) { deliver(result) }
            } else {
                deliver(result)
            }
            settled()
        case Self.gaveUp: observer?(.answeredAfterGivingUp, result, isImplemented(old), {})
        default: observer?(.answeredTwice, result, isImplemented(old), {})
        }
    }

    @usableFromInline
    override func noted(_ step: LaterStep, _ word: UInt8) { observer?(step, nil, isImplemented(word), {}) }

    /// The handler's closure let go of the ask: if it still waits, the delegate never answered.
    deinit { handlerReleased() }
}

/// An ask held by whatever waits for it or ends its observation (the recorder's waiting asks, the
/// isolated replay's candidate asks): weakly, since an ask's handler alone keeps it, and the
/// handler's end is what tells "never answered".
package struct WeakAsk: Sendable {
    package weak var ask: LaterAskState?

    package init(_ ask: LaterAskState) { self.ask = ask }
}

/// The widget's hold on an answer that comes later: what `LaterCallback.ask` returns.
public final class PendingAnswer: Sendable {
    /// Weak: the delegate's handler holds the ask, and nothing else does, so that the handler's
    /// end is the ask's (the mistake "never answered" when it still waits). Gone once it is over.
    private weak let ask: LaterAskState?

    @usableFromInline init(_ ask: LaterAskState) { self.ask = ask }

    /// The hold on any ask that is over when `LaterCallback.ask` returns (answered at once, as
    /// most are): one for all, as nothing it does depends on the ask any more (it no longer
    /// waits, giving up does nothing, a wait returns at once), so none is made for each.
    @usableFromInline static let over = PendingAnswer(LaterAskState.ended)

    /// The widget's hold on `ask`.
    @inlinable static func holding(_ ask: LaterAskState) -> PendingAnswer { ask.isOver ? over : PendingAnswer(ask) }

    /// Whether the answer has not come yet and the widget still waits for it.
    public var isWaiting: Bool { ask?.isWaiting ?? false }

    /// Stops waiting (a navigation cancelled by another one, a widget going away): the answer,
    /// should it come, is not delivered, and a delegate that still calls the handler makes the
    /// mistake "answered after giving up". Nothing happens once the answer has come.
    public func giveUp() { ask?.giveUp() }

    /// Blocks the calling thread until the ask no longer waits: the answer has come (and the
    /// widget's closure has run), the widget gave up, or the delegate let go of the handler
    /// uncalled (and `ifNeverAnswered` has run). For a widget that must answer its own caller
    /// before it returns; never call it on the thread the delegate answers on.
    public func wait() {
        // Not holding the ask while asleep: its handler's end may be what ends it.
        _ = LaterAskState.sleep(on: ask?.sleeper(), before: .distantFuture)
    }
}
