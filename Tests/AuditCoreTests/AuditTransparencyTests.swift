import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

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

/// Auditing changes nothing even when a delegate reassigns the widget's delegate inside a callback,
/// or calls into an unaudited widget whose delegate leaves a callback to its default.
@Suite("Auditing changes nothing: delegates swapped and defaults called inside callbacks", .serialized)
struct AuditTransparencyTests {
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

    /// Auditing never changes behaviour: SegmentedControl.select reads `delegate` at each call,
    /// audited or not.
    @Test func delegateReassignedInsideShouldSelect() throws {
        let plain = try run(audited: false)
        let audited = try run(audited: true)
        expectEqual(plain, audited, "plain \(plain) audited \(audited)")
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
        expectEqual(should.implemented, true, "recorded implemented=\(String(describing: should.implemented))")
    }
}
