import Foundation
import Testing

@testable import AuditCore

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
        #expect(control.selectedSegmentIndex == 0)
        #expect(delegate.calls == ["c.should(2)"])
    }

    @Test func tapAllowedFiresDidWithUserInteraction() {
        let control = control()
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.tapSegment(1)
        #expect(control.selectedSegmentIndex == 1)
        #expect(delegate.calls == ["c.should(1)", "c.did(1, true)"])
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
        #expect(peek.seen == [1])
        #expect(control.selectedSegmentIndex == 0)
    }

    @Test func programmaticSelectionIsNotUserInteractedAndNotifyCanBeSuppressed() {
        let control = control()
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.setSelectedSegmentIndex(2, notify: true)
        control.setSelectedSegmentIndex(1, notify: false)
        #expect(control.selectedSegmentIndex == 1)
        #expect(delegate.calls == ["c.should(2)", "c.did(2, false)", "c.should(1)"])
    }

    @Test func programmaticSelectionCanBeVetoed() {
        let control = control()
        let delegate = LoggingDelegate(vetoing: [1])
        control.delegate = delegate
        control.setSelectedSegmentIndex(1, notify: false)
        #expect(control.selectedSegmentIndex == 0)
    }

    @Test func tappingTheSelectedSegmentDoesNothing() {
        let control = control(selected: 1)
        let delegate = LoggingDelegate()
        control.delegate = delegate
        control.tapSegment(1)
        #expect(delegate.calls.isEmpty)
    }

    @Test func withoutDelegateEverySelectionIsAllowed() {
        let control = control()
        control.tapSegment(2)
        #expect(control.selectedSegmentIndex == 2)
        control.setSelectedSegmentIndex(SegmentedControl.noSegment, notify: true)
        #expect(control.selectedSegmentIndex == SegmentedControl.noSegment)
    }
}
