import CSQLite
import Foundation
import Testing

@testable import AuditCore
@testable import AuditExamples

// MARK: helpers

final class Swapper: SegmentedControlDelegate {
    let name: String
    var log: [String]
    var next: Swapper?
    init(_ name: String, log: [String] = []) {
        self.name = name
        self.log = log
    }
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        if let next { segmentedControl.delegate = next }
        return true
    }
    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        Log.calls.append("\(name).did(\(index))")
    }
}

enum Log {
    nonisolated(unsafe) static var calls: [String] = []
}

final class NothingTextDelegate: TextViewDelegate {}

/// Implements shouldSelect; inside it drives a text view that is NOT audited and whose delegate
/// implements nothing.
final class DrivesOtherWidget: SegmentedControlDelegate {
    let other = TextView(identifier: "other")
    let otherDelegate = NothingTextDelegate()
    init() { other.delegate = otherDelegate }
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        other.beginEditing()
        return true
    }
}

/// A text delegate that keeps the text at most 3 characters, reading the view's text.
final class MaxThree: TextViewDelegate {
    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        textView.text.count - range.length + text.count <= 3
    }
}

/// Reads its own control: accepts only when the control shows the proposed index (always true in a
/// real run: the control sets the proposed index first). Selecting 2 snaps back to 0 in code.
final class Snapper: SegmentedControlDelegate {
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        segmentedControl.selectedSegmentIndex == index
    }
    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        if index == 2 { segmentedControl.setSelectedSegmentIndex(0, notify: false) }
    }
}

final class ThreeIndexes: TableViewDelegate {
    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        IndexPath(indexes: [0, 0, 0])
    }
}

