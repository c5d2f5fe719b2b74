import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Distances at thresholds: the same relative move gives the same outcome wherever on the screen it
/// starts, as the integer clock does for times (the Gestures article, "Touches and the clock"). In
/// `Double`, 16.4 − 6.4 is 9.999999999999998: a 10 pt move from y 6.4 must still reach a 10 pt limit.
@Suite("Distance thresholds measured in micro-points")
struct DistanceThresholdTests {
    /// A move of one finger, in micro-points (millionths of a point) so that every test location is
    /// the `Double` nearest a decimal, as a scenario file gives it; the recognizers it is sent to;
    /// and the actions expected: each as `id state @nanoseconds-from-the-start`.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var setup: Setup
        var move: (x: Int64, y: Int64)
        var expected: [String]

        var testDescription: String { name }
    }

    /// What the finger touches: the root's own recognizers, or a scroll view (its own pan).
    enum Setup: Sendable {
        case recognizers(@Sendable () -> [GestureRecognizer])
        case scrollView
    }

    static let pan = Setup.recognizers { [PanGestureRecognizer(identifier: "pan")] }
    static let tap = Setup.recognizers { [TapGestureRecognizer(identifier: "tap")] }
    static let press = Setup.recognizers { [LongPressGestureRecognizer(identifier: "press")] }

    static let panned = ["pan began @100000000", "pan ended @600000000"]
    static let tapped = ["tap ended @600000000"]
    static let pressed = ["press began @500000000", "press ended @600000000"]
    static let scrolled = ["panGestureRecognizer began @100000000", "panGestureRecognizer ended @600000000"]

    static let cases: [Case] = [
        // A pan's `minimumTranslation` (10 pt), per axis: reached exactly, it begins.
        Case(name: "a pan moved exactly 10 pt along x begins", setup: pan, move: (10_000_000, 0), expected: panned),
        Case(name: "a pan moved exactly 10 pt along y begins", setup: pan, move: (0, 10_000_000), expected: panned),
        Case(name: "a pan moved exactly 10 pt leftwards begins", setup: pan, move: (-10_000_000, 0), expected: panned),
        Case(name: "a pan moved exactly 10 pt upwards begins", setup: pan, move: (0, -10_000_000), expected: panned),
        Case(name: "a pan moved a micro-point short of 10 pt fails", setup: pan, move: (9_999_999, 0), expected: []),
        Case(
            name: "a pan moved a micro-point short of 10 pt along each axis fails", setup: pan,
            move: (-9_999_999, 9_999_999), expected: []),
        Case(name: "a pan moved a micro-point over 10 pt begins", setup: pan, move: (0, 10_000_001), expected: panned),
        // A tap's `allowableMovement` (45 pt), straight-line: moved exactly that far, it is within.
        Case(name: "a tap moved exactly 45 pt recognizes", setup: tap, move: (45_000_000, 0), expected: tapped),
        Case(
            name: "a tap moved exactly 45 pt on a diagonal recognizes", setup: tap, move: (27_000_000, -36_000_000),
            expected: tapped),
        Case(
            name: "a tap moved just under 45 pt recognizes", setup: tap, move: (27_000_000, 35_999_999),
            expected: tapped),
        Case(name: "a tap moved a micro-point over 45 pt fails", setup: tap, move: (0, -45_000_001), expected: []),
        Case(
            name: "a tap moved just over 45 pt on a diagonal fails", setup: tap, move: (-27_000_001, 36_000_000),
            expected: []),
        // A long press's `allowableMovement` (10 pt), straight-line, before it begins.
        Case(name: "a press moved exactly 10 pt begins", setup: press, move: (0, 10_000_000), expected: pressed),
        Case(
            name: "a press moved exactly 10 pt on a diagonal begins", setup: press, move: (-6_000_000, 8_000_000),
            expected: pressed),
        Case(
            name: "a press moved just under 10 pt begins", setup: press, move: (6_000_000, 7_999_999), expected: pressed
        ),
        Case(name: "a press moved a micro-point over 10 pt fails", setup: press, move: (-10_000_001, 0), expected: []),
        Case(
            name: "a press moved just over 10 pt on a diagonal fails", setup: press, move: (6_000_000, -8_000_001),
            expected: []),
        // A scroll view's own pan: the pan's threshold, with the scroll view's defaults.
        Case(
            name: "a scroll view dragged exactly 10 pt begins dragging", setup: .scrollView, move: (0, -10_000_000),
            expected: scrolled),
        Case(
            name: "a scroll view dragged exactly 10 pt sideways begins dragging", setup: .scrollView,
            move: (10_000_000, 0), expected: scrolled),
        Case(
            name: "a scroll view dragged a micro-point short of 10 pt stays", setup: .scrollView, move: (0, -9_999_999),
            expected: []),
    ]

    /// The side of the root view and of the scroll view, in points: room for the largest offsets.
    static let side = 20_000_000.0

    /// A root with the case's recognizers (or a scroll view filling it), and the log of their
    /// actions relative to the start of the last sequence.
    final class Stage {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: side, height: side))
        var start: Int64 = 0
        var log: [String] = []

        init(_ setup: Setup) {
            switch setup {
            case .recognizers(let make):
                for recognizer in make() { observe(recognizer, on: root) }
            case .scrollView:
                let list = ScrollView(
                    identifier: "list", frame: Rect(x: 0, y: 0, width: side, height: side),
                    contentSize: Size(width: side, height: 2 * side))
                root.addSubview(list)
                observe(list.panGestureRecognizer, on: nil)
            }
        }

        init(_ recognizer: GestureRecognizer) {
            observe(recognizer, on: root)
        }

        private func observe(_ recognizer: GestureRecognizer, on view: View?) {
            view?.addGestureRecognizer(recognizer)
            recognizer.addAction { [unowned self] recognizer in
                let elapsed = root.touchDispatcher.nowNanoseconds - start
                log.append("\(recognizer.identifier) \(recognizer.state) @\(elapsed)")
            }
        }

        /// A finger down at `from` (micro-points), moved to `from + move` 0.1 s later, lifted there
        /// at 0.6 s (after a long press's 0.5 s); returns the actions that caused.
        func perform(from: (x: Int64, y: Int64), move: (x: Int64, y: Int64)) -> [String] {
            log = []
            start = root.touchDispatcher.nowNanoseconds
            let begin = Point(x: points(from.x), y: points(from.y))
            let end = Point(x: points(from.x + move.x), y: points(from.y + move.y))
            let touches = [
                Touch(id: 1, location: begin, phase: .began, timestamp: 0),
                Touch(id: 1, location: end, phase: .moved, timestamp: 0.1),
                Touch(id: 1, location: end, phase: .ended, timestamp: 0.6),
            ]
            #expect(root.touchDispatcher.problem(performing: touches) == nil)
            root.touchDispatcher.perform(touches)
            return log
        }

        /// The `Double` nearest `micropoints` millionths of a point: what the decimal reads as.
        private func points(_ micropoints: Int64) -> Double { Double(micropoints) / 1e6 }
    }

    /// Where the sequences start, in micro-points: (50 + 0.1·k, 50 + 0.1·(999 − k)) for 1,000 k, and
    /// a few far out (up to the 10^7 pt a scenario allows).
    static let starts: [(x: Int64, y: Int64)] = {
        let near: [(x: Int64, y: Int64)] = (0..<1000).map { (k: Int64) -> (x: Int64, y: Int64) in
            (x: 50_000_000 + k * 100_000, y: 50_000_000 + (999 - k) * 100_000)
        }
        let far: [(x: Int64, y: Int64)] = [
            (1_000_000_300_000, 3_333_333_700_000), (9_999_000_100_000, 64_400_000), (16_400_000, 9_999_950_900_000),
        ]
        return near + far
    }()

    @Test(arguments: cases)
    func theOutcomeAtADistanceThresholdDoesNotDependOnWhereTheMoveStarts(_ test: Case) {
        var outcomes: [String: Int] = [:]
        for start in Self.starts {
            let stage = Stage(test.setup)
            outcomes[stage.perform(from: start, move: test.move).joined(separator: ", "), default: 0] += 1
        }
        expectEqual(outcomes, [test.expected.joined(separator: ", "): Self.starts.count])
    }

    /// The issue's example: from y 6.4 to 16.4 is 10 pt, as from 0 to 10.
    @Test func aPanFromY6Point4To16Point4Begins() {
        let stage = Stage(Self.pan)
        expectEqual(stage.perform(from: (0, 6_400_000), move: (0, 10_000_000)), Self.panned)
        expectEqual(stage.perform(from: (0, 0), move: (0, 10_000_000)), Self.panned)
    }

    /// The same through a scenario file read from JSON, whose numbers are the `Double`s nearest
    /// their decimals.
    @Test func aScenarioPanOfExactlyItsMinimumTranslationBeginsWhereverItStarts() throws {
        let steps = (0..<200).map { k in
            let y = Double(k) * 0.1
            return #"""
                {"action":"touches","widget":"root","events":[{"id":1,"phase":"began","x":5,"y":\#(y),"t":0},
                  {"id":1,"phase":"moved","x":5,"y":\#(y + 10),"t":0.1},
                  {"id":1,"phase":"ended","x":5,"y":\#(y + 10),"t":0.2}]}
                """#
        }
        let text = #"""
            {"name":"drift","root":{"kind":"View","id":"root","frame":[0,0,100,100],"gestures":[
              {"kind":"PanGestureRecognizer","id":"pan","minimumTranslation":10}]},
             "steps":[\#(steps.joined(separator: ","))]}
            """#
        let scenario = try Scenario(data: Data(text.utf8), catalog: .builtIn)
        let root = scenario.root.build()
        var began = 0
        root.gestureRecognizers[0].addAction { if $0.state == .began { began += 1 } }
        _ = try ScenarioRunner.drive(root, steps: scenario.steps, invalid: .stop)
        expectEqual(began, 200)
    }

    /// Random limits, starts and moves near the limits, checked against integer arithmetic on the
    /// micro-points: a pan begins when |Δx| or |Δy| reaches its limit; a tap recognizes, and a long
    /// press begins, when Δx² + Δy² does not exceed the square of its limit.
    @Test func randomMovesAtTheLimitsAgreeWithExactArithmetic() {
        var random = SeededGenerator(seed: 2024)
        // Right triangles whose sides are whole micro-points when the hypotenuse is a limit that is.
        let triangles: [(Int64, Int64, Int64)] = [(3, 4, 5), (7, 24, 25), (44, 117, 125), (35, 120, 125), (9, 12, 15)]
        var counts = (reached: 0, notReached: 0)
        for _ in 0..<3000 {
            let start = (
                x: Int64.random(in: 1_000_000_000...10_000_000_000_000, using: &random),
                y: Int64.random(in: 1_000_000_000...10_000_000_000_000, using: &random)
            )
            let nudge = { (random: inout SeededGenerator) in Int64.random(in: -1...1, using: &random) }
            let sign = { (random: inout SeededGenerator) in Bool.random(using: &random) ? Int64(1) : -1 }
            let recognizer: GestureRecognizer
            let move: (x: Int64, y: Int64)
            let reached: Bool
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let limit = Int64.random(in: 1...100_000, using: &random) * 1000
                let along = (limit + nudge(&random)) * sign(&random)
                let across = Int64.random(in: -limit...limit, using: &random)
                move = Bool.random(using: &random) ? (along, across) : (across, along)
                let pan = PanGestureRecognizer(identifier: "pan")
                pan.minimumTranslation = Double(limit) / 1e6
                recognizer = pan
                reached = max(abs(move.x), abs(move.y)) >= limit
            default:
                let (a, b, c) = triangles.randomElement(using: &random)!
                let scale = Int64.random(in: 1...400_000, using: &random)
                let limit = c * scale
                move = ((a * scale + nudge(&random)) * sign(&random), (b * scale + nudge(&random)) * sign(&random))
                reached = move.x * move.x + move.y * move.y <= limit * limit
                if Bool.random(using: &random) {
                    let tap = TapGestureRecognizer(identifier: "tap")
                    tap.allowableMovement = Double(limit) / 1e6
                    recognizer = tap
                } else {
                    let press = LongPressGestureRecognizer(identifier: "press")
                    press.allowableMovement = Double(limit) / 1e6
                    recognizer = press
                }
            }
            let stage = Stage(recognizer)
            let log = stage.perform(from: start, move: move)
            expectEqual(!log.isEmpty, reached, "\(recognizer.widgetKind) from \(start) by \(move): \(log)")
            if reached { counts.reached += 1 } else { counts.notReached += 1 }
        }
        #expect(counts.reached > 1000 && counts.notReached > 500)
    }

    @Test(
        arguments: [
            (16.4, 16_400_000), (6.4, 6_400_000), (0.1 * 3, 300_000), (9.999_999_6, 10_000_000),
            (-2.000_000_4, -2_000_000),
            (-0.000_000_6, -1), (0.007_812_5, 7813), (-0.007_812_5, -7813), (9_999_999.999_999, 9_999_999_999_999),
            (1e12 + 0.5, 1_000_000_000_000_500_000),
        ] as [(Double, Int64)])
    func pointsAreTakenToTheNearestMicropoint(points: Double, micropoints: Int64) {
        expectEqual(TouchDistance.micropoints(points), micropoints)
    }

    @Test func coordinatesBeyondTheGridAreHeldAtItsBound() {
        let bound = TouchDistance.maximumMicropoints
        expectEqual(TouchDistance.micropoints(1e300), bound)
        expectEqual(TouchDistance.micropoints(-.infinity), -bound)
        // The widest move the grid holds: its straight-line distance still compares without overflow.
        let far = (Point(x: -1e300, y: -1e300), Point(x: 1e300, y: 1e300))
        #expect(TouchDistance.translation(from: far.0, to: far.1) == (2 * bound, 2 * bound))
        #expect(TouchDistance.distance(from: far.0, to: far.1, exceeds: 1e300))
        #expect(TouchDistance.translation(from: far.0, to: far.1, reaches: 1e300))
    }

    /// As the `Double` comparisons it replaces: a limit that is not a number or +∞ is never
    /// reached, −∞ always is, and a negative limit is exceeded by any move.
    @Test func limitsThatAreNotFiniteKeepTheirMeaning() {
        let (a, b) = (Point(x: 1, y: 1), Point(x: 1e6, y: 1))
        for limit in [Double.nan, .infinity] {
            #expect(!TouchDistance.translation(from: a, to: b, reaches: limit))
            #expect(!TouchDistance.distance(from: a, to: b, exceeds: limit))
        }
        #expect(TouchDistance.translation(from: a, to: a, reaches: -.infinity))
        #expect(TouchDistance.distance(from: a, to: a, exceeds: -.infinity))
        #expect(TouchDistance.distance(from: a, to: a, exceeds: -1))
        #expect(!TouchDistance.distance(from: a, to: a, exceeds: 0))
        #expect(TouchDistance.translation(from: a, to: a, reaches: 0))
    }
}
