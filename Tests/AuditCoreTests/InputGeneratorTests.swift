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

/// The widget kinds' generators, as `explore` uses them: every input a scenario can name comes out,
/// each valid where it is generated, with the Unicode and the gestures that matter.
@Suite("Input generators")
struct InputGeneratorTests {
    /// The steps of `runs` runs of `count` steps on the shipped checkout, driven by `checkout.v1`.
    static func generated(runs: Int, count: Int, weights: [String: Double] = [:]) throws -> [ScenarioStep] {
        var options = Explorer.Options()
        options.stepsPerRun = count
        options.weights = weights
        let generator = RunGenerator(scenario: try Examples.checkout(), options: options)
        return (1...runs).flatMap { run in
            var random = ExplorationRandom(seed: 5, run: run)
            return generator.steps(delegate: { CheckoutDelegate(version: .v1) }, corpus: [], &random)
        }
    }

    @Test("every input of every built-in kind is generated, except the recorded forms of touches")
    func everyInput() throws {
        let actions = Set(try Self.generated(runs: 20, count: 30).map(\.action))
        // The checkout screen has no web view (WebViewTests explore the browser example).
        let webView = WidgetCatalog.builtIn.inputs.filter { $0.protocolName == "WebView" }.map(\.name)
        let declared = Set(WidgetCatalog.builtIn.inputs.map(\.name)).subtracting(["touch", "gestureTimer"] + webView)
        expectEqual(actions, declared)
    }