@Suite("Review findings: auditing, replay and recording integrity", .serialized)
struct ReviewFindingsTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func run(audited: Bool) throws -> [String] {
        Log.calls = []
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let a = Swapper("A")
        let b = Swapper("B")
        a.next = b
        control.delegate = a
        var recorder: Recorder?
        if audited {
            recorder = try Recorder(
                databasePath: folder.path("r\(UUID()).sqlite"), session: newSession(), catalog: .builtIn)
            try recorder!.attach(to: root)
        }
        withExtendedLifetime((a, b)) { control.tapSegment(1) }
        recorder?.finish()
        return Log.calls
    }

    /// Auditing never changes behaviour. SegmentedControl.select reads `proxy ?? delegate`
    /// once; the proxy re-reads `delegate` per call.
    @Test func delegateReassignedInsideShouldSelect() throws {
        let plain = try run(audited: false)
        let audited = try run(audited: true)
        #expect(plain == audited, "plain \(plain) audited \(audited)")
    }

    /// `implemented` is decided by a thread-local flag that an unaudited nested default call sets.
    @Test func implementedFlagLeaksFromUnauditedNestedCall() throws {
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let delegate = DrivesOtherWidget()
        control.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        control.tapSegment(1)
        let summary = recorder.finish()
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let should = events.first { $0.callback == "segmentedControl(_:shouldSelectSegmentAt:)" }!
        #expect(should.implemented == true, "recorded implemented=\(String(describing: should.implemented))")
    }

    func scenario(_ root: String, _ steps: String) throws -> Scenario {
        try Scenario(data: Data(#"{"name":"s","root":\#(root),"steps":[\#(steps)]}"#.utf8), catalog: .builtIn)
    }

    /// ReplayModes: isolated mode shows a delegate its text view's text and selection as the recording saw them.
    @Test func isolatedReplayOfSameTextDelegateIsIdentical() throws {
        let s = try scenario(
            #"{"kind":"View","id":"r","children":[{"kind":"TextView","id":"t"}]}"#,
            #"{"action":"typeText","widget":"r/t","text":"ab"},{"action":"typeText","widget":"r/t","text":"cd"}"#)
        let session = try ScenarioRunner.record(s, delegate: { MaxThree() }, named: "max3", databasePath: database)
            .session
        let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
        let interaction = try replayer.replay(
            session: session, candidate: { MaxThree() }, named: "max3", mode: .interaction)
        #expect(interaction.identical)
        let isolated = try replayer.replay(session: session, candidate: { MaxThree() }, named: "max3", mode: .isolated)
        #expect(isolated.identical, "\(isolated.diff.differences.map { "\($0.kind) \($0.event.callback)" })")
    }

    /// Events captured after finish() are dropped and counted, not kept in memory.
    @Test func eventsAfterFinishAreDroppedAndCounted() throws {
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        recorder.finish()
        for i in 0..<10_000 { control.tapSegment(i % 2) }
        // Each tap is an input and (for a change) two callbacks; none is kept.
        #expect(recorder.queue.counts.late >= 10_000)
        #expect(try AuditStore(path: database, access: .read).timeline(of: recorder.session).isEmpty)
    }

    /// Events are numbered from 1, contiguously. finish() while events are in progress stores no gap: what
    /// has no predecessor is lost and counted, and the session is interrupted.
    @Test func finishInsideACallbackLeavesNoGap() throws {
        let root = View(identifier: "root")
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        root.addSubview(control)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let delegate = LoggingDelegate()
        delegate.onDidSelect = { _, _ in recorder.finish() }
        control.delegate = delegate
        try recorder.attach(to: root)
        control.tapSegment(1)
        let events = try AuditStore(path: database, access: .read).timeline(of: recorder.session)
        let status = try AuditStore(path: database, access: .read).session(recorder.session).status
        #expect(events.map(\.seq) == Array(1...Int64(max(events.count, 1))).prefix(events.count).map { $0 })
        #expect(status == "interrupted")
        #expect(recorder.finish().lostEvents > 0)
    }

    /// A batch that fails (the database busy past its timeout, made so by fault injection rather
    /// than by holding the lock and hoping the writer tries meanwhile) is retried with the next
    /// one: no gap, and the session replays identically.
    @Test func aFailedWriteIsRetriedWithoutAGap() throws {
        let s = try scenario(
            #"{"kind":"View","id":"r","children":[{"kind":"SegmentedControl","id":"c","segments":["a","b"],"selected":0}]}"#,
            #"{"action":"tapSegment","widget":"r/c","segment":1}"#)
        var options = Recorder.Options()
        options.flushInterval = 0.01
        let recorder = try Recorder(
            databasePath: database,
            session: NewSession(name: "x", scenario: "s", scenarioSource: s.source, delegate: "checkout.v1"),
            catalog: .builtIn, options: options)
        let delegate = CheckoutDelegate(version: .v1)
        let root = s.root.build()
        root.visit { $0.adoptDelegate(delegate) }
        try recorder.attach(to: root)
        let control = root.view(atPath: "r/c") as! SegmentedControl
        control.tapSegment(1)
        StoreFaults.inject(SQLITE_BUSY, at: database, times: 1, matching: "INSERT INTO events")
        defer { StoreFaults.clear(database) }
        control.tapSegment(0)
        StoreFaults.wait(forFailures: 1, at: database)
        control.tapSegment(1)
        let summary = recorder.finish()
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        #expect(summary.failedWrites >= 1, "the locked write failed once")
        #expect(summary.lostEvents == 0)
        #expect(events.map(\.seq) == Array(1...Int64(events.count)), "seqs \(events.map(\.seq))")
        let report = try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
            session: summary.session, delegate: "checkout.v1", mode: .interaction)
        #expect(
            report.identical,
            "\(report.cutShort ?? "") \(report.diff.differences.map { "\($0.kind) #\($0.event.seq) \($0.event.callback)" })"
        )
    }
}

@Suite("Index paths that are not rows")
struct IndexPathAnswerTests {
    @Test func willSelectWithThreeIndexesUnauditedIsANoOp() throws {
        let table = TableView(identifier: "t", rowsPerSection: [2])
        let delegate = ThreeIndexes()
        table.delegate = delegate
        table.tapRow(IndexPath(row: 0, section: 0))
        #expect(table.indexPathForSelectedRow == nil)
    }

    @Test func willSelectWithThreeIndexesAuditedIsANoOpToo() throws {
        let folder = TemporaryDirectory()
        let root = View(identifier: "root")
        let table = TableView(identifier: "t", rowsPerSection: [2])
        root.addSubview(table)
        let delegate = ThreeIndexes()
        table.delegate = delegate
        let recorder = try Recorder(databasePath: folder.path("a.sqlite"), session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        table.tapRow(IndexPath(row: 0, section: 0))
        let session = recorder.finish().session
        #expect(table.indexPathForSelectedRow == nil)
        let events = try AuditStore(path: folder.path("a.sqlite"), access: .read).timeline(of: session)
        #expect(events.contains { $0.result == "[0,0,0]" && $0.vetoed == true })
    }
}

@Suite("Touches hold no views")
struct TouchLeakTests {
    /// The dispatcher (owned by the root) keeps the bound view of a finger that is down strongly.
    @Test func rootWithAFingerDownIsNotLeaked() {
        weak var weakRoot: View?
        do {
            let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100))
            root.addGestureRecognizer(TapGestureRecognizer(identifier: "tap"))
            root.touchDispatcher.send(Touch(id: 1, x: 10, y: 10, phase: .began, timestamp: 0))
            weakRoot = root
        }
        #expect(weakRoot == nil, "the dispatcher kept the root alive")
    }
}

