import AuditModel
import AuditStorage

/// The arbitration of one touch sequence: which recognizers take part, which wait for which, and
/// who prevents whom. It implements the Gestures article rule by rule; the numbers below refer to it.
///
/// Made by the dispatcher when a touch first reaches a recognizer, dropped when the sequence is
/// over (no touch down, no timer running). It holds its members strongly until then.
final class GestureArbiter {
    /// The recognizers of the sequence, in the order they joined.
    private(set) var members: [GestureRecognizer] = []
    /// Failure requirements the delegates declared when a pair met (rule 3): recognizer → the
    /// recognizers it waits for.
    private var declared: [ObjectIdentifier: [GestureRecognizer]] = [:]
    private var draining = false
    /// Set while one touch event is given to the members: requests to leave `possible` wait until
    /// every member has seen it (rule 4).
    private var deliveringEvent = false
    /// Set when something changed while rule 8 was running (an action disabled a recognizer).
    private var changedWhileDraining = false

    private enum Requirements {
        case met
        case waiting
        /// A required recognizer began or recognized.
        case lost
    }

    /// Rule 3: `newcomer` joins; the failure-requirement questions are asked once for it and each
    /// member already in the sequence that has not finished, in join order. A finished member is
    /// asked nothing more in this sequence (it stays only until rule 9 releases it).
    func join(_ newcomer: GestureRecognizer) {
        for member in members where !member.settledState.isFinished {
            if newcomer.ask(GestureRecognizer.callbacks.shouldRequireFailure, member)
                || member.ask(GestureRecognizer.callbacks.shouldBeRequiredToFail, newcomer)
            {
                declared[ObjectIdentifier(newcomer), default: []].append(member)
            }
            if member.ask(GestureRecognizer.callbacks.shouldRequireFailure, newcomer)
                || newcomer.ask(GestureRecognizer.callbacks.shouldBeRequiredToFail, member)
            {
                declared[ObjectIdentifier(member), default: []].append(newcomer)
            }
        }
        members.append(newcomer)
        newcomer.arbiter = self
    }

    /// Rule 4: a recognizer's request, applied or routed to the arbitration.
    func request(_ recognizer: GestureRecognizer, _ newState: GestureRecognizer.State) {
        guard recognizer.arbiter === self, !recognizer.settledState.isFinished else { return }
        switch (recognizer.settledState, newState) {
        case (.possible, .began), (.possible, .ended):
            if recognizer.pending != nil {
                if newState == .ended { recognizer.pending?.endsAfterBegin = true }
            } else if recognizer.ask(GestureRecognizer.callbacks.shouldBegin, ()) {
                // Asked as the recognizer itself tries to leave `possible`, before its failure
                // requirements are resolved: UIGestureRecognizer.h, "called when a gesture recognizer
                // attempts to transition out of UIGestureRecognizerStatePossible".
                recognizer.pending = PendingTransition(target: newState)
                if !deliveringEvent { leavePossible(recognizer) }
            } else {
                knockOut(recognizer)
            }
        case (.possible, .failed), (.possible, .cancelled):
            knockOut(recognizer)
        case (.began, .changed), (.changed, .changed), (.began, .ended), (.changed, .ended), (.began, .cancelled),
            (.changed, .cancelled):
            recognizer.apply(newState)
        case (.began, .failed), (.changed, .failed):
            knockOut(recognizer)
        default:
            return  // changed while waiting, began twice, back to possible: nothing to do
        }
        drain()
    }

    /// Gives one touch event to the members through `body`, then runs rule 8: every recognizer
    /// asks to leave `possible` (and is asked `shouldBegin`) before any of them prevents another.
    func deliverEvent(_ body: () -> Void) {
        deliveringEvent = true
        body()
        deliveringEvent = false
        drain()
    }

    /// Rules 5 to 7: a recognizer with a waiting request tries to leave `possible`.
    private func leavePossible(_ recognizer: GestureRecognizer) {
        switch requirements(of: recognizer) {
        case .waiting: return
        case .lost:
            knockOut(recognizer)
            return
        case .met: break
        }
        guard let request = recognizer.pending else { return }
        recognizer.pending = nil
        for other in members where other !== recognizer && other.settledState.isActive && shareTouch(recognizer, other)
        {
            if blocks(other, recognizer) {
                knockOut(recognizer)
                return
            }
        }
        for other in members where other !== recognizer && other.settledState == .possible {
            if waits(other, for: recognizer) {
                // Its requirement recognizes or begins: it fails (rule 5) and, failed, is asked
                // nothing about simultaneity or prevention (step 3).
                knockOut(other)
            } else if shareTouch(recognizer, other) && blocks(recognizer, other) {
                knockOut(other)
            }
        }
        recognizer.apply(request.target)
        if request.target == .began && request.endsAfterBegin && recognizer.settledState == .began {
            recognizer.apply(.ended)
        }
    }

    /// Rule 8: until nothing changes, recognizers whose requirement recognized fail, and waiting
    /// ones whose requirements are met try again, in join order.
    func drain() {
        guard !deliveringEvent else { return }
        guard !draining else {
            changedWhileDraining = true
            return
        }
        draining = true
        defer { draining = false }
        var changed = true
        while changed {
            changed = false
            changedWhileDraining = false
            for member in members where member.settledState == .possible {
                switch requirements(of: member) {
                case .lost:
                    knockOut(member)
                    changed = true
                case .met where member.pending != nil:
                    leavePossible(member)
                    changed = true
                default:
                    break
                }
            }
            changed = changed || changedWhileDraining
        }
    }

