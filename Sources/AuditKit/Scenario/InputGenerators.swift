import AuditModel
import AuditStorage
import Foundation

/// How `explore` generates the built-in kinds' inputs (`WidgetKind+BuiltIn.swift` registers them).
///
/// Every input a scenario can name is generated except the recorded forms of touches: `touch`
/// (one event) and `gestureTimer` (a recognizer's timer) come out of the `touches` sequences
/// generated here, which begin on a view that can receive them and follow a plausible path.
enum InputGenerators {
    static let segmentedControl: [InputGenerator] = [
        SegmentedControl.Inputs.tap.generator(weight: 2, boundaries: { [0, $0.numberOfSegments - 1] }) {
            control, random in
            let last = control.numberOfSegments - 1
            return last < 0 ? nil : random.value(in: 0...last, orNear: [0, last])
        },
        SegmentedControl.Inputs.select.generator(
            weight: 0.5, boundaries: { [(-1, true), ($0.numberOfSegments - 1, true)] }
        ) { control, random in
            let last = control.numberOfSegments - 1
            return (random.value(in: -1...last, orNear: [-1, last]), random.chance(0.75))
        },
    ]

    static let textView: [InputGenerator] = [
        TextView.Inputs.beginEditing.generator(weight: 0.5) { view, _ in view.isEditing ? nil : () },
        TextView.Inputs.type.generator(weight: 2) { view, random in
            text(replacing: view.selectedRange, in: view, &random)
        },
        TextView.Inputs.replace.generator { view, random in
            let range = range(in: view, &random)
            return (range, random.chance(0.2) ? "" : text(replacing: range, in: view, &random))
        },
        TextView.Inputs.select.generator(weight: 0.5) { view, random in range(in: view, &random) },
        TextView.Inputs.endEditing.generator(weight: 0.5) { view, _ in view.isEditing ? () : nil },
    ]

    /// Pieces of typed text: the letters and digits a field may accept or refuse, and Unicode that
    /// matters to ranges and limits (CJK, emoji with modifiers and joiners, flags, combining marks,
    /// a lone combining mark that joins the character before it).
    static let textPieces = [
        "A", "Z", "SAVE10", "7", "x", "abc", " ", "!", "-", "日本", "語", "👍", "👍🏽", "👨‍👩‍👧", "🇫🇷", "e\u{301}",
        "\u{301}", "ñ", "\n", "Leave at the door",
    ]

    /// One to four pieces.
    static func text(_ random: inout ExplorationRandom) -> String {
        (0..<Int.random(in: 1...4, using: &random)).map { _ in textPieces.randomElement(using: &random)! }.joined()
    }

    /// Text to put in place of `range`: for a note with a character limit, a third of the time
    /// text that leaves it exactly at the limit, one UTF-16 unit under or one over (in letters,
    /// digits and spaces, one unit each); otherwise `text(_:)`.
    static func text(replacing range: TextRange, in view: TextView, _ random: inout ExplorationRandom) -> String {
        guard let limit = (view as? NoteTextView)?.characterLimit, random.chance(1.0 / 3) else { return text(&random) }
        let kept = view.utf16Length - range.length
        let count = limit - kept + Int.random(in: -1...1, using: &random)
        guard count > 0 else { return text(&random) }
        return String((0..<count).map { _ in "Ax7 ".randomElement(using: &random)! })
    }

    /// A range whose ends fall on character boundaries of the view's current text.
    static func range(in view: TextView, _ random: inout ExplorationRandom) -> TextRange {
        let boundaries = view.characterBoundaries
        let start = Int.random(in: 0..<boundaries.count, using: &random)
        let end = random.chance(0.3) ? start : Int.random(in: start..<boundaries.count, using: &random)
        return TextRange(location: boundaries[start], length: boundaries[end] - boundaries[start])
    }

    static let scrollView: [InputGenerator] = [
        ScrollView.Inputs.beginDrag.generator { view, _ in view.isDragging ? nil : () },
        ScrollView.Inputs.drag.generator(weight: 2) { view, random in
            view.isDragging ? vector(&random, scale: 250) : nil
        },
        ScrollView.Inputs.endDrag.generator { view, random in
            view.isDragging ? (random.chance(0.3) ? Point(x: 0, y: 0) : vector(&random, scale: 3)) : nil
        },
        ScrollView.Inputs.tapStatusBar.generator(weight: 0.3) { view, _ in view.isDragging ? nil : () },
        ScrollView.Inputs.setContentOffset.generator(
            weight: 0.3, boundaries: { [Point(x: 0, y: 0), largestOffset(of: $0)] }
        ) { view, random in
            // The ends of the content (0 and the largest offset) and a point either side, often.
            let largest = largestOffset(of: view)
            return Point(
                x: random.value(in: 0...largest.x, orNear: [0, largest.x], step: 1).rounded(),
                y: random.value(in: 0...largest.y, orNear: [0, largest.y], step: 1).rounded())
        },
    ]

    /// The largest content offset of `view` on each axis (0 when the content fits).
    private static func largestOffset(of view: ScrollView) -> Point {
        Point(
            x: max(view.contentSize.width - view.frame.width, 0), y: max(view.contentSize.height - view.frame.height, 0)
        )
    }

    /// A random vector of whole coordinates (velocities in tenths) up to `scale` long on each axis.
    private static func vector(_ random: inout ExplorationRandom, scale: Double) -> Point {
        func component() -> Double {
            let value = Double.random(in: -scale...scale, using: &random)
            return scale < 10 ? (value * 10).rounded() / 10 : value.rounded()
        }
        // Mostly along one axis, as a finger moves a list.
        return random.chance(0.7) ? Point(x: 0, y: component()) : Point(x: component(), y: component())
    }

    static let tableView: [InputGenerator] = [
        TableView.Inputs.tapRow.generator(weight: 2, boundaries: rowBoundaries) { table, random in
            row(in: table, &random)
        },
        TableView.Inputs.selectRow.generator(weight: 0.5, boundaries: rowBoundaries) { table, random in
            row(in: table, &random)
        },
        TableView.Inputs.deselectRow.generator(weight: 0.5, boundaries: rowBoundaries) { table, random in
            row(in: table, &random)
        },
    ]

    /// The first and last row of each section that has rows: where `row(in:_:)` draws near.
    @Sendable private static func rowBoundaries(_ table: TableView) -> [IndexPath] {
        table.rowsPerSection.indices.filter { table.rowsPerSection[$0] > 0 }.flatMap { section in
            [IndexPath(row: 0, section: section), IndexPath(row: table.rowsPerSection[section] - 1, section: section)]
        }
    }

    /// A row that exists; nil for a table without rows.
    private static func row(in table: TableView, _ random: inout ExplorationRandom) -> IndexPath? {
        let sections = table.rowsPerSection.indices.filter { table.rowsPerSection[$0] > 0 }
        guard let section = sections.randomElement(using: &random) else { return nil }
        let last = table.rowsPerSection[section] - 1
        let row = random.value(in: 0...last, orNear: [0, last])
        return IndexPath(row: row, section: section)
    }

    static let touches: [InputGenerator] = [
        TouchDispatcher.Inputs.touches.generator(weight: 1.5) { view, random in TouchGesture.random(on: view, &random) }
    ]
}
