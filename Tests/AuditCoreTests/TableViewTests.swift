import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Logs every table and scroll callback; its answers come from the tables below (the proposal
/// when a row is not listed).
final class TableLogDelegate: ScrollLogDelegate, TableViewDelegate {
    var refusesHighlight: Set<IndexPath> = []
    var selectAnswers: [IndexPath: IndexPath?] = [:]
    var deselectAnswers: [IndexPath: IndexPath?] = [:]
    var onDidSelect: ((TableView, IndexPath) -> Void)?

    func tableView(_ tableView: TableView, shouldHighlightRowAt indexPath: IndexPath) -> Bool {
        let answer = !refusesHighlight.contains(indexPath)
        calls.append("\(tableView.identifier).shouldHighlight \(indexPath) \(answer)")
        return answer
    }

    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        let answer = selectAnswers[indexPath] ?? indexPath
        calls.append("\(tableView.identifier).willSelect \(indexPath) \(answer.map(String.init(describing:)) ?? "nil")")
        return answer
    }

    func tableView(_ tableView: TableView, didSelectRowAt indexPath: IndexPath) {
        calls.append("\(tableView.identifier).didSelect \(indexPath)")
        onDidSelect?(tableView, indexPath)
    }

    func tableView(_ tableView: TableView, willDeselectRowAt indexPath: IndexPath) -> IndexPath? {
        let answer = deselectAnswers[indexPath] ?? indexPath
        calls.append(
            "\(tableView.identifier).willDeselect \(indexPath) \(answer.map(String.init(describing:)) ?? "nil")")
        return answer
    }

    func tableView(_ tableView: TableView, didDeselectRowAt indexPath: IndexPath) {
        calls.append("\(tableView.identifier).didDeselect \(indexPath)")
    }
}

private func row(_ section: Int, _ row: Int) -> IndexPath { IndexPath(row: row, section: section) }