@Suite("Scenarios that could crash a run are refused")
struct ScenarioBoundsTests {
    static let base = #"{"kind":"View","id":"r","frame":[0,0,300,300],"children":[CHILD]}"#

    @Test(arguments: [
        (
            #"{"kind":"View","id":"v","gestures":[{"kind":"TapGestureRecognizer","id":"t","requireToFail":["r/v#t"]}]}"#,
            "root.children[0].gestures[0].requireToFail[0]"
        ),
        (#"{"kind":"TableView","id":"t","rows":[9223372036854775807,1]}"#, "root.children[0].rows[0]"),
        (#"{"kind":"TableView","id":"t","rows":[1],"rowHeight":1e308}"#, "root.children[0].rowHeight"),
        (#"{"kind":"ScrollView","id":"s","contentSize":[1e300,10]}"#, "root.children[0].contentSize[0]"),
    ])
    func refusedWithItsPath(child: String, location: String) {
        let text = #"{"name":"s","root":\#(Self.base.replacingOccurrences(of: "CHILD", with: child)),"steps":[]}"#
        #expect {
            try Scenario(data: Data(text.utf8), catalog: .builtIn)
        } throws: { error in
            (error as? ScenarioError)?.location == location
        }
    }

    @Test func aTouchSequenceAtAnInfiniteTimeIsRefusedBeforeItRuns() throws {
        let text = #"""
            {"name":"s","root":{"kind":"View","id":"r","frame":[0,0,300,300]},"steps":[
              {"action":"touches","widget":"r","events":[{"id":1,"phase":"began","x":1,"y":1,"t":1e308},
                                                        {"id":1,"phase":"ended","x":1,"y":1,"t":1.5e308}]}]}
            """#
        // A time the nanosecond clock cannot hold is refused when the file is read (VirtualTime).
        #expect {
            try Scenario(data: Data(text.utf8), catalog: .builtIn)
        } throws: { error in
            (error as? ScenarioError)?.location == "steps[0].events"
        }
    }

    @Test func aTimerBetweenTouchesAndAnotherStepReplaysIdentically() throws {
        let text = #"""
            {"name":"t","root":{"kind":"View","id":"root","frame":[0,0,300,300],"children":[
             {"kind":"SegmentedControl","id":"seg","frame":[0,0,300,30],"segments":["a","b"],"selected":0},
             {"kind":"View","id":"pay","frame":[0,100,300,50],"gestures":[
               {"kind":"TapGestureRecognizer","id":"one","requireToFail":["root/pay#two"]},
               {"kind":"TapGestureRecognizer","id":"two","taps":2}]}]},
             "steps":[{"action":"touches","widget":"root","events":[{"id":1,"phase":"began","x":10,"y":120,"t":0},
                                                                     {"id":1,"phase":"ended","x":10,"y":120,"t":0.05}]},
                      {"action":"tapSegment","widget":"root/seg","segment":1}]}
            """#
        let folder = TemporaryDirectory()
        let database = folder.path("a.sqlite")
        let session = try ScenarioRunner.record(
            try Scenario(data: Data(text.utf8), catalog: .builtIn), delegate: "checkout.v1", registry: .examples,
            databasePath: database
        ).session
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
                session: session, delegate: "checkout.v1", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences)")
        }
    }
}