    @Test("typed text carries CJK, emoji and combining marks; touches hold long presses and several fingers")
    func unicodeAndGestures() throws {
        let steps = try Self.generated(runs: 20, count: 30)
        let texts = steps.filter { $0.action == "typeText" || $0.action == "replaceText" }.compactMap {
            if case .string(let text)? = $0.arguments.last { text } else { nil }
        }
        #expect(texts.contains { $0.contains("日本") || $0.contains("語") })
        #expect(texts.contains { $0.unicodeScalars.contains { $0.properties.isEmojiPresentation } })
        #expect(texts.contains { $0.unicodeScalars.contains { $0.value == 0x301 } })
        let sequences = steps.filter { $0.action == "touches" }.compactMap { step -> [Touch]? in
            guard case .array(let events)? = step.arguments.first else { return nil }
            return events.compactMap { ValueCoding<Touch>.touch.decode($0) }
        }
        #expect(sequences.contains { ($0.last?.timestamp ?? 0) >= 0.5 && $0.count == 2 })  // a long press
        #expect(sequences.contains { Set($0.map(\.id)).count == 2 })  // two fingers
        #expect(sequences.contains { $0.count >= 4 && $0.contains { $0.phase == .moved } })  // a pan
        // Overlapping fingers: one moves while the other is down, begun before and lifted after.
        #expect(
            sequences.contains { touches in
                guard let moved = touches.firstIndex(where: { $0.phase == .moved && $0.id == 2 }) else { return false }
                return touches[..<moved].contains { $0.id == 1 && $0.phase == .began }
                    && touches[moved...].contains { $0.id == 1 && $0.phase == .ended }
            })
    }

    @Test("typing into a note with a character limit often leaves it exactly at the limit, or one unit either side")
    func textAtTheLimit() {
        let note = NoteTextView(identifier: "note", text: "Leave", characterLimit: 20)
        var random = ExplorationRandom(seed: 4)
        var lengths: [Int: Int] = [:]
        for _ in 0..<600 {
            let text = InputGenerators.text(replacing: note.selectedRange, in: note, &random)
            lengths[note.utf16Length + text.utf16.count, default: 0] += 1
        }
        // A third of the draws, split over 19, 20 and 21 units; a random text almost never lands there.
        for length in 19...21 { #expect((40...100).contains(lengths[length, default: 0]), "\(lengths)") }
    }

    @Test("a weight of 0 never generates the input; the same seed, the same steps")
    func weightsAndSeeds() throws {
        let steps = try Self.generated(runs: 5, count: 20, weights: ["touches": 0, "typeText": 0])
        #expect(!steps.contains { $0.action == "touches" || $0.action == "typeText" })
        try expectEqual(Self.generated(runs: 3, count: 20), Self.generated(runs: 3, count: 20))
    }

    @Test("half the draws land on a boundary or a step either side, each of them; the rest in the range")
    func boundaryDraws() {
        var random = ExplorationRandom(seed: 3)
        let draws = (0..<3_000).map { _ in random.value(in: 0...100, orNear: [10, 45], step: 1) }
        let nearBoundary = draws.filter { [9, 10, 11, 44, 45, 46].contains($0) }
        #expect((1_300...1_700).contains(nearBoundary.count), "\(nearBoundary.count) of 3,000")
        expectEqual(Set(nearBoundary), [9, 10, 11, 44, 45, 46])
        #expect(draws.allSatisfy { (0...100).contains($0) })
        var integers = ExplorationRandom(seed: 3)
        let rows = (0..<300).map { _ in integers.value(in: 0...9, orNear: [0, 9]) }
        expectEqual(Set(rows), Set(0...9))  // kept in the range: no -1, no 10
        #expect(rows.filter { $0 == 0 || $0 == 9 }.count > 300 / 4, "the ends come often")
    }

    /// A recognizer of the app's own, as one declared in another package would be: it declares
    /// its thresholds, and touches meet them.
    final class Flick: GestureRecognizer {
        override var thresholds: GestureThresholds { GestureThresholds(distances: [17]) }
    }

    @Test("touches meet the thresholds of the recognizers they reach, read from those recognizers")
    func touchesMeetThresholds() {
        let view = View(identifier: "pad", frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let pan = PanGestureRecognizer(identifier: "pan")
        pan.minimumTranslation = 13
        let press = LongPressGestureRecognizer(identifier: "press")
        press.minimumPressDuration = 0.7
        let doubleTap = TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2)
        doubleTap.maximumIntervalBetweenTaps = 0.42
        for recognizer in [pan, press, doubleTap, Flick(identifier: "flick")] { view.addGestureRecognizer(recognizer) }
        var random = ExplorationRandom(seed: 9)
        var steps: [Double: Int] = [:]  // moves along one axis, by distance
        var exactHolds = 0
        var exactPauses = 0
        for _ in 0..<4_000 {
            guard let touches = TouchGesture.random(on: view, &random) else { continue }
            let moves = touches.filter { $0.phase == .moved }
            for (before, after) in zip(moves, moves.dropFirst()) where before.id == after.id {
                let step = (abs(after.location.x - before.location.x), abs(after.location.y - before.location.y))
                if step.0 == 0 || step.1 == 0 { steps[step.0 + step.1, default: 0] += 1 }
            }
            if touches.count == 2, touches[0].phase == .began, touches[1].phase == .ended,
                touches[1].timestamp == 0.7
            {
                exactHolds += 1
            }
            if touches.count == 4, touches.map(\.phase) == [.began, .ended, .began, .ended],
                abs(touches[2].timestamp - touches[1].timestamp - 0.42) < 1e-6
            {
                exactPauses += 1
            }
        }
        // A threshold comes several times as often as a distance that is none (23), which only
        // the uniform half of the draws reaches.
        let none = steps[23, default: 0]
        #expect(steps[13, default: 0] > 2 * none && steps[17, default: 0] > 2 * none, "\(steps)")
        #expect(exactHolds > 0, "a press held exactly its minimum duration")
        #expect(exactPauses > 0, "a double tap whose pause is exactly the longest interval")
    }

    @Test("the random numbers are xoshiro256** seeded by SplitMix64, the same everywhere")
    func randomNumbers() {
        var random = ExplorationRandom(seed: 0)
        let first = (0..<3).map { _ in random.next() }
        var again = ExplorationRandom(seed: 0)
        expectEqual((0..<3).map { _ in again.next() }, first)
        var other = ExplorationRandom(seed: 0, run: 2)
        #expect(other.next() != first[0])
        var weighted = ExplorationRandom(seed: 1)
        let picks = (0..<200).compactMap { _ in weighted.index(weightedBy: [0, 1, 0, 3]) }
        #expect(picks.count == 200 && Set(picks) == [1, 3])
        #expect(weighted.index(weightedBy: [0, 0]) == nil)
    }
}
