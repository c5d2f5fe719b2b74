import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Segmented control: UIKit semantics")
struct SegmentedControlTests {
    func control(selected: Int = 0) -> SegmentedControl {
        SegmentedControl(identifier: "c", segments: ["a", "b", "c"], selectedSegmentIndex: selected)
    }

    @Test func vetoRevertsAndSkipsDidCallback() {
        let control = control()
        let delegate = LoggingDelegate(vetoing: [2])
        control.delegate = delegate
        control.tapSegment(2)
        expectEqual(control.selectedSegmentIndex, 0)
        expectEqual(delegate.calls, ["c.should(2)"])
    }

    @Test func tapAllowedFiresDidWithUserInteraction() {
        let control = control()
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.tapSegment(1)
        expectEqual(control.selectedSegmentIndex, 1)
        expectEqual(delegate.calls, ["c.should(1)", "c.did(1, true)"])
    }

    @Test func shouldSelectSeesTheNewIndex() {
        final class Peek: SegmentedControlDelegate {
            var seen: [Int] = []
            func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
                seen.append(segmentedControl.selectedSegmentIndex)
                return false
            }
        }
        let control = control()
        let peek = Peek()
        control.delegate = peek
        control.tapSegment(1)
        expectEqual(peek.seen, [1])
        expectEqual(control.selectedSegmentIndex, 0)
    }

    @Test func programmaticSelectionIsNotUserInteractedAndNotifyCanBeSuppressed() {
        let control = control()
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.setSelectedSegmentIndex(2, notify: true)
        control.setSelectedSegmentIndex(1, notify: false)
        expectEqual(control.selectedSegmentIndex, 1)
        expectEqual(delegate.calls, ["c.should(2)", "c.did(2, false)", "c.should(1)"])
    }

    @Test func programmaticSelectionCanBeVetoed() {
        let control = control()
        let delegate = LoggingDelegate(vetoing: [1])
        control.delegate = delegate
        control.setSelectedSegmentIndex(1, notify: false)
        expectEqual(control.selectedSegmentIndex, 0)
    }

    @Test func tappingTheSelectedSegmentDoesNothing() {
        let control = control(selected: 1)
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.tapSegment(1)
        #expect(delegate.calls.isEmpty)
    }

    // UIKit sends no action for a change made in code and setting the index already selected
    // changes nothing (Apple, UIControl: controls send actions for user interactions; the kit's
    // own delegate is asked for a change in code, so it is not asked when nothing changes).
    @Test(arguments: [true, false])
    func selectingTheSelectedSegmentInCodeAsksAndNotifiesNothing(notify: Bool) {
        let control = control(selected: 1)
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.setSelectedSegmentIndex(1, notify: notify)
        control.setSelectedSegmentIndex(1, notify: notify)
        expectEqual(control.selectedSegmentIndex, 1)
        #expect(delegate.calls.isEmpty)
        control.setSelectedSegmentIndex(2, notify: notify)
        expectEqual(delegate.calls, ["c.should(2)"] + (notify ? ["c.did(2, false)"] : []))
    }

    @Test func twoDelegatesThatMirrorEachOtherStopAfterOneRound() {
        final class Mirror: SegmentedControlDelegate {
            weak var other: SegmentedControl?
            var didCalls = 0
            func segmentedControl(
                _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
            ) {
                didCalls += 1
                other?.setSelectedSegmentIndex(index, notify: true)
            }
        }
        let left = SegmentedControl(identifier: "left", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        let right = SegmentedControl(identifier: "right", segments: ["a", "b", "c"], selectedSegmentIndex: 0)
        let leftDelegate = Mirror()
        let rightDelegate = Mirror()
        leftDelegate.other = right
        rightDelegate.other = left
        left.delegate = leftDelegate
        right.delegate = rightDelegate
        left.tapSegment(2)
        // left notifies, right follows and notifies, left is already on 2: the cascade stops.
        #expect(left.selectedSegmentIndex == 2 && right.selectedSegmentIndex == 2)
        #expect(leftDelegate.didCalls == 1 && rightDelegate.didCalls == 1)
    }

    @Test func selectingTheSelectedSegmentInCodeIsRecordedAsAnInputWithNoCallback() throws {
        let folder = TemporaryDirectory()
        let root = View(identifier: "root")
        let control = control(selected: 1)
        root.addSubview(control)
        let delegate = LoggingDelegate()
        control.delegate = delegate
        let recorder = try Recorder(databasePath: folder.path("a.sqlite"), session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        control.setSelectedSegmentIndex(1, notify: true)
        let session = recorder.finish().session
        let events = try AuditStore(path: folder.path("a.sqlite"), access: .read).timeline(of: session)
        expectEqual(events.map(\.callback), ["selectSegment"])
        expectEqual(events.first?.result, #"{"selected":1}"#)
    }

    @Test func withoutDelegateEverySelectionIsAllowed() {
        let control = control()
        control.tapSegment(2)
        expectEqual(control.selectedSegmentIndex, 2)
        control.setSelectedSegmentIndex(SegmentedControl.noSegment, notify: true)
        expectEqual(control.selectedSegmentIndex, SegmentedControl.noSegment)
    }
}
