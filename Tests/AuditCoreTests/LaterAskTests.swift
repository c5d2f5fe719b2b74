import Dispatch
import Foundation
import Synchronization
import Testing

@testable import AuditKit

/// The ask behind a `PendingAnswer`, on its own: a thread that waits for it returns once the step
/// that ended it is over (the widget's closure has run), not as soon as the answer has arrived.
@Suite("An ask's steps and the threads that wait for them")
struct LaterAskTests {
    final class Flag: Sendable {
        let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    /// The answer comes on a thread of its own and is held inside the widget's closure until a
    /// thread waits for the ask; the wait must return after the closure, whatever the order. A
    /// wait that returned on the stage alone came back before the closure had run (a gate that
    /// waits for its decision read its count of visitors before the visitor was added).
    @Test func aWaitReturnsOnceTheWidgetsClosureHasRun() {
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ran = Flag()
        let ask = LaterAsk<Bool>({ _ in
            inside.signal()
            release.wait()
            ran.value.store(true, ordering: .releasing)
        })
        Thread { ask.answer(true) }.start()
        inside.wait()
        #expect(!ask.isWaiting)
        // Lets the closure go on once this thread sleeps on the ask, or once its wait returned
        // (the fault this test is for), so that neither thread is left waiting.
        let returned = Flag()
        Thread {
            while ask.word.load(ordering: .acquiring) & LaterAskState.sleeping == 0
                && !returned.isSet
            {
                sched_yield()
            }
            release.signal()
        }.start()
        #expect(LaterAskState.sleep(on: ask.sleeper(), before: .distantFuture))
        #expect(ran.isSet, "the wait returned before the widget's closure ran")
        returned.value.store(true, ordering: .releasing)
    }
}
