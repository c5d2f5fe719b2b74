import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Several threads drive widget trees of their own under one recorder, as an app whose screens
/// live on different threads would.
@Suite("Concurrency: many threads, one recorder", .tags(.slow))
struct ConcurrencyTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// What one thread did: its inputs and its delegate's calls, in its own order, in the words of
    /// the recorded timeline (`path name arguments`).
    struct ThreadLog: Sendable, Equatable {
        var inputs: [String] = []
        /// Inputs the delegate made from inside a callback.
        var nested: [String] = []
        var calls: [String] = []
        var state: [Int] = []
    }

    /// Logs every call; vetoes every third should-call, and from inside didSelect selects the
    /// sibling in code, so each thread's run has vetoes and nested events.
    final class ThreadDelegate: SegmentedControlDelegate {
        var calls: [String] = []
        var nested: [String] = []
        private var asked = 0

        func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
            asked += 1
            calls.append(#"\#(segmentedControl.path) segmentedControl(_:shouldSelectSegmentAt:) {"index":\#(index)}"#)
            return asked % 3 != 0
        }

        func segmentedControl(
            _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
        ) {
            calls.append(
                #"\#(segmentedControl.path) segmentedControl(_:didSelectSegmentAt:userInteracted:) "#
                    + #"{"index":\#(index),"userInteracted":\#(userInteracted)}"#)
            if userInteracted, index == 0,
                let other = segmentedControl.superview?.subviews.first(where: { $0 !== segmentedControl })
                    as? SegmentedControl
            {
                nested.append(#"\#(other.path) selectSegment {"segment":\#(other.numberOfSegments - 1),"notify":true}"#)
                other.setSelectedSegmentIndex(other.numberOfSegments - 1, notify: true)
            }
        }
    }

    /// Thread `index`'s run: a root `t<index>` with two controls, `count` seeded random inputs.
    static func drive(thread index: Int, count: Int, recorder: Recorder?) -> ThreadLog {
        let root = View(identifier: "t\(index)")
        let first = SegmentedControl(identifier: "first", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        let second = SegmentedControl(identifier: "second", segments: ["x", "y"])
        root.addSubview(first)
        root.addSubview(second)
        let delegate = ThreadDelegate()
        first.delegate = delegate
        second.delegate = delegate
        try! recorder?.attach(to: root)
        var random = SeededGenerator(seed: UInt64(index) &* 7919 &+ 1)
        var log = ThreadLog()
        for _ in 0..<count {
            let control = Bool.random(using: &random) ? first : second
            let segment = Int.random(in: 0..<control.numberOfSegments, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                let notify = Bool.random(using: &random)
                log.inputs.append(#"\#(control.path) selectSegment {"segment":\#(segment),"notify":\#(notify)}"#)
                control.setSelectedSegmentIndex(segment, notify: notify)
            } else {
                log.inputs.append(#"\#(control.path) tapSegment {"segment":\#(segment)}"#)
                control.tapSegment(segment)
            }
        }
        log.calls = delegate.calls
        log.nested = delegate.nested
        log.state = [first.selectedSegmentIndex, second.selectedSegmentIndex]
        return log
    }

    /// Runs `threads` threads at once (released together), each driving its own tree.
    static func runThreads(_ threads: Int, count: Int, recorder: Recorder?) -> [ThreadLog] {
        let logs = Mutex<[Int: ThreadLog]>([:])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                gate.wait()
                let log = drive(thread: index, count: count, recorder: recorder)
                logs.withLock { $0[index] = log }
                done.leave()
            }
        }
        for _ in 0..<threads { gate.signal() }
        done.wait()
        return logs.withLock { logs in (0..<threads).map { logs[$0]! } }
    }

    @Test func eightThreadsUnderOneRecorderLoseNothingAndKeepEachThreadsOrder() throws {
        let (threads, count) = (8, 1_500)
        let plain = Self.runThreads(threads, count: count, recorder: nil)
        var options = Recorder.Options()
        options.batchSize = 64  // many batches, so events of all threads arrive interleaved and out of order
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn, options: options)
        let audited = Self.runThreads(threads, count: count, recorder: recorder)
        let summary = recorder.finish()
        expectEqual(summary.failedWrites, 0)
        // Auditing changed no thread's behaviour.
        expectEqual(audited, plain)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        // No event lost, none duplicated: seq runs 1...N, and N is every input and call made.
        expectEqual(events.map(\.seq), Array(1...Int64(events.count)))
        expectEqual(summary.events, events.count)
        expectEqual(events.count, audited.reduce(0) { $0 + $1.inputs.count + $1.nested.count + $1.calls.count })
        expectEqual(summary.callbacks, audited.reduce(0) { $0 + $1.calls.count })

        let bySeq = Dictionary(uniqueKeysWithValues: events.map { ($0.seq, $0) })
        for (index, log) in audited.enumerated() {
            let prefix = "t\(index)/"
            let mine = events.filter { $0.widget?.hasPrefix(prefix) == true }
            // Each thread's inputs, top-level ones in the order it made them.
            let topInputs = mine.filter { $0.kind == .input && $0.parentSeq == nil }
            expectEqual(topInputs.map { "\($0.widget!) \($0.callback) \($0.arguments)" }, log.inputs, "thread \(index)")
            let nested = mine.filter { $0.kind == .input && $0.parentSeq != nil }
            expectEqual(nested.map { "\($0.widget!) \($0.callback) \($0.arguments)" }, log.nested, "thread \(index)")
            // Each thread's delegate calls, in the order its delegate saw them.
            let calls = mine.filter { $0.kind == .callback }
            expectEqual(calls.map { "\($0.widget!) \($0.callback) \($0.arguments)" }, log.calls, "thread \(index)")
            // Nesting stays within the thread: a parent is an earlier event of the same tree.
            for event in mine {
                guard let parent = event.parentSeq else {
                    expectEqual(event.kind, .input, "a callback outside any input: \(event)")
                    continue
                }
                #expect(parent < event.seq)
                expectEqual(bySeq[parent]?.widget?.hasPrefix(prefix), true, "event \(event.seq) nested across threads")
            }
        }
        // Every event belongs to one thread's tree.
        #expect(events.allSatisfy { $0.widget?.hasPrefix("t") == true })
    }
}
