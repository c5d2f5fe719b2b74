import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A fresh temporary folder per test, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appending(path: "auditctl-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appending(path: name).path }
}

/// A segmented-control delegate that logs every call and vetoes the segments it is told to.
final class LoggingDelegate: SegmentedControlDelegate {
    var calls: [String] = []
    var vetoed: Set<Int> = []
    /// Called from didSelect, to make nested callbacks.
    var onDidSelect: ((SegmentedControl, Int) -> Void)?

    init(vetoing vetoed: Set<Int> = []) {
        self.vetoed = vetoed
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        calls.append("\(segmentedControl.identifier).should(\(index))")
        return !vetoed.contains(index)
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        calls.append("\(segmentedControl.identifier).did(\(index), \(userInteracted))")
        onDidSelect?(segmentedControl, index)
    }
}

/// Implements only the did-callback: the should-callback falls to the protocol's default.
final class DidOnlyDelegate: SegmentedControlDelegate {
    var selections: [Int] = []

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        selections.append(index)
    }
}

func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Runs a statement on a database file with a plain connection (as another tool would).
func sqlite(_ path: String, _ sql: String) throws {
    let connection = try Connection(path: path, mode: .readWrite(create: false))
    try connection.execute(sql)
}

func newSession(_ name: String = "test") -> NewSession {
    NewSession(name: name, scenario: "test", source: "{}", delegate: "test")
}

/// Runs the same inputs twice, without a recorder and under one, and checks what "auditing never
/// changes behaviour" means: the app's delegate saw the same calls in the same order, the widgets
/// ended in the same state, every call was recorded once, and no write failed. Returns the run
/// without a recorder and the recording's summary, for a widget's own checks.
func expectAuditingChangesNothing<State: Equatable>(
    database: String, catalog: WidgetCatalog = .builtIn, sourceLocation: SourceLocation = #_sourceLocation,
    _ run: (Recorder?) -> (calls: [String], state: State)
) throws -> (plain: (calls: [String], state: State), summary: RecordingSummary) {
    let plain = run(nil)
    let recorder = try Recorder(databasePath: database, session: newSession(), catalog: catalog)
    let audited = run(recorder)
    let summary = recorder.finish()
    expectEqual(audited.calls, plain.calls, sourceLocation: sourceLocation)
    expectEqual(audited.state, plain.state, sourceLocation: sourceLocation)
    expectEqual(summary.failedWrites, 0, sourceLocation: sourceLocation)
    expectEqual(summary.callbacks, plain.calls.count, sourceLocation: sourceLocation)
    return (plain, summary)
}

/// A stateful delegate: vetoes every third should-call, and switches a sibling in code from
/// inside didSelect, so random runs exercise vetoes and nesting.
final class StatefulDelegate: SegmentedControlDelegate {
    var calls: [String] = []
    private var asked = 0

    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        asked += 1
        calls.append("\(segmentedControl.path).should(\(index))")
        return asked % 3 != 0
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        calls.append("\(segmentedControl.path).did(\(index), \(userInteracted))")
        if userInteracted, index == 0,
            let other = segmentedControl.superview?.subviews.first(where: { $0 !== segmentedControl })
                as? SegmentedControl
        {
            other.setSelectedSegmentIndex(other.numberOfSegments - 1, notify: true)
        }
    }
}

/// A tree of two segmented controls driven by `count` random inputs from `seed`. Returns the
/// delegate's log and the final selections.
func runRandomInputs(seed: UInt64, count: Int, recorder: Recorder?) -> (calls: [String], state: [Int]) {
    let root = View(identifier: "root")
    let first = SegmentedControl(identifier: "first", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
    let second = SegmentedControl(identifier: "second", segments: ["x", "y"])
    root.addSubview(first)
    root.addSubview(second)
    let delegate = StatefulDelegate()
    first.delegate = delegate
    second.delegate = delegate
    try! recorder?.attach(to: root)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<count {
        let control = Bool.random(using: &random) ? first : second
        let segment = Int.random(in: 0..<control.numberOfSegments, using: &random)
        if Int.random(in: 0..<3, using: &random) == 0 {
            control.setSelectedSegmentIndex(segment, notify: Bool.random(using: &random))
        } else {
            control.tapSegment(segment)
        }
    }
    return (delegate.calls, [first.selectedSegmentIndex, second.selectedSegmentIndex])
}

/// A scenario of one root (JSON text) and steps (the JSON objects of the `steps` array, joined).
func inlineScenario(_ root: String, _ steps: String) throws -> Scenario {
    try Scenario(data: Data(#"{"name":"s","root":\#(root),"steps":[\#(steps)]}"#.utf8), catalog: .builtIn)
}
