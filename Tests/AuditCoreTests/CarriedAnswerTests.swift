import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditKit
@testable import AuditModel

/// An ask answered during its call is queued as one event that carries its answer, and stored as
/// the two events it is.
@Suite("An answer given at once, carried by its ask's event")
struct CarriedAnswerTests {
    let folder = TemporaryDirectory()

    /// One entry in the queue (what `Recorder.Options.capacity` counts), two events for the
    /// writer: the ask without a result, then the answer with it, naming the ask.
    @Test func anAskCarryingItsAnswerIsQueuedAsOneAndWrittenAsTwo() {
        let queue = EventQueue(capacity: 4, batchSize: 4)
        var ask = CapturedEvent(
            seq: 1, time: 10, widget: 1, descriptor: Gate.callbacks.shouldAdmit.descriptor,
            answer: AnswerOutcome(answering: .none, tookEffect: false, implemented: true), arguments: .none,
            result: .bool(false), duration: 30, parent: 0, later: .asked)
        ask.answeredInCall = AnswerInCall(
            seq: 2, time: 20, duration: 5, parent: 1,
            answer: AnswerOutcome(answering: .veto, tookEffect: true, implemented: true))
        queue.append(ask)
        var batch: [CapturedEvent] = []
        _ = queue.take(into: &batch, interval: 0)
        expectEqual(batch.count, 1)
        var written: [CapturedEvent] = []
        written.appendSplittingAnswers(batch)
        expectEqual(written.map(\.seq), [1, 2])
        expectEqual(written.map(\.later), [.asked, .answered])
        expectEqual(written.map(\.result), [nil, .bool(false)])
        expectEqual(written.map(\.answers), [0, 1])
        expectEqual(written.map(\.parent), [0, 1])
        expectEqual(written.map(\.time), [10, 20])
        #expect(written.allSatisfy { $0.answeredInCall == nil })
    }

    /// Dropped after `finish()`, an ask and its carried answer count as two events, as many as
    /// the same knock stored before it.
    @Test func anAskCarryingItsAnswerCountsAsTwoWhenDroppedAfterFinish() throws {
        let gate = Gate(identifier: "gate")
        let doorman = PromptDoorman()
        gate.delegate = doorman
        let recorder = try Recorder(
            databasePath: folder.path("audit.sqlite"), session: NewSession(recordedInCode: "gate", delegate: "prompt"),
            catalog: LaterAnswerTests.catalog)
        try recorder.attach(to: gate)
        gate.knock("alice")
        let stored = recorder.finish().events
        gate.knock("alice")
        #expect(stored == 5, "the knock, two asks and their answers")
        expectEqual(recorder.queue.counts.late, stored)
    }
}