    /// Rule 10: the app disabled `recognizer` (UIKit's `isEnabled`) during the sequence: knocked out,
    /// then rule 8, as those waiting for it may go on.
    func knockOutFromOutside(_ recognizer: GestureRecognizer) {
        guard recognizer.arbiter === self else { return }
        knockOut(recognizer)
        drain()
    }

    /// Rule 10: `recognizer` leaves its view during the sequence: knocked out (its actions see it
    /// cancelled if it was active), then it leaves the sequence — no more touches, timers or
    /// questions — and is reset; rule 8 runs for the others.
    func remove(_ recognizer: GestureRecognizer) {
        guard recognizer.arbiter === self else { return }
        knockOut(recognizer)
        members.removeAll { $0 === recognizer }
        declared[ObjectIdentifier(recognizer)] = nil
        for key in declared.keys { declared[key]?.removeAll { $0 === recognizer } }
        recognizer.resetForNextSequence()
        drain()
    }

    /// Rule 9: when no touch is down and no timer runs, nothing can change any more: recognizers
    /// still possible without a request fail, waiting ones get a last chance, the rest fail, and
    /// active ones are cancelled. Returns whether the sequence is over.
    func finishIfIdle(touchesDown: Bool) -> Bool {
        guard !touchesDown, members.allSatisfy({ $0.timer == nil }) else { return false }
        for member in members where member.settledState == .possible && member.pending == nil { knockOut(member) }
        drain()
        for member in members where !member.settledState.isFinished { knockOut(member) }
        return true
    }

    /// Rule 9, after an event or a timer: the finished members nothing waits on any more leave the
    /// sequence, to be reset by the caller. UIGestureRecognizerSubclass.h on `reset`: "called
    /// automatically by the runtime after the gesture state is set to UIGestureRecognizerStateEnded/
    /// Recognized or Failed/Cancelled"; "after this is received all remaining active touches will be
    /// ignored". A recognizer some possible member waits for stays until that one is resolved.
    func releaseFinished() -> [GestureRecognizer] {
        let done = members.filter { member in
            member.settledState.isFinished
                && !members.contains { other in
                    other.settledState == .possible && requirementList(of: other).contains { $0 === member }
                }
        }
        for recognizer in done {
            members.removeAll { $0 === recognizer }
            declared[ObjectIdentifier(recognizer)] = nil
            for key in declared.keys { declared[key]?.removeAll { $0 === recognizer } }
        }
        return done
    }

    /// Fails a possible recognizer, cancels an active one (rule 1).
    private func knockOut(_ recognizer: GestureRecognizer) {
        if recognizer.settledState == .possible {
            recognizer.apply(.failed)
        } else if recognizer.settledState.isActive {
            recognizer.apply(.cancelled)
        }
    }

    /// Rule 5: the recognizers `recognizer` waits for are those set in code and those its pair's
    /// delegates declared; only members of this sequence count.
    private func requirements(of recognizer: GestureRecognizer) -> Requirements {
        var waiting = false
        for other in requirementList(of: recognizer) where other !== recognizer && other.arbiter === self {
            switch other.settledState {
            case .began, .changed, .ended, .cancelled: return .lost
            case .possible: waiting = true
            case .failed: continue
            }
        }
        return waiting ? .waiting : .met
    }

    /// The recognizers `recognizer` waits for: set in code, and declared by the delegates.
    private func requirementList(of recognizer: GestureRecognizer) -> [GestureRecognizer] {
        recognizer.failureRequirements + (declared[ObjectIdentifier(recognizer)] ?? [])
    }

    /// Whether `waiter` waits for `recognizer` (rule 5), set in code or declared by the delegates.
    private func waits(_ waiter: GestureRecognizer, for recognizer: GestureRecognizer) -> Bool {
        requirementList(of: waiter).contains { $0 === recognizer }
    }

    /// Rule 7: whether `winner` blocks `loser`, each stage reached only when the one before let it
    /// through: the classes (UIKit's class-wide `canPrevent(_:)` and `canBePrevented(by:)`, e.g. the
    /// tap-count rule) must agree, or nothing is asked — no recognizer would be blocked, and the
    /// delegate header asks about simultaneity only "when the recognition of one of
    /// gestureRecognizer or otherGestureRecognizer would be blocked by the other"; then neither
    /// delegate may allow both (`loser`'s asked first, the other only if it said no); then both
    /// delegates must agree, `loser`'s `canBePreventedBy` first, then `winner`'s `canPrevent`.
    /// The prevented side first is the order observed in UIKit (issue #13, items 6 and 10).
    private func blocks(_ winner: GestureRecognizer, _ loser: GestureRecognizer) -> Bool {
        guard loser.canBePrevented(by: winner) && winner.canPrevent(loser) else { return false }
        if loser.ask(GestureRecognizer.callbacks.shouldRecognizeSimultaneously, winner)
            || winner.ask(GestureRecognizer.callbacks.shouldRecognizeSimultaneously, loser)
        {
            return false
        }
        return loser.ask(GestureRecognizer.callbacks.canBePrevented, winner)
            && winner.ask(GestureRecognizer.callbacks.canPrevent, loser)
    }

    private func shareTouch(_ first: GestureRecognizer, _ second: GestureRecognizer) -> Bool {
        !first.receivedTouches.isDisjoint(with: second.receivedTouches)
    }
}
