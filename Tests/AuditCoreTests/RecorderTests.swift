import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Recorder and forwarding delegate")
struct RecorderTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func auditingNeverChangesBehaviour(seed: UInt64) throws {
        let (_, summary) = try expectAuditingChangesNothing(database: database) {
            runRandomInputs(seed: seed, count: 300, recorder: $0)
        }
        #expect(summary.inputs >= 300)
    }

    @Test func recordsArgumentsResultVetoAndNesting() throws {
        let root = View(identifier: "root")
        let shipping = SegmentedControl(identifier: "shipping", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        let payment = SegmentedControl(identifier: "payment", segments: ["x", "y"], selectedSegmentIndex: 0)
        root.addSubview(shipping)
        root.addSubview(payment)
        let delegate = LoggingDelegate(vetoing: [2])
        delegate.onDidSelect = { control, _ in
            if control === shipping { payment.setSelectedSegmentIndex(1, notify: true) }
        }
        shipping.delegate = delegate
        payment.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        shipping.tapSegment(2)  // vetoed
        shipping.tapSegment(1)  // allowed, nests a programmatic selection of payment
        let summary = recorder.finish()
        expectEqual(summary.vetoes, 1)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let lines = timelineLines(events)
        expectEqual(
            lines,
            [
                #"1 - input root/shipping tapSegment {"segment":2} {"selected":0} - -"#,
                #"2 1 callback root/shipping segmentedControl(_:shouldSelectSegmentAt:) {"index":2} false true true"#,
                #"3 - input root/shipping tapSegment {"segment":1} {"selected":1} - -"#,
                #"4 3 callback root/shipping segmentedControl(_:shouldSelectSegmentAt:) {"index":1} true false true"#,
                #"5 3 callback root/shipping segmentedControl(_:didSelectSegmentAt:userInteracted:) {"index":1,"userInteracted":true} void - true"#,
                #"6 5 input root/payment selectSegment {"segment":1,"notify":true} {"selected":1} - -"#,
                #"7 6 callback root/payment segmentedControl(_:shouldSelectSegmentAt:) {"index":1} true false true"#,
                #"8 6 callback root/payment segmentedControl(_:didSelectSegmentAt:userInteracted:) {"index":1,"userInteracted":false} void - true"#,
            ])
        #expect(events.allSatisfy { $0.protocolName == ($0.kind == .input ? nil : "SegmentedControlDelegate") })
    }

    @Test func unimplementedCallbackIsRecordedAsDefaultUsed() throws {
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        let delegate = DidOnlyDelegate()
        control.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: control)
        control.tapSegment(1)
        let session = recorder.finish().session
        let events = try AuditStore(path: database, access: .read).timeline(of: session)
        expectEqual(delegate.selections, [1])
        expectEqual(events[1].callback, "segmentedControl(_:shouldSelectSegmentAt:)")
        expectEqual(events[1].implemented, false)
        expectEqual(events[1].result, "true")
        expectEqual(events[1].vetoed, false)
        expectEqual(events[2].implemented, true)
    }

    @Test func reassigningTheDelegateRetargetsAtOnceAndDetachStopsRecording() throws {
        let control = SegmentedControl(identifier: "c", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        let first = LoggingDelegate()
        control.delegate = first
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: control)
        let second = LoggingDelegate(vetoing: [2])
        control.delegate = second
        #expect(control.delegate === second)
        control.tapSegment(2)
        #expect(first.calls.isEmpty)
        expectEqual(second.calls, ["c.should(2)"])
        recorder.detach(from: control)
        control.tapSegment(1)
        expectEqual(second.calls, ["c.should(2)", "c.should(1)", "c.did(1, true)"])
        let summary = recorder.finish()
        expectEqual(summary.callbacks, 1)
        expectEqual(summary.inputs, 1)
    }

    @Test func widgetsAddedAfterAttachAreAudited() throws {
        let root = View(identifier: "root")
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        let group = View(identifier: "group")
        let control = SegmentedControl(identifier: "late", segments: ["a", "b"], selectedSegmentIndex: 0)
        group.addSubview(control)
        root.addSubview(group)
        control.tapSegment(1)
        let session = recorder.finish().session
        let events = try AuditStore(path: database, access: .read).timeline(of: session)
        // The tap, its should- and its did-callback.
        expectEqual(events.map(\.widget), Array(repeating: "root/group/late", count: 3))
        expectEqual(events.map(\.widgetKind), Array(repeating: "SegmentedControl", count: 3))
    }

    @Test func widgetAndDelegateLeaveNoRetainCycle() throws {
        weak var weakControl: SegmentedControl?
        weak var weakDelegate: LoggingDelegate?
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        do {
            let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
            let delegate = LoggingDelegate()
            control.delegate = delegate
            try recorder.attach(to: control)
            control.tapSegment(1)
            weakControl = control
            weakDelegate = delegate
        }
        #expect(weakControl == nil)
        #expect(weakDelegate == nil)
        recorder.finish()
    }

    @Test func delegateIsHeldWeakly() {
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        do {
            let delegate = LoggingDelegate()
            control.delegate = delegate
        }
        #expect(control.delegate == nil)
    }

    @Test func seqIsContiguousAcrossBatches() throws {
        var options = Recorder.Options()
        options.batchSize = 7
        options.capacity = 16
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn, options: options)
        _ = runRandomInputs(seed: 9, count: 500, recorder: recorder)
        let summary = recorder.finish()
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        expectEqual(events.map(\.seq), Array(1...Int64(events.count)))
        expectEqual(events.count, summary.events)
        let stored = try AuditStore(path: database, access: .read).session(summary.session)
        expectEqual(stored.status, .complete)
        expectEqual(stored.events, summary.events)
    }

    @Test func finishIsIdempotent() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let first = recorder.finish()
        expectEqual(recorder.finish(), first)
    }

    @Test func sessionOfADeadProcessIsMarkedInterruptedOnNextWrite() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: View(identifier: "root"))  // a recorder attached to nothing stores no session
        let session = recorder.finish().session
        // Make the finished session look like one a killed process left behind.
        try sqlite(database, "UPDATE sessions SET status = 'recording', owner_pid = 999999999 WHERE id = \(session)")
        let storedStatus = "SELECT status FROM sessions WHERE id = \(session)"
        // Readers see at once that its process is gone; the file changes at the next write.
        try expectEqual(AuditStore(path: database, access: .read).session(session).status, .interrupted)
        try expectEqual(Connection(path: database, mode: .readOnly).scalarText(storedStatus), "recording")
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(Connection(path: database, mode: .readOnly).scalarText(storedStatus), "interrupted")
    }

    @Test func aLiveRecordingIsNotMarkedInterrupted() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: View(identifier: "root"))
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(AuditStore(path: database, access: .read).session(recorder.session).status, .recording)
        recorder.finish()
        try expectEqual(AuditStore(path: database, access: .read).session(recorder.session).status, .complete)
    }
}