@Suite("Table view: UIKit semantics and audit")
struct TableViewTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// Two sections of 3 and 2 rows, 44 points each (220 points of content) in a frame 100 high.
    func table() -> TableView {
        TableView(identifier: "t", frame: Rect(x: 0, y: 0, width: 320, height: 100), rowsPerSection: [3, 2])
    }

    @Test func aTapSelectsAndChangingTheSelectionFollowsUIKitsOrder() {
        let table = table()
        let delegate = TableLogDelegate()
        table.delegate = delegate
        table.tapRow(row(0, 0))
        table.tapRow(row(1, 1))
        expectEqual(table.indexPathForSelectedRow, row(1, 1))
        expectEqual(
            delegate.calls,
            [
                "t.shouldHighlight [0, 0] true", "t.willSelect [0, 0] [0, 0]", "t.didSelect [0, 0]",
                "t.shouldHighlight [1, 1] true", "t.willSelect [1, 1] [1, 1]", "t.willDeselect [0, 0] [0, 0]",
                "t.didDeselect [0, 0]", "t.didSelect [1, 1]",
            ])
    }

    @Test func refusingTheHighlightRefusesTheSelection() {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.refusesHighlight = [row(0, 2)]
        table.delegate = delegate
        table.selectRow(row(0, 0))
        table.tapRow(row(0, 2))
        expectEqual(table.indexPathForSelectedRow, row(0, 0))
        expectEqual(delegate.calls, ["t.shouldHighlight [0, 2] false"])
    }

    @Test func willSelectNilSelectsNothingAndKeepsTheSelection() {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.selectAnswers = [row(0, 1): nil]
        table.delegate = delegate
        table.tapRow(row(0, 1))
        #expect(table.indexPathForSelectedRow == nil)
        table.selectRow(row(1, 0))
        table.tapRow(row(0, 1))
        expectEqual(table.indexPathForSelectedRow, row(1, 0))
        expectEqual(
            delegate.calls,
            [
                "t.shouldHighlight [0, 1] true", "t.willSelect [0, 1] nil", "t.shouldHighlight [0, 1] true",
                "t.willSelect [0, 1] nil",
            ])
    }

    @Test func willSelectCanRedirectToAnotherRow() {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.selectAnswers = [row(0, 1): row(1, 0)]
        table.delegate = delegate
        table.tapRow(row(0, 1))
        expectEqual(table.indexPathForSelectedRow, row(1, 0))
        expectEqual(
            delegate.calls, ["t.shouldHighlight [0, 1] true", "t.willSelect [0, 1] [1, 0]", "t.didSelect [1, 0]"])
    }

    @Test(arguments: [IndexPath(row: 5, section: 0), IndexPath(row: 0, section: 2), IndexPath(indexes: [0, 0, 0])])
    func aRedirectToARowThatDoesNotExistIsIgnored(redirect: IndexPath) {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.selectAnswers = [row(0, 1): redirect]
        table.delegate = delegate
        table.selectRow(row(0, 0))
        table.tapRow(row(0, 1))
        expectEqual(table.indexPathForSelectedRow, row(0, 0))
        expectEqual(delegate.calls, ["t.shouldHighlight [0, 1] true", "t.willSelect [0, 1] \(redirect)"])
    }

    @Test func tappingTheSelectedRowAgainAsksAndNotifiesAgainWithoutDeselecting() {
        let table = table()
        let delegate = TableLogDelegate()
        table.delegate = delegate
        table.selectRow(row(0, 2))
        table.tapRow(row(0, 2))
        expectEqual(table.indexPathForSelectedRow, row(0, 2))
        expectEqual(
            delegate.calls, ["t.shouldHighlight [0, 2] true", "t.willSelect [0, 2] [0, 2]", "t.didSelect [0, 2]"])
    }

    // Apple, UITableViewDelegate.tableView(_:willDeselectRowAt:): "Return an index-path object that
    // confirms or alters the deselected row. Return nil if you don't want the row deselected." The
    // tap itself goes on: the tapped row is selected and both stay selected.
    @Test func willDeselectNilKeepsTheOldRowSelectedAndTheTapStillSelects() {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.deselectAnswers = [row(0, 0): nil]
        table.delegate = delegate
        table.selectRow(row(0, 0))
        table.tapRow(row(0, 1))
        expectEqual(table.indexPathForSelectedRow, row(0, 0))
        expectEqual(table.indexPathsForSelectedRows, [row(0, 0), row(0, 1)])
        expectEqual(
            delegate.calls,
            [
                "t.shouldHighlight [0, 1] true", "t.willSelect [0, 1] [0, 1]", "t.willDeselect [0, 0] nil",
                "t.didSelect [0, 1]",
            ])
        // The next tap asks about each selected row again; this time (0, 0) lets go.
        delegate.calls = []
        delegate.deselectAnswers = [:]
        table.tapRow(row(1, 0))
        expectEqual(table.indexPathsForSelectedRows, [row(1, 0)])
        expectEqual(
            delegate.calls,
            [
                "t.shouldHighlight [1, 0] true", "t.willSelect [1, 0] [1, 0]", "t.willDeselect [0, 0] [0, 0]",
                "t.didDeselect [0, 0]", "t.willDeselect [0, 1] [0, 1]", "t.didDeselect [0, 1]", "t.didSelect [1, 0]",
            ])
    }

    @Test func willDeselectAnsweringAnotherSelectedRowDeselectsThatRowInstead() {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.deselectAnswers = [row(0, 0): nil]
        table.delegate = delegate
        table.selectRow(row(0, 0))
        table.tapRow(row(0, 1))  // (0, 0) and (0, 1) selected
        delegate.calls = []
        delegate.deselectAnswers = [row(0, 0): row(0, 1)]
        table.tapRow(row(1, 1))
        // Asked about (0, 0), the delegate deselects (0, 1) instead; (0, 1) is then not asked.
        expectEqual(table.indexPathsForSelectedRows, [row(0, 0), row(1, 1)])
        expectEqual(
            delegate.calls,
            [
                "t.shouldHighlight [1, 1] true", "t.willSelect [1, 1] [1, 1]", "t.willDeselect [0, 0] [0, 1]",
                "t.didDeselect [0, 1]", "t.didSelect [1, 1]",
            ])
    }

    @Test(arguments: [IndexPath(row: 1, section: 1), IndexPath(row: 9, section: 0), IndexPath(indexes: [0, 0, 0])])
    func willDeselectAnsweringARowThatIsNotSelectedDeselectsNothing(answer: IndexPath) {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.deselectAnswers = [row(0, 0): answer]
        table.delegate = delegate
        table.selectRow(row(0, 0))
        table.tapRow(row(0, 1))
        expectEqual(table.indexPathsForSelectedRows, [row(0, 0), row(0, 1)])
        expectEqual(delegate.calls.last, "t.didSelect [0, 1]")
        #expect(!delegate.calls.contains { $0.contains("didDeselect") })
    }

    @Test func codeSelectionReplacesEveryRowAndDeselectionRemovesOne() {
        let table = table()
        let delegate = TableLogDelegate()
        delegate.deselectAnswers = [row(0, 0): nil]
        table.delegate = delegate
        table.selectRow(row(0, 0))
        table.tapRow(row(1, 0))
        table.deselectRow(row(0, 0))
        expectEqual(table.indexPathsForSelectedRows, [row(1, 0)])
        table.tapRow(row(0, 2))
        table.selectRow(row(1, 1))
        expectEqual(table.indexPathsForSelectedRows, [row(1, 1)])
        table.deselectRow(row(1, 1))
        #expect(table.indexPathsForSelectedRows == nil && table.indexPathForSelectedRow == nil)
    }

    @Test func programmaticSelectionCallsNoDelegateMethod() {
        let table = table()
        let delegate = TableLogDelegate()
        table.delegate = delegate
        table.selectRow(row(1, 1))
        expectEqual(table.indexPathForSelectedRow, row(1, 1))
        table.deselectRow(row(0, 0))  // not the selected row: nothing changes
        expectEqual(table.indexPathForSelectedRow, row(1, 1))
        table.deselectRow(row(1, 1))
        #expect(table.indexPathForSelectedRow == nil)
        #expect(delegate.calls.isEmpty)
    }

    @Test func withoutSelectionATapCallsNothing() {
        let table = table()
        let delegate = TableLogDelegate()
        table.delegate = delegate
        table.allowsSelection = false
        table.tapRow(row(0, 0))
        table.selectRow(row(0, 1))
        #expect(table.indexPathForSelectedRow == nil)
        #expect(delegate.calls.isEmpty)
    }

    @Test func theTableScrollsOverAllItsRows() {
        let table = table()
        let delegate = TableLogDelegate()
        table.delegate = delegate
        expectEqual(table.contentSize, Size(width: 320, height: 220))
        expectEqual(table.maximumContentOffset, Point(x: 0, y: 120))
        expectEqual(table.numberOfSections, 2)
        expectEqual(table.numberOfRows(inSection: 1), 2)
        table.beginDrag()
        table.drag(by: Point(x: 0, y: -500))
        table.endDrag(velocity: Point(x: 0, y: 0))
        expectEqual(table.contentOffset, Point(x: 0, y: 120))
        expectEqual(
            delegate.calls,
            [
                "t.willBeginDragging dragging", "t.didScroll (0, 120) dragging",
                "t.willEndDragging (0, 0) (0, 120)->(0, 120) dragging", "t.didEndDragging false",
            ])
    }

    @Test func validationExplainsWhatARowNeeds() {
        let table = table()
        #expect(table.validate(row(1, 1)) == nil)
        expectEqual(table.validate(row(2, 0)), "section 2 is out of range 0..<2 in t")
        expectEqual(table.validate(row(1, 2)), "row 2 is out of range 0..<2 in section 1 of t")
        expectEqual(table.validate(row(0, -1)), "row -1 is out of range 0..<3 in section 0 of t")
        expectEqual(table.validate(IndexPath(index: 0)), "an index path of a row has two indexes (section, row), not 1")
        table.beginDrag()
        expectEqual(table.validateTapRow(row(0, 0)), "t is being dragged (end the drag first)")
        expectEqual(table.validateTapRow(row(9, 0)), "section 9 is out of range 0..<2 in t")
    }

    @Test func indexPathsReadAndWriteAsUIKitsDo() {
        var path = IndexPath(row: 4, section: 2)
        #expect(path.section == 2 && path.row == 4)
        path.row = 5
        expectEqual(path, IndexPath(indexes: [2, 5]))
        expectEqual(ValueCoding.indexPath.encode(path).json, #"{"row":5,"section":2}"#)
        expectEqual(ValueCoding.indexPath.decode(.object(["section": .int(2), "row": .int(5)])), path)
        #expect(ValueCoding.indexPath.decode(.object(["section": .int(2)])) == nil)
        expectEqual(ValueCoding.point.decode(.object(["x": .int(1), "y": .double(2.5)])), Point(x: 1, y: 2.5))
    }

    @Test func adoptsAnyScrollViewDelegate() {
        let table = table()
        let tableDelegate = TableLogDelegate()
        ScenarioRunner.adopt(tableDelegate, in: table, catalog: .builtIn)
        #expect(table.delegate === tableDelegate)
        let scrollDelegate = ScrollLogDelegate()
        ScenarioRunner.adopt(scrollDelegate, in: table, catalog: .builtIn)
        #expect(table.delegate === scrollDelegate)
        // A segmented control's delegate: not taken.
        ScenarioRunner.adopt(LoggingDelegate(), in: table, catalog: .builtIn)
        #expect(table.delegate === scrollDelegate)
    }

    @Test func recordsEveryTableCallbackWithItsOverride() throws {
        let root = View(identifier: "root")
        let table = table()
        root.addSubview(table)
        let delegate = TableLogDelegate()
        delegate.refusesHighlight = [row(0, 2)]
        delegate.selectAnswers = [row(1, 1): nil, row(0, 1): row(1, 0)]
        delegate.deselectAnswers = [row(1, 0): nil]
        table.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        table.tapRow(row(0, 0))  // selected
        table.tapRow(row(0, 2))  // highlight refused
        table.tapRow(row(1, 1))  // will-select answers nil
        table.tapRow(row(0, 1))  // redirected to (1, 0); (0, 0) deselected
        table.tapRow(row(0, 0))  // (1, 0) refuses to be deselected: both are selected
        table.deselectRow(row(1, 0))  // in code: no callback
        let summary = recorder.finish()
        expectEqual(summary.vetoes, 1)  // the refused highlight; the other three are overrides

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        func ip(_ section: Int, _ row: Int) -> String { #"{"row":\#(row),"section":\#(section)}"# }
        func arg(_ section: Int, _ row: Int) -> String { #"{"indexPath":\#(ip(section, row))}"# }
        func after(_ selected: String) -> String {
            #"{"contentOffset":{"x":0.0,"y":0.0},"dragging":false,"selected":\#(selected)}"#
        }
        let callback = "root/t TableViewDelegate tableView"
        // (1, 0) refused to be deselected: both rows are selected, the first is "selected".
        let afterBoth =
            #"{"contentOffset":{"x":0.0,"y":0.0},"dragging":false,"selected":\#(ip(0, 0)),"selectedRows":[\#(ip(0, 0)),\#(ip(1, 0))]}"#
        let expected: [String] = [
            "1 - input root/t - tapRow \(arg(0, 0)) \(after(ip(0, 0))) - -",
            "2 1 callback \(callback)(_:shouldHighlightRowAt:) \(arg(0, 0)) true false true",
            "3 1 callback \(callback)(_:willSelectRowAt:) \(arg(0, 0)) \(ip(0, 0)) kept true",
            "4 1 callback \(callback)(_:didSelectRowAt:) \(arg(0, 0)) void - true",
            "5 - input root/t - tapRow \(arg(0, 2)) \(after(ip(0, 0))) - -",
            "6 5 callback \(callback)(_:shouldHighlightRowAt:) \(arg(0, 2)) false true true",
            "7 - input root/t - tapRow \(arg(1, 1)) \(after(ip(0, 0))) - -",
            "8 7 callback \(callback)(_:shouldHighlightRowAt:) \(arg(1, 1)) true false true",
            "9 7 callback \(callback)(_:willSelectRowAt:) \(arg(1, 1)) null overridden true",
            "10 - input root/t - tapRow \(arg(0, 1)) \(after(ip(1, 0))) - -",
            "11 10 callback \(callback)(_:shouldHighlightRowAt:) \(arg(0, 1)) true false true",
            "12 10 callback \(callback)(_:willSelectRowAt:) \(arg(0, 1)) \(ip(1, 0)) overridden true",
            "13 10 callback \(callback)(_:willDeselectRowAt:) \(arg(0, 0)) \(ip(0, 0)) kept true",
            "14 10 callback \(callback)(_:didDeselectRowAt:) \(arg(0, 0)) void - true",
            "15 10 callback \(callback)(_:didSelectRowAt:) \(arg(1, 0)) void - true",
            "16 - input root/t - tapRow \(arg(0, 0)) \(afterBoth) - -",
            "17 16 callback \(callback)(_:shouldHighlightRowAt:) \(arg(0, 0)) true false true",
            "18 16 callback \(callback)(_:willSelectRowAt:) \(arg(0, 0)) \(ip(0, 0)) kept true",
            "19 16 callback \(callback)(_:willDeselectRowAt:) \(arg(1, 0)) null overridden true",
            "20 16 callback \(callback)(_:didSelectRowAt:) \(arg(0, 0)) void - true",
            "21 - input root/t - deselectRow \(arg(1, 0)) \(after(ip(0, 0))) - -",
        ]
        expectEqual(timelineLines(events, protocols: true, overrides: true), expected)
        #expect(events.allSatisfy { $0.widgetKind == "TableView" })
    }

    @Test func oneDelegateIsRecordedUnderBothProtocols() throws {
        let table = table()
        let delegate = TableLogDelegate()
        table.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: table)
        #expect(table.auditLink != nil)
        table.beginDrag()
        table.drag(by: Point(x: 0, y: -10))
        table.endDrag(velocity: Point(x: 0, y: 0))
        table.tapRow(row(1, 0))
        table.tapStatusBar()
        recorder.detach(from: table)
        #expect(table.auditLink == nil)
        #expect(table.delegate === delegate)
        let summary = recorder.finish()

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let callbacks = events.filter { $0.kind == .callback }
        expectEqual(
            callbacks.map { "\($0.protocolName!) \($0.callback)" },
            [
                "ScrollViewDelegate scrollViewWillBeginDragging(_:)", "ScrollViewDelegate scrollViewDidScroll(_:)",
                "ScrollViewDelegate scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)",
                "ScrollViewDelegate scrollViewDidEndDragging(_:willDecelerate:)",
                "TableViewDelegate tableView(_:shouldHighlightRowAt:)",
                "TableViewDelegate tableView(_:willSelectRowAt:)",
                "TableViewDelegate tableView(_:didSelectRowAt:)", "ScrollViewDelegate scrollViewShouldScrollToTop(_:)",
                "ScrollViewDelegate scrollViewDidScroll(_:)", "ScrollViewDelegate scrollViewDidScrollToTop(_:)",
            ])
        #expect(callbacks.allSatisfy { $0.implemented == true && $0.widget == "t" && $0.widgetKind == "TableView" })
        expectEqual(callbacks.count, delegate.calls.count)
        let inputs = events.filter { $0.kind == .input }.map(\.callback)
        expectEqual(inputs, ["beginDrag", "drag", "endDrag", "tapRow", "tapStatusBar"])
    }

    @Test func aScrollOnlyDelegateGetsTheDefaultsForTheTableCallbacks() throws {
        let table = table()
        let delegate = ScrollLogDelegate()
        table.delegate = delegate
        table.tapRow(row(0, 1))  // unaudited: the table takes the defaults itself
        expectEqual(table.indexPathForSelectedRow, row(0, 1))

        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: table)
        table.tapRow(row(1, 1))
        table.setContentOffset(Point(x: 0, y: 30))
        let summary = recorder.finish()
        expectEqual(table.indexPathForSelectedRow, row(1, 1))
        expectEqual(delegate.calls, ["t.didScroll (0, 30)"])
        expectEqual(summary.vetoes, 0)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        expectEqual(
            events.filter { $0.kind == .callback }.map {
                "\($0.callback) \($0.result ?? "void") \($0.implemented!)"
            },
            [
                "tableView(_:shouldHighlightRowAt:) true false",
                #"tableView(_:willSelectRowAt:) {"row":1,"section":1} false"#,
                #"tableView(_:willDeselectRowAt:) {"row":1,"section":0} false"#,
                "tableView(_:didDeselectRowAt:) void false", "tableView(_:didSelectRowAt:) void false",
                "scrollViewDidScroll(_:) void true",
            ])
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func auditingNeverChangesBehaviour(seed: UInt64) throws {
        let (plain, summary) = try expectAuditingChangesNothing(database: database) {
            runRandomTableInputs(seed: seed, count: 400, recorder: $0)
        }
        #expect(summary.inputs > 400)  // the nested deselections are inputs too
        for expected in ["didDeselect", "] nil", "false", "didSelect", "didScroll", "didScrollToTop"] {
            #expect(plain.calls.contains { $0.contains(expected) }, "no \(expected) in the run")
        }
    }

    @Test func widgetAndDelegateLeaveNoRetainCycle() throws {
        weak var weakTable: TableView?
        weak var weakDelegate: TableLogDelegate?
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        do {
            let root = View(identifier: "root")
            let table = table()
            root.addSubview(table)
            let delegate = TableLogDelegate()
            table.delegate = delegate
            try recorder.attach(to: root)
            table.tapRow(row(0, 0))
            table.beginDrag()
            table.endDrag(velocity: Point(x: 0, y: 1))
            weakTable = table
            weakDelegate = delegate
            #expect(table.auditLink != nil)
        }
        #expect(weakTable == nil)
        #expect(weakDelegate == nil)
        recorder.finish()
    }
}
