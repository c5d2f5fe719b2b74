import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Seeded random tests for the items of issue #12 ("Fidelity") that the hand-written tests cover
/// by example: each draws its cases from `SeededGenerator` with a fixed seed, so a run repeats
/// exactly, and checks the widgets against a small reference model written here from UIKit's
/// documented rule.
@Suite("Fidelity: seeded random properties", .tags(.slow))
struct FidelityPropertyTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    // MARK: Item 5: hit-testing through a scroll view's content offset

    /// A coordinate in half points, exact in a double, so the model and the views compare the same
    /// numbers.
    static func half(_ range: ClosedRange<Int>, _ random: inout SeededGenerator) -> Double {
        Double(Int.random(in: range.lowerBound * 2...range.upperBound * 2, using: &random)) / 2
    }

    /// A root with a sibling behind a scroll view at a random frame, content size and offset (in
    /// code, not clamped), holding random, possibly overlapping subviews, some with a child. The
    /// model gives every view the rectangle it covers in window coordinates — its frame moved by
    /// its superview's window origin less the superview's bounds origin (Apple, `UIView.bounds`:
    /// changing the bounds origin moves the subviews) — cut to what its ancestors show, since
    /// `hitTest(_:with:)` looks only inside each view's bounds. The view hit is the front-most
    /// (last added, deepest) whose visible rectangle holds the point.
    @Test func aTouchHitsTheFrontMostViewThatAReferenceModelShowsThere() {
        var random = SeededGenerator(seed: 0x5C_0011)
        for _ in 0..<60 {
            let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
            let behind = View(identifier: "behind", frame: Rect(x: 0, y: 0, width: 320, height: 240))
            let scrollFrame = Rect(
                x: Self.half(0...100, &random), y: Self.half(0...200, &random), width: Self.half(20...220, &random),
                height: Self.half(20...280, &random))
            let scroll = ScrollView(
                identifier: "scroll", frame: scrollFrame,
                contentSize: Size(width: Self.half(0...900, &random), height: Self.half(0...1500, &random)))
            root.addSubview(behind)
            root.addSubview(scroll)
            // (view, visible rectangle in window coordinates, window origin of its own coordinates)
            var model: [(view: View, visible: Rect?, origin: Point)] = [
                (root, root.frame, Point(x: 0, y: 0)), (behind, behind.frame, Point(x: 0, y: 0)),
            ]
            let offset = Point(x: Self.half(-200...800, &random), y: Self.half(-200...1300, &random))
            scroll.setContentOffset(offset)
            let scrollOrigin = Point(x: scrollFrame.x - offset.x, y: scrollFrame.y - offset.y)
            model.append((scroll, scrollFrame, scrollOrigin))
            for index in 0..<Int.random(in: 1...6, using: &random) {
                let frame = Rect(
                    x: Self.half(-50...800, &random), y: Self.half(-50...1400, &random),
                    width: Self.half(0...300, &random), height: Self.half(0...300, &random))
                let subview = View(identifier: "v\(index)", frame: frame)
                scroll.addSubview(subview)
                let window = Rect(
                    x: scrollOrigin.x + frame.x, y: scrollOrigin.y + frame.y, width: frame.width, height: frame.height)
                let visible = Self.intersection(window, scrollFrame)
                model.append((subview, visible, Point(x: window.x, y: window.y)))
                if Bool.random(using: &random) {
                    let childFrame = Rect(
                        x: Self.half(-20...200, &random), y: Self.half(-20...200, &random),
                        width: Self.half(0...150, &random), height: Self.half(0...150, &random))
                    let child = View(identifier: "c", frame: childFrame)
                    subview.addSubview(child)
                    let childWindow = Rect(
                        x: window.x + childFrame.x, y: window.y + childFrame.y, width: childFrame.width,
                        height: childFrame.height)
                    model.append(
                        (
                            child, visible.flatMap { Self.intersection(childWindow, $0) },
                            Point(x: childWindow.x, y: childWindow.y)
                        ))
                }
            }
            for _ in 0..<200 {
                let point = Point(x: Self.half(-10...330, &random), y: Self.half(-10...490, &random))
                // Model order is back to front, parents before children: the last that holds it.
                let expected = model.last { $0.visible?.contains(point) == true }?.view
                let hit = root.hitTest(point)
                #expect(hit === expected, "\(point): \(hit?.path ?? "nil"), model \(expected?.path ?? "nil")")
                if let hit, let entry = model.first(where: { $0.view === hit }) {
                    // Never outside what the scroll view shows, and the same point back in window
                    // coordinates.
                    #expect(hit.superview !== scroll || scrollFrame.contains(point))
                    let local = hit.convert(point, from: nil)
                    expectEqual(local, Point(x: point.x - entry.origin.x, y: point.y - entry.origin.y))
                    expectEqual(hit.convert(local, to: nil), point)
                }
            }
        }
    }

    /// What the model knows of a view: the rectangle of the window where it can be hit (nil when
    /// nowhere), and where the origin of its own coordinates lies in the window.
    struct Shown {
        let view: View
        let visible: Rect?
        let origin: Point
    }

    /// Adds random children, down to `depth` levels, to `parent` (shown as `shown`): plain views
    /// and scroll views at random offsets, some with user interaction disabled. Appends each to
    /// `model` in the order the model reads front-most last: a view, then its subtree, then its
    /// next sibling.
    static func addRandomChildren(
        to parent: View, shown: Shown, depth: Int, model: inout [Shown], _ random: inout SeededGenerator
    ) {
        // Mostly where the parent shows its content, sometimes partly or wholly outside it.
        let area = parent.bounds
        let width = Int(area.width)
        let height = Int(area.height)
        for index in 0..<(depth == 0 ? 0 : Int.random(in: 1...3, using: &random)) {
            let frame = Rect(
                x: area.x + half(-width / 2...width, &random), y: area.y + half(-height / 2...height, &random),
                width: half(0...width, &random), height: half(0...height, &random))
            let view: View
            var boundsOrigin = Point(x: 0, y: 0)
            if Bool.random(using: &random) {
                let scroll = ScrollView(
                    identifier: "s\(index)", frame: frame,
                    contentSize: Size(width: half(0...2 * width, &random), height: half(0...2 * height, &random)))
                boundsOrigin = Point(
                    x: half(-Int(frame.width)...Int(frame.width), &random),
                    y: half(-Int(frame.height)...Int(frame.height), &random))
                scroll.setContentOffset(boundsOrigin)
                view = scroll
            } else {
                view = View(identifier: "v\(index)", frame: frame)
            }
            view.isUserInteractionEnabled = Int.random(in: 0..<8, using: &random) != 0
            parent.addSubview(view)
            // Apple, UIView.hitTest(_:with:): it "ignores view objects that are hidden, that have
            // disabled user interactions", and a point outside a view's bounds reaches none of its
            // subviews.
            let window = Rect(
                x: shown.origin.x + frame.x, y: shown.origin.y + frame.y, width: frame.width, height: frame.height)
            let visible = view.isUserInteractionEnabled ? shown.visible.flatMap { intersection(window, $0) } : nil
            let entry = Shown(
                view: view, visible: visible, origin: Point(x: window.x - boundsOrigin.x, y: window.y - boundsOrigin.y))
            model.append(entry)
            addRandomChildren(to: view, shown: entry, depth: depth - 1, model: &model, &random)
        }
    }

    /// Random trees three levels deep of views and scroll views, nested in one another, each
    /// scroll view at its own offset: every touch hits what the model shows there, and converting
    /// the point into the view hit goes through every frame and bounds origin on the way.
    @Test func nestedScrollViewsAtRandomOffsetsHitWhatTheModelShows() {
        var random = SeededGenerator(seed: 0x5C_1005)
        var hitsInNestedScrollViews = 0
        for _ in 0..<400 {
            let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 320, height: 480))
            let shown = Shown(view: root, visible: root.frame, origin: Point(x: 0, y: 0))
            var model = [shown]
            Self.addRandomChildren(to: root, shown: shown, depth: 3, model: &model, &random)
            for _ in 0..<100 {
                // Half anywhere, half in (or on the far edge of) what a random view shows.
                var point = Point(x: Self.half(-10...330, &random), y: Self.half(-10...490, &random))
                if Bool.random(using: &random), let area = model.randomElement(using: &random)!.visible {
                    point = Point(
                        x: area.x + Self.half(0...Int(area.width.rounded(.up)), &random),
                        y: area.y + Self.half(0...Int(area.height.rounded(.up)), &random))
                }
                let expected = model.last { $0.visible?.contains(point) == true }
                let hit = root.hitTest(point)
                #expect(
                    hit === expected?.view, "\(point): \(hit?.path ?? "nil"), model \(expected?.view.path ?? "nil")")
                if hit?.superview is ScrollView, hit?.superview?.superview is ScrollView {
                    hitsInNestedScrollViews += 1
                }
                if let hit, let expected, hit === expected.view {
                    expectEqual(
                        hit.convert(point, from: nil),
                        Point(x: point.x - expected.origin.x, y: point.y - expected.origin.y))
                }
            }
        }
        #expect(hitsInNestedScrollViews > 300, "too few touches reached content of a scroll view in a scroll view")
    }

    /// The part of `a` inside `b`, or nil when they do not overlap.
    static func intersection(_ a: Rect, _ b: Rect) -> Rect? {
        let x = max(a.x, b.x)
        let y = max(a.y, b.y)
        let right = min(a.x + a.width, b.x + b.width)
        let bottom = min(a.y + a.height, b.y + b.height)
        return right > x && bottom > y ? Rect(x: x, y: y, width: right - x, height: bottom - y) : nil
    }

    // MARK: Item 6: will-deselect confirms or alters the row deselected

    /// Random taps (and now and then a selection in code) on a table of sections [3, 2], with a
    /// delegate whose answers are drawn again before each tap: highlight refused now and then;
    /// will-select nil, the row, another row or one that does not exist; will-deselect nil, the
    /// row, another row. The model follows Apple's documentation of `UITableViewDelegate`:
    /// `tableView(_:willSelectRowAt:)` "Return an index-path object that confirms or alters the
    /// selected row. … nil if you don't want the row selected"; `tableView(_:willDeselectRowAt:)`
    /// "… confirms or alters the deselected row. Return nil if you don't want the row
    /// deselected." (ScenarioFormat.md, "Table view", for the order.)
    @Test func randomTapsSelectWhatTheDocumentedRuleSelects() throws {
        let rows = [
            IndexPath(row: 0, section: 0), IndexPath(row: 1, section: 0), IndexPath(row: 2, section: 0),
            IndexPath(row: 0, section: 1), IndexPath(row: 1, section: 1),
        ]
        let missing = [IndexPath(row: 3, section: 0), IndexPath(row: 0, section: 2)]
        func answer(for row: IndexPath, _ random: inout SeededGenerator) -> IndexPath? {
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1: nil
            case 2, 3, 4: row
            case 5: missing.randomElement(using: &random)!
            default: rows.randomElement(using: &random)!
            }
        }
        // One run of 25 steps from `seed`, under `recorder` when given: every call, and the selection.
        func trial(seed: UInt64, recorder: Recorder?) -> (calls: [String], state: [IndexPath]) {
            var random = SeededGenerator(seed: seed)
            let table = TableView(
                identifier: "t", frame: Rect(x: 0, y: 0, width: 320, height: 100), rowsPerSection: [3, 2])
            let delegate = TableLogDelegate()
            table.delegate = delegate
            try? recorder?.attach(to: table)
            defer { recorder?.detach(from: table) }
            var log: [String] = []
            var selected: [IndexPath] = []  // the model, in index path order
            for _ in 0..<25 {
                let tapped = rows.randomElement(using: &random)!
                if Int.random(in: 0..<10, using: &random) == 0 {
                    table.selectRow(tapped)  // in code: no delegate method
                    selected = [tapped]
                    #expect(delegate.calls.isEmpty)
                    continue
                }
                delegate.refusesHighlight = Int.random(in: 0..<10, using: &random) == 0 ? [tapped] : []
                delegate.selectAnswers = [tapped: answer(for: tapped, &random)]
                delegate.deselectAnswers = Dictionary(uniqueKeysWithValues: rows.map { ($0, answer(for: $0, &random)) })
                delegate.calls = []
                table.tapRow(tapped)

                var calls = ["t.shouldHighlight \(tapped) \(delegate.refusesHighlight.isEmpty)"]
                if delegate.refusesHighlight.isEmpty {
                    let chosen = delegate.selectAnswers[tapped]!
                    calls.append("t.willSelect \(tapped) \(chosen.map { "\($0)" } ?? "nil")")
                    if let chosen, rows.contains(chosen) {
                        for row in selected where row != chosen && selected.contains(row) {
                            let alteredTo = delegate.deselectAnswers[row]!
                            calls.append("t.willDeselect \(row) \(alteredTo.map { "\($0)" } ?? "nil")")
                            if let alteredTo, let index = selected.firstIndex(of: alteredTo) {
                                selected.remove(at: index)
                                calls.append("t.didDeselect \(alteredTo)")
                            }
                        }
                        if !selected.contains(chosen) {
                            selected = (selected + [chosen]).sorted { ($0.section, $0.row) < ($1.section, $1.row) }
                        }
                        calls.append("t.didSelect \(chosen)")
                    }
                }
                expectEqual(delegate.calls, calls)
                #expect(table.indexPathsForSelectedRows ?? [] == selected)
                expectEqual(table.indexPathForSelectedRow, selected.first)
                log += delegate.calls
                delegate.calls = []
            }
            return (log, selected)
        }
        var seeds = SeededGenerator(seed: 0x7AB1E)
        for _ in 0..<40 {
            let seed = seeds.next()
            let database = folder.path("table-\(seed).sqlite")
            // Auditing changes nothing: the same calls and selection under a recorder, each recorded.
            _ = try expectAuditingChangesNothing(database: database) { trial(seed: seed, recorder: $0) }
        }
    }

    // MARK: Item 8: selecting the selected segment asks and notifies nothing

    /// Random taps and selections in code (notify or not, -1 now and then) on a control of three
    /// segments, with a delegate that vetoes a random set before each step and, from its
    /// did-callback, sometimes selects the index just selected again. The model: UIKit sends no
    /// action when `selectedSegmentIndex` is set (Apple, `UISegmentedControl`, and a tap on the
    /// selected segment changes nothing), so the already-selected index asks and notifies nothing,
    /// tapped or in code; another index asks, and unless vetoed selects and notifies (in code only
    /// with `notify`); -1 clears without asking.
    @Test func onlyAChangeOfSegmentAsksAndNotifies() throws {
        // One run of 30 steps from `seed`, under `recorder` when given: every call, and the selection.
        func trial(seed: UInt64, recorder: Recorder?) -> (calls: [String], state: Int) {
            var random = SeededGenerator(seed: seed)
            let initial = Int.random(in: -1...2, using: &random)
            let control = SegmentedControl(identifier: "c", segments: ["a", "b", "c"], selectedSegmentIndex: initial)
            let delegate = LoggingDelegate()
            var reselects = false
            delegate.onDidSelect = { control, index in
                if reselects { control.setSelectedSegmentIndex(index, notify: true) }
            }
            control.delegate = delegate
            try? recorder?.attach(to: control)
            defer { recorder?.detach(from: control) }
            var selected = initial
            var expected: [String] = []
            for _ in 0..<30 {
                delegate.vetoed = Set((0..<3).filter { _ in Int.random(in: 0..<3, using: &random) == 0 })
                reselects = Bool.random(using: &random)
                let tap = Bool.random(using: &random)
                let index = Int.random(in: (tap ? 0 : -1)...2, using: &random)
                let notify = Bool.random(using: &random)
                if tap {
                    control.tapSegment(index)
                } else {
                    control.setSelectedSegmentIndex(index, notify: notify)
                }
                if index == -1 {
                    selected = -1
                } else if index != selected {
                    expected.append("c.should(\(index))")
                    if !delegate.vetoed.contains(index) {
                        selected = index
                        if tap || notify { expected.append("c.did(\(index), \(tap))") }
                    }
                }
                expectEqual(delegate.calls, expected)
                expectEqual(control.selectedSegmentIndex, selected)
            }
            return (delegate.calls, selected)
        }
        var seeds = SeededGenerator(seed: 0x5E6_0008)
        for _ in 0..<50 {
            let seed = seeds.next()
            let database = folder.path("segments-\(seed).sqlite")
            _ = try expectAuditingChangesNothing(database: database) { trial(seed: seed, recorder: $0) }
        }
    }

    // MARK: Item 1: the input nesting limit

    /// Random chain depths from 1 to 40 (32 and 33 always among them), each run without and with
    /// a recorder: the same delegate calls, refused exactly past `InputNesting.limit`.
    @Test func randomChainDepthsAreRefusedExactlyPastTheLimit() throws {
        var random = SeededGenerator(seed: 0xDEE9)
        let depths = [32, 33] + (0..<14).map { _ in Int.random(in: 1...40, using: &random) }
        for depth in depths {
            let scenario = try NestingLimitTests.chain(depth)
            let plain = NestingLimitTests.run(scenario, recorder: nil)
            let recorder = try Recorder(databasePath: database, session: newSession("\(depth)"), catalog: .builtIn)
            let audited = NestingLimitTests.run(scenario, recorder: recorder)
            let summary = recorder.finish()
            let levels = min(depth, InputNesting.limit)
            expectEqual(audited.calls, plain.calls, "depth \(depth)")
            expectEqual(audited.error?.description, plain.error?.description, "depth \(depth)")
            expectEqual((plain.error != nil), (depth > InputNesting.limit), "depth \(depth)")
            expectEqual(plain.calls.count, 2 * levels, "depth \(depth)")
            expectEqual(plain.calls.last, "c\(levels - 1).did(1)", "depth \(depth)")
            expectEqual(summary.inputs, levels, "depth \(depth)")
            expectEqual(summary.callbacks, plain.calls.count, "depth \(depth)")
            if depth > InputNesting.limit {
                expectEqual(plain.error?.location, "steps[0]")
                expectEqual(
                    plain.error?.message.hasPrefix("input selectSegment on root/c32 would nest 33 inputs deep"), true)
            }
            expectEqual(InputNesting.depth, 0)
            #expect(InputNesting.takeRefusal() == nil)
        }
    }
}
