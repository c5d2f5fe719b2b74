import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A table of four sections (one empty) driven by `count` random inputs from `seed`: taps, rows
/// selected and deselected in code, and the scroll inputs. Its delegate refuses every fifth
/// highlight, answers will-select in turn with the row, nil, a redirect and a row that does not
/// exist, refuses every third deselection, and deselects a row 0 in code from didSelect (a nested
/// input). Returns the delegate's log and the final state.
func runRandomTableInputs(seed: UInt64, count: Int, recorder: Recorder?) -> (calls: [String], state: String) {
    final class Chatty: ScrollLogDelegate, TableViewDelegate {
        private var highlights = 0
        private var selects = 0
        private var deselects = 0

        func tableView(_ tableView: TableView, shouldHighlightRowAt indexPath: IndexPath) -> Bool {
            highlights += 1
            calls.append("shouldHighlight \(indexPath) \(highlights % 5 != 0)")
            return highlights % 5 != 0
        }

        func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
            selects += 1
            let answer: IndexPath? =
                switch selects % 4 {
                case 0: nil
                case 1: IndexPath(row: 0, section: 3)
                case 2: IndexPath(row: 7, section: 0)
                default: indexPath
                }
            calls.append("willSelect \(indexPath) \(answer.map(String.init(describing:)) ?? "nil")")
            return answer
        }

        func tableView(_ tableView: TableView, didSelectRowAt indexPath: IndexPath) {
            calls.append("didSelect \(indexPath)")
            if indexPath.row == 0 { tableView.deselectRow(indexPath) }
        }

        func tableView(_ tableView: TableView, willDeselectRowAt indexPath: IndexPath) -> IndexPath? {
            deselects += 1
            calls.append("willDeselect \(indexPath) \(deselects % 3 != 0)")
            return deselects % 3 == 0 ? nil : indexPath
        }

        func tableView(_ tableView: TableView, didDeselectRowAt indexPath: IndexPath) {
            calls.append("didDeselect \(indexPath)")
        }
    }

    let root = View(identifier: "root")
    let table = TableView(
        identifier: "t", frame: Rect(x: 0, y: 0, width: 320, height: 200), rowsPerSection: [3, 0, 5, 2],
        rowHeight: 30)
    root.addSubview(table)
    let delegate = Chatty()
    var tops = 0
    delegate.allowsScrollToTop = {
        tops += 1
        return tops % 2 == 0
    }
    table.delegate = delegate
    try! recorder?.attach(to: root)
    var random = SeededGenerator(seed: seed)
    let rows = table.rowsPerSection.enumerated().flatMap { section, count in
        (0..<count).map { IndexPath(row: $0, section: section) }
    }
    for _ in 0..<count {
        let choice = Int.random(in: 0..<10, using: &random)
        let indexPath = rows.randomElement(using: &random)!
        switch choice {
        case 0..<4 where !table.isDragging: table.tapRow(indexPath)
        case 4: table.selectRow(indexPath)
        case 5: table.deselectRow(indexPath)
        default: performRandomScrollInput(on: table, using: &random)
        }
    }
    let selected = table.indexPathForSelectedRow.map(String.init(describing:)) ?? "none"
    return (delegate.calls, "\(table.contentOffset.text) \(table.isDragging) \(selected)")
}

final class ThreeIndexes: TableViewDelegate {
    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        IndexPath(indexes: [0, 0, 0])
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
        #expect(events.contains { $0.result == "[0,0,0]" && $0.overridden == true })
    }
}
