import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// The widget kinds whose state `StateReader` reads inside its callbacks.
enum ReadState: String, CaseIterable, Sendable {
    case segmentedControl, textView, scrollView, tableView, tap, longPress, pan
    /// Reads nothing: answers as UIKit's defaults would.
    case nothing
}

/// A delegate whose answers depend on what it reads off the widget that asks, as real delegates
/// do: the selected index inside `shouldSelectSegmentAt` (the proposed one is set first), the text
/// and selection, the content offset, the selected row, and a recognizer's state, location,
/// translation and velocity inside `gestureRecognizerShouldBegin`.
final class StateReader: SegmentedControlDelegate, NoteTextViewDelegate, TableViewDelegate,
    GestureRecognizerDelegate
{
    let reads: ReadState

    init(_ reads: ReadState) { self.reads = reads }

    func segmentedControl(_ control: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        guard reads == .segmentedControl else { return true }
        return control.selectedSegmentIndex == index && (control.identifier != "payment" || index != 1)
    }

    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        guard reads == .textView else { return true }
        // Refuses a change that would not fit the text the view holds now (never, when the state is
        // the recording's; often, when it is not).
        return range.end <= textView.text.utf16.count && textView.selectedRange.end <= textView.text.utf16.count
    }

    func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        guard reads == .scrollView else { return }
        targetContentOffset.pointee.y = (scrollView.contentOffset.y / 50).rounded() * 50
    }

    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        guard reads == .tableView else { return indexPath }
        return tableView.indexPathForSelectedRow == nil ? indexPath : nil
    }

    func gestureRecognizerShouldBegin(_ recognizer: GestureRecognizer) -> Bool {
        switch (reads, recognizer) {
        case (.tap, let tap as TapGestureRecognizer):
            return tap.state == .possible && tap.location(in: nil).x > 100
        case (.longPress, let press as LongPressGestureRecognizer):
            return press.location(in: press.view).y >= 0
        case (.pan, let pan as PanGestureRecognizer):
            // The usual direction check: begin only for a mostly horizontal pan.
            return abs(pan.translation.x) >= abs(pan.translation.y) && pan.velocity.x >= 0
        default:
            return true
        }
    }
}

@Suite("A delegate that reads its widget replays identically against itself, in both modes")
struct StateReadingReplayTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    static let registry: DelegateRegistry = {
        var registry = DelegateRegistry()
        for reads in ReadState.allCases {
            registry.register("reads.\(reads.rawValue)", summary: "reads its \(reads.rawValue)") { StateReader(reads) }
        }
        return registry
    }()

    func expectIdentical(_ scenario: Scenario, _ delegate: String) throws {
        let recorded = try ScenarioRunner.record(
            scenario, delegate: delegate, registry: Self.registry, databasePath: database)
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: .builtIn)
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try replayer.replay(session: recorded.session, delegate: delegate, mode: mode)
            #expect(report.identical, "\(delegate) in \(mode) mode: \(report.diff.differences.prefix(3))")
        }
    }

    /// The checkout example drives every widget kind and every recognizer kind.
    @Test(arguments: ReadState.allCases)
    func eachKind(reads: ReadState) throws {
        try expectIdentical(try Examples.checkout(), "reads.\(reads.rawValue)")
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func seededRandomRuns(seed: UInt64) throws {
        let scenario = try Scenario(data: Data(randomCheckoutSource(seed: seed, count: 200).utf8), catalog: .builtIn)
        try expectIdentical(scenario, "reads.segmentedControl")
    }

    /// The readers' answers do depend on the state: against a delegate that reads nothing,
    /// isolated replay finds them (so the identity above is not vacuous).
    @Test(arguments: [ReadState.segmentedControl, .tableView])
    func theReadersAnswersDependOnTheState(reads: ReadState) throws {
        let recorded = try ScenarioRunner.record(
            try Examples.checkout(), delegate: "reads.\(reads.rawValue)", registry: Self.registry,
            databasePath: database)
        let report = try Replayer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .replay(session: recorded.session, delegate: "reads.nothing", mode: .isolated)
        #expect(!report.identical)
    }
}
