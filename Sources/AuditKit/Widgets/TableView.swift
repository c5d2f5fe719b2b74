import AuditModel
import AuditStorage
import Foundation

/// A table row's place: Foundation's `IndexPath` with two indexes, section then row, as UIKit
/// extends it. (A type of this module named `IndexPath` would be ambiguous in every file that
/// also imports Foundation.)
extension IndexPath {
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The first index. Traps unless the path has exactly two indexes, as UIKit's does.
    public var section: Int {
        get {
            precondition(count == 2, "a table index path has two indexes (section, row)")
            return self[0]
        }
        set {
            precondition(count == 2, "a table index path has two indexes (section, row)")
            self[0] = newValue
        }
    }

    /// The second index. Traps unless the path has exactly two indexes, as UIKit's does.
    public var row: Int {
        get {
            precondition(count == 2, "a table index path has two indexes (section, row)")
            return self[1]
        }
        set {
            precondition(count == 2, "a table index path has two indexes (section, row)")
            self[1] = newValue
        }
    }
}

/// A scroll view of rows in sections, in single selection. Its delegate may refuse a highlight, and
/// redirect or refuse a selection or a deselection.
///
/// A tap on a row (`tapRow(_:)`), as UIKit orders it in single selection:
/// 1. Nothing at all when `allowsSelection` is false.
/// 2. `tableView(_:shouldHighlightRowAt:)`: false ends the tap.
/// 3. `tableView(_:willSelectRowAt:)`: nil ends the tap; another index path is selected instead
///    (without asking to highlight it); one that is not a row of the table ends the tap too.
/// 4. For each other selected row, in index path order: `tableView(_:willDeselectRowAt:)`. As
///    Apple documents it, the answer "confirms or alters the deselected row" and nil means "you
///    don't want the row deselected": the row answered is deselected, when it is selected, and
///    `tableView(_:didDeselectRowAt:)` follows for it; nil (or a row that is not selected) keeps
///    every row selected. Either way the tap goes on.
/// 5. The row is selected and `tableView(_:didSelectRowAt:)` follows, also when it was already
///    selected (tapping the selected row again asks and notifies again, and deselects nothing).
///
/// So a refused deselection leaves more than one row selected, as in UIKit: `indexPathsForSelectedRows`
/// lists them, `indexPathForSelectedRow` is the first, and the next tap asks about each again.
/// `selectRow(_:)` and `deselectRow(_:)` change the selection in code and, as in UIKit, call no
/// delegate method. The scroll inputs are inherited; the content is as tall as all the rows.
open class TableView: ScrollView {
    /// The number of rows in each section; the count is the number of sections.
    public let rowsPerSection: [Int]
    public let rowHeight: Double
    /// The selected rows, in index path order: one, unless the delegate refused a deselection.
    private var selectedRows: [IndexPath] = []
    /// The first selected row, as UIKit's: "the first index-path object in the array of row
    /// selections" when there are several.
    public var indexPathForSelectedRow: IndexPath? { selectedRows.first }
    /// Every selected row in index path order, or nil when none is, as UIKit's.
    public var indexPathsForSelectedRows: [IndexPath]? { selectedRows.isEmpty ? nil : selectedRows }
    /// When false, taps select nothing and call no delegate method, and `selectRow(_:)` does
    /// nothing.
    public var allowsSelection = true

    public init(
        identifier: String, frame: Rect = .zero, rowsPerSection: [Int], rowHeight: Double = 44,
        contentOffset: Point = Point(x: 0, y: 0)
    ) {
        precondition(rowsPerSection.allSatisfy { $0 >= 0 }, "a section has zero or more rows")
        precondition(rowHeight > 0 && rowHeight.isFinite, "a row height is positive and finite")
        self.rowsPerSection = rowsPerSection
        self.rowHeight = rowHeight
        let height = Double(rowsPerSection.reduce(0, +)) * rowHeight
        super.init(
            identifier: identifier, frame: frame, contentSize: Size(width: frame.width, height: height),
            contentOffset: contentOffset)
    }

    open override var widgetKind: String { "TableView" }

    /// The callbacks of `TableViewDelegate`, each declared once (the scroll view's are `callbacks`).
    public static let tableCallbacks = TableViewCallbacks()

    public var numberOfSections: Int { rowsPerSection.count }

    public func numberOfRows(inSection section: Int) -> Int { rowsPerSection[section] }

    /// The app's delegate when it adopts `TableViewDelegate`: what the table asks its own callbacks
    /// of; nil (so the defaults) when the delegate adopts only `ScrollViewDelegate`.
    var tableDelegate: (any TableViewDelegate)? { delegate as? any TableViewDelegate }

    // MARK: Inputs

