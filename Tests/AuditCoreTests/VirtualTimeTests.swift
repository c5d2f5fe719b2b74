import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// The integer time base: the same relative touch sequence gives the same outcome at exact
/// thresholds wherever it starts on the clock (the Gestures article, "Touches and the clock").
@Suite("Virtual time in nanoseconds")
struct VirtualTimeTests {
    /// A touch sequence timed relative to its start, the recognizers it is sent to, and the
    /// outcome expected: each action as `id state @nanoseconds-from-the-start`.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var recognizers: @Sendable () -> [GestureRecognizer]
        /// `(phase, seconds from the start)` of finger 1 at (50, 50), as a scenario file gives them.
        var events: [(Touch.Phase, Double)]
        var expected: [String]

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // "The minimum time that the user must press on the view for the gesture to be recognized"
        // (developer.apple.com/documentation/uikit/uilongpressgesturerecognizer/minimumpressduration):
        // held exactly that long, it recognizes.
        Case(
            name: "a press held exactly minimumPressDuration begins",
            recognizers: { [LongPressGestureRecognizer(identifier: "press")] },
            events: [(.began, 0.05), (.ended, 0.55)],
            expected: ["press began @550000000", "press ended @550000000"]),
        Case(
            name: "a press a nanosecond short fails",
            recognizers: { [LongPressGestureRecognizer(identifier: "press")] },
            events: [(.began, 0.05), (.ended, 0.549_999_999)], expected: []),
        // The second tap touches down exactly maximumIntervalBetweenTaps after the first lift:
        // the interval is reached, the double tap fails and the single tap waiting for it
        // recognizes then, and again after the second tap's own interval.
        Case(
            name: "a second tap exactly at the double-tap interval is too late",
            recognizers: singleAndDoubleTap, events: [(.began, 0.05), (.ended, 0.1), (.began, 0.45), (.ended, 0.5)],
            expected: ["single ended @450000000", "single ended @850000000"]),
        Case(
            name: "a second tap a nanosecond inside the interval makes a double tap",
            recognizers: singleAndDoubleTap,
            events: [(.began, 0.05), (.ended, 0.1), (.began, 0.449_999_999), (.ended, 0.5)],
            expected: ["double ended @500000000"]),
        Case(
            name: "a tap held exactly maximumTapDuration fails",
            recognizers: { [TapGestureRecognizer(identifier: "tap")] },
            events: [(.began, 0.05), (.ended, 0.8)], expected: []),
        Case(
            name: "a tap lifted a nanosecond before maximumTapDuration recognizes",
            recognizers: { [TapGestureRecognizer(identifier: "tap")] },
            events: [(.began, 0.05), (.ended, 0.799_999_999)], expected: ["tap ended @799999999"]),
    ]

    static let singleAndDoubleTap: @Sendable () -> [GestureRecognizer] = {
        let double = TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2)
        let single = TapGestureRecognizer(identifier: "single")
        single.require(toFail: double)
        return [double, single]
    }

    /// A root with the case's recognizers, and the log of their actions relative to `start()`.
    final class Stage {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100))
        var start: Int64 = 0
        var log: [String] = []

        init(_ recognizers: [GestureRecognizer]) {
            for recognizer in recognizers {
                root.addGestureRecognizer(recognizer)
                recognizer.addAction { [unowned self] recognizer in
                    let elapsed = root.touchDispatcher.nowNanoseconds - start
                    log.append("\(recognizer.identifier) \(recognizer.state) @\(elapsed)")
                }
            }
        }

        /// Sends the case's events from the clock's current time, as a scenario's `touches` step
        /// does, and returns the actions they caused.
        func perform(_ events: [(Touch.Phase, Double)]) -> [String] {
            log = []
            start = root.touchDispatcher.nowNanoseconds
            let touches = events.map { Touch(id: 1, x: 50, y: 50, phase: $0.0, timestamp: $0.1) }
            #expect(root.touchDispatcher.problem(performing: touches) == nil)
            root.touchDispatcher.perform(touches)
            return log
        }
    }

    @Test(arguments: cases)
    func theOutcomeAtAThresholdDoesNotDependOnWhereTheSequenceStarts(_ test: Case) {
        let large: [Double] = [1_000_000.3, 3_155_760_000.7, 9_000_000_000.1]  // up to 285 years
        let offsets = (0..<1000).map { Double($0) * 0.1 } + large
        var outcomes: [String: [Double]] = [:]
        for offset in offsets {
            let stage = Stage(test.recognizers())
            stage.root.touchDispatcher.advance(to: offset)
            outcomes[stage.perform(test.events).joined(separator: ", "), default: []].append(offset)
        }
        expectEqual(Array(outcomes.keys), [test.expected.joined(separator: ", ")])
    }

    @Test(arguments: cases)
    func theOutcomeAtAThresholdIsTheSameEachTimeTheSequenceRepeats(_ test: Case) {
        let stage = Stage(test.recognizers())
        var outcomes: Set<[String]> = []
        for _ in 0..<1000 { outcomes.insert(stage.perform(test.events)) }
        expectEqual(outcomes, [test.expected])
    }

    /// The same, through a scenario file read from JSON: the step's seconds become nanoseconds once.
    @Test func aScenarioRepeatingAPressOfExactlyTheMinimumDurationRecognizesItEveryTime() throws {
        let step = #"""
            {"action":"touches","widget":"root","events":[{"id":1,"phase":"began","x":5,"y":5,"t":0.1},
              {"id":1,"phase":"ended","x":5,"y":5,"t":0.4}]}
            """#
        let text = #"""
            {"name":"drift","root":{"kind":"View","id":"root","frame":[0,0,10,10],"gestures":[
              {"kind":"LongPressGestureRecognizer","id":"press","minimumPressDuration":0.3}]},
             "steps":[\#(Array(repeating: step, count: 700).joined(separator: ","))]}
            """#
        let scenario = try Scenario(data: Data(text.utf8), catalog: .builtIn)
        let root = scenario.root.build()
        var ended = 0
        root.gestureRecognizers[0].addAction { if $0.state == .ended { ended += 1 } }
        _ = try ScenarioRunner.drive(root, steps: scenario.steps, invalid: .stop)
        expectEqual(ended, 700)
        expectEqual(root.touchDispatcher.nowNanoseconds, 700 * 400_000_000)
    }

    @Test(
        arguments: [
            (0.1, 100_000_000), (0.35, 350_000_000), (1.000_000_000_4, 1_000_000_000), (1.000_000_000_6, 1_000_000_001),
            (-0.25, -250_000_000), (9e9, 9_000_000_000_000_000_000),
        ] as [(Double, Int64)])
    func secondsAreReadToTheNearestNanosecond(seconds: Double, nanoseconds: Int64) {
        expectEqual(VirtualTime.nanoseconds(fromSeconds: seconds), nanoseconds)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e10, -1e10, 1e308])
    func aTimeTheClockCannotHoldIsRefused(seconds: Double) {
        #expect(VirtualTime.nanoseconds(fromSeconds: seconds) == nil)
    }

    /// What is recorded (`t` in seconds) reads back to the same nanoseconds, below 2^23 s (97 days).
    @Test func recordedSecondsReadBackToTheSameNanoseconds() throws {
        var random = SeededGenerator(seed: 12)
        for _ in 0..<20_000 {
            let nanoseconds = Int64.random(in: 0..<(1 << 23) * VirtualTime.nanosecondsPerSecond, using: &random)
            let touch = Touch(id: 1, location: Point(x: 1, y: 2), phase: .moved, timestampNanoseconds: nanoseconds)
            let encoded = ValueCoding<Touch>.touch.encode(touch)
            let json = encoded.json
            let decoded = try #require(ValueCoding<Touch>.touch.decode(try AuditValue(json: json)))
            expectEqual(decoded, touch, "\(nanoseconds) ns recorded as \(json)")
        }
    }

    @Test func aRecordedTimerFiresAtItsExactDeadlineOnReplay() {
        let stage = Stage([LongPressGestureRecognizer(identifier: "press")])
        let dispatcher = stage.root.touchDispatcher
        dispatcher.advance(to: 0.7)
        dispatcher.send(Touch(id: 1, x: 5, y: 5, phase: .began, timestamp: 0.7 + 0.1))
        // The recorded `gestureTimer` reads `"t": 1.3`: the deadline 0.8 + 0.5, reached exactly.
        dispatcher.fireTimers(through: 1.3)
        expectEqual(stage.log, ["press began @1300000000"])
        expectEqual(dispatcher.nowNanoseconds, 1_300_000_000)
    }
}