    // Each input runs its `Inputs` check first, as a user's widget's does: one the widget's state
    // refuses does nothing, and a recorder lists it in `refusedInputs`.

    /// The user taps the row at `indexPath` (see the type's description for what follows).
    public func tapRow(_ indexPath: IndexPath) {
        performInput(Inputs.tapRow, indexPath) {
            if allowsSelection { userSelect(indexPath) }
            return .object(recordedState)
        }
    }

    /// Selects the row in code, replacing the selection; no delegate method is called.
    public func selectRow(_ indexPath: IndexPath) {
        performInput(Inputs.selectRow, indexPath) {
            if allowsSelection { selectedRows = [indexPath] }
            return .object(recordedState)
        }
    }

    /// Deselects the row in code when it is selected; no delegate method is called.
    public func deselectRow(_ indexPath: IndexPath) {
        performInput(Inputs.deselectRow, indexPath) {
            selectedRows.removeAll { $0 == indexPath }
            return .object(recordedState)
        }
    }

    // MARK: Validation

    /// Why `indexPath` is not a row of this table, or nil. `selectRow(_:)` and `deselectRow(_:)`
    /// need it to be one.
    public func validate(_ indexPath: IndexPath) -> String? {
        guard indexPath.count == 2 else {
            return "an index path of a row has two indexes (section, row), not \(indexPath.count)"
        }
        guard rowsPerSection.indices.contains(indexPath.section) else {
            return "section \(indexPath.section) is out of range 0..<\(numberOfSections) in \(path)"
        }
        let rows = rowsPerSection[indexPath.section]
        guard (0..<rows).contains(indexPath.row) else {
            return "row \(indexPath.row) is out of range 0..<\(rows) in section \(indexPath.section) of \(path)"
        }
        return nil
    }

    /// Why `tapRow(_:)` cannot run now, or nil: the row must exist and no drag be in progress.
    public func validateTapRow(_ indexPath: IndexPath) -> String? {
        validate(indexPath) ?? (isDragging ? "\(path) is being dragged (end the drag first)" : nil)
    }

    // MARK: Selecting

    override var recordedState: [String: AuditValue] {
        var state = super.recordedState
        state["selected"] = ValueCoding.optional(.indexPath).encode(indexPathForSelectedRow)
        // Only when the delegate kept a row selected, so one selected row records as it always did.
        if selectedRows.count > 1 { state["selectedRows"] = .array(selectedRows.map(ValueCoding.indexPath.encode)) }
        return state
    }

    /// Steps 2–5 of a tap. The target is read at each call, so a delegate reassigned from inside
    /// a callback hears the rest, audited or not.
    private func userSelect(_ tapped: IndexPath) {
        guard TableView.tableCallbacks.shouldHighlight.ask(tableDelegate, self, tapped),
            let chosen = TableView.tableCallbacks.willSelect.ask(tableDelegate, self, tapped), validate(chosen) == nil
        else { return }
        for selected in selectedRows where selected != chosen {
            // A row deselected by an earlier answer is not asked about.
            guard selectedRows.contains(selected),
                let answer = TableView.tableCallbacks.willDeselect.ask(tableDelegate, self, selected),
                let index = selectedRows.firstIndex(of: answer)
            else { continue }
            selectedRows.remove(at: index)
            TableView.tableCallbacks.didDeselect.ask(tableDelegate, self, answer)
        }
        if !selectedRows.contains(chosen) {
            selectedRows.append(chosen)
            selectedRows.sort { ($0.section, $0.row) < ($1.section, $1.row) }
        }
        TableView.tableCallbacks.didSelect.ask(tableDelegate, self, chosen)
    }

    /// The inputs that drive a table view beyond the scroll view's, as recorded.
    public enum Inputs {
        public static let tapRow: Input<TableView, IndexPath> = Input(
            "tapRow", of: "TableView", arguments: .one("indexPath", .indexPath), checkAsBuilt: rowProblem,
            check: { table, indexPath in table.validateTapRow(indexPath).map { StepProblem($0) } },
            perform: { $0.tapRow($1) })
        public static let selectRow: Input<TableView, IndexPath> = Input(
            "selectRow", of: "TableView", arguments: .one("indexPath", .indexPath), checkAsBuilt: rowProblem,
            perform: { $0.selectRow($1) })
        public static let deselectRow: Input<TableView, IndexPath> = Input(
            "deselectRow", of: "TableView", arguments: .one("indexPath", .indexPath), checkAsBuilt: rowProblem,
            perform: { $0.deselectRow($1) })
        public static let all: [any WidgetInput] = [tapRow, selectRow, deselectRow]

        /// Whether the table has a row at the index path at all.
        private static func rowProblem(_ table: TableView, _ indexPath: IndexPath) -> StepProblem? {
            table.validate(indexPath).map { StepProblem($0) }
        }
    }
}
