import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Gesture recognizers under audit")
struct GestureRecordingTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func timelineLines(_ session: Int64) throws -> [String] {
        AuditCoreTests.timelineLines(
            try AuditStore(path: database, access: .read).timeline(of: session), overrides: true)
    }

    @Test func allSevenCallbacksAreRecordedWithArgumentsResultAndVeto() throws {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let tap = fixture.add(TapGestureRecognizer(identifier: "tap"), to: fixture.cell)
        let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.cell)
        let pan = fixture.add(PanGestureRecognizer(identifier: "pan"), to: fixture.container)
        for recognizer in [tap, press, pan] as [GestureRecognizer] { recognizer.delegate = delegate }
        delegate.shouldReceive = { recognizer, _ in recognizer !== tap }
        delegate.canPrevent = { recognizer, _ in recognizer !== press }
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: fixture.root)
        fixture.dispatcher.perform([touch(.began, 50, 50, 0), touch(.moved, 80, 50, 0.7), touch(.ended, 80, 50, 0.8)])
        let summary = recorder.finish()
        expectEqual(fixture.actions.count, 5)  // press began, changed, ended; pan began, ended
        expectEqual(summary.callbacks, delegate.calls.count)
        expectEqual(summary.vetoes, 3)

        let cell = "root/container/cell"
        let (pressPath, panPath) = ("\(cell)#press", "root/container#pan")
        let down = #"{"id":1,"phase":"began","t":0.0,"x":50.0,"y":50.0}"#
        let move = #"{"id":1,"phase":"moved","t":0.7,"x":80.0,"y":50.0}"#
        let lift = #"{"id":1,"phase":"ended","t":0.8,"x":80.0,"y":50.0}"#
        func states(_ pan: String, _ press: String, view: Bool = true) -> String {
            #"{"states":{"\#(panPath)":"\#(pan)","\#(pressPath)":"\#(press)"}"#
                + (view ? #","view":"\#(cell)"}"# : "}")
        }
        func other(_ label: String, _ path: String) -> String { #"{"\#(label)":"\#(path)"}"# }
        let g = "gestureRecognizer"
        try expectEqual(
            timelineLines(summary.session),
            [
                #"1 - input \#(cell) touch {"touch":\#(down)} \#(states("possible", "possible")) - -"#,
                #"2 1 callback \#(cell)#tap \#(g)(_:shouldReceive:) {"touch":\#(down)} false true true"#,
                #"3 1 callback \#(pressPath) \#(g)(_:shouldReceive:) {"touch":\#(down)} true false true"#,
                #"4 1 callback \#(panPath) \#(g)(_:shouldReceive:) {"touch":\#(down)} true false true"#,
                "5 1 callback \(panPath) \(g)(_:shouldRequireFailureOf:) \(other("otherGestureRecognizer", pressPath)) false kept true",
                "6 1 callback \(pressPath) \(g)(_:shouldBeRequiredToFailBy:) \(other("otherGestureRecognizer", panPath)) false kept true",
                "7 1 callback \(pressPath) \(g)(_:shouldRequireFailureOf:) \(other("otherGestureRecognizer", panPath)) false kept true",
                "8 1 callback \(panPath) \(g)(_:shouldBeRequiredToFailBy:) \(other("otherGestureRecognizer", pressPath)) false kept true",
                #"9 - input \#(pressPath) gestureTimer {"timer":"minimumPressDuration","t":0.5} \#(states("possible", "began", view: false)) - -"#,
                "10 9 callback \(pressPath) gestureRecognizerShouldBegin(_:) {} true false true",
                // The would-be-prevented pan is asked first (#13 item 6).
                "11 9 callback \(panPath) \(g)(_:shouldRecognizeSimultaneouslyWith:) \(other("otherGestureRecognizer", pressPath)) false kept true",
                "12 9 callback \(pressPath) \(g)(_:shouldRecognizeSimultaneouslyWith:) \(other("otherGestureRecognizer", panPath)) false kept true",
                // The prevented recognizer is asked first (#13 item 10), then the preventing one.
                "13 9 callback \(panPath) \(g)(_:canBePreventedBy:) \(other("preventingGestureRecognizer", pressPath)) true false true",
                "14 9 callback \(pressPath) \(g)(_:canPrevent:) \(other("preventedGestureRecognizer", panPath)) false true true",
                #"15 - input \#(cell) touch {"touch":\#(move)} \#(states("began", "changed")) - -"#,
                "16 15 callback \(panPath) gestureRecognizerShouldBegin(_:) {} true false true",
                "17 15 callback \(panPath) \(g)(_:shouldRecognizeSimultaneouslyWith:) \(other("otherGestureRecognizer", pressPath)) false kept true",
                "18 15 callback \(pressPath) \(g)(_:shouldRecognizeSimultaneouslyWith:) \(other("otherGestureRecognizer", panPath)) false kept true",
                "19 15 callback \(panPath) \(g)(_:canBePreventedBy:) \(other("preventingGestureRecognizer", pressPath)) true false true",
                "20 15 callback \(pressPath) \(g)(_:canPrevent:) \(other("preventedGestureRecognizer", panPath)) false true true",
                #"21 - input \#(cell) touch {"touch":\#(lift)} \#(states("ended", "ended")) - -"#,
            ])
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        #expect(
            events.allSatisfy { $0.protocolName == ($0.kind == .input ? nil : GestureRecognizerCallbacks.protocolName) }
        )
        #expect(Set(events.map(\.callback)).isSuperset(of: GestureRecognizer.callbacks.descriptors.map(\.name)))
    }

    @Test func aShouldBeginVetoAndASimultaneityOverrideAreRecordedApart() throws {
        let fixture = GestureFixture()
        let delegate = ScriptedGestureDelegate()
        let vetoed = fixture.add(TapGestureRecognizer(identifier: "vetoed"), to: fixture.cell)
        let first = fixture.add(TapGestureRecognizer(identifier: "first"), to: fixture.cell)
        let second = fixture.add(TapGestureRecognizer(identifier: "second"), to: fixture.cell)
        for recognizer in [vetoed, first, second] { recognizer.delegate = delegate }
        delegate.shouldBegin = { $0 !== vetoed }
        delegate.simultaneous = { _, _ in true }
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: fixture.root)
        fixture.dispatcher.perform(tapEvents(at: Point(x: 50, y: 50), time: 0))
        let summary = recorder.finish()
        expectEqual(fixture.actions, ["cell#first ended @0.1", "cell#second ended @0.1"])
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let begins = events.filter { $0.callback == "gestureRecognizerShouldBegin(_:)" }
        expectEqual(begins.compactMap(\.widget), ["vetoed", "first", "second"].map { "root/container/cell#\($0)" })
        expectEqual(begins.map(\.result), ["false", "true", "true"])
        expectEqual(begins.map(\.vetoed), [true, false, false])
        let simultaneous = events.filter { $0.callback == "gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:)" }
        // The recognizer that would be prevented is asked (#13 item 6): its true lands on its row.
        expectEqual(simultaneous.map(\.widget), ["root/container/cell#second"])
        expectEqual(simultaneous.map(\.arguments), [#"{"otherGestureRecognizer":"root/container/cell#first"}"#])
        expectEqual(simultaneous.map(\.result), ["true"])
        expectEqual(simultaneous.map(\.overridden), [true])  // true overrides the default, false
        expectEqual(simultaneous.map(\.vetoed), [nil])
        expectEqual(simultaneous.map(\.effect), [.overridden])
        expectEqual(summary.vetoes, 1)
    }

    @Test func unimplementedQuestionsAreRecordedAsDefaultUsed() throws {
        final class OnlyCanPrevent: GestureRecognizerDelegate {
            func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, canPrevent other: GestureRecognizer) -> Bool
            {
                false
            }
        }
        let fixture = GestureFixture()
        let delegate = OnlyCanPrevent()
        let single = fixture.add(TapGestureRecognizer(identifier: "single"), to: fixture.cell)
        let rootTap = fixture.add(TapGestureRecognizer(identifier: "rootTap"), to: fixture.root)
        single.delegate = delegate
        rootTap.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: fixture.root)
        fixture.dispatcher.perform(tapEvents(at: Point(x: 50, y: 50), time: 0))
        let summary = recorder.finish()
        // canPrevent false: the cell's tap does not stop the root's, and both recognize.
        expectEqual(fixture.actions, ["cell#single ended @0.1", "root#rootTap ended @0.1"])
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let callbacks = events.filter { $0.kind == .callback }
        #expect(
            callbacks.filter { $0.callback == "gestureRecognizer(_:canPrevent:)" }.allSatisfy { $0.implemented == true }
        )
        #expect(
            callbacks.filter { $0.callback != "gestureRecognizer(_:canPrevent:)" }.allSatisfy {
                $0.implemented == false
            })
        expectEqual(callbacks.first { $0.callback == "gestureRecognizer(_:shouldReceive:)" }?.result, "true")
    }

    @Test func recognizersAreWidgetsUnderTheirViewIncludingLaterOnes() throws {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let cell = View(identifier: "cell", frame: Rect(x: 0, y: 0, width: 50, height: 50))
        root.addSubview(cell)
        let tap = TapGestureRecognizer(identifier: "tap")
        cell.addGestureRecognizer(tap)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        #expect(tap.auditLink != nil)
        let press = LongPressGestureRecognizer(identifier: "press")
        cell.addGestureRecognizer(press)  // added after attach: audited at once
        #expect(press.auditLink != nil)
        let late = View(identifier: "late")
        let pan = PanGestureRecognizer(identifier: "pan")
        late.addGestureRecognizer(pan)
        root.addSubview(late)  // a subtree added after attach, with its recognizer
        #expect(pan.auditLink != nil)

        let first = ScriptedGestureDelegate()
        tap.delegate = first
        let second = ScriptedGestureDelegate()
        tap.delegate = second  // retargets at once; the recognizer stays audited
        #expect(tap.delegate === second)
        #expect(tap.auditLink != nil)
        root.touchDispatcher.perform(tapEvents(at: Point(x: 10, y: 10), time: 0))
        #expect(first.calls.isEmpty)
        expectEqual(second.calls.first, "tap.shouldReceive(1) true")

        recorder.detach(from: root)
        #expect([tap, press, pan].allSatisfy { $0.auditLink == nil })
        #expect(tap.delegate === second)
        let summary = recorder.finish()
        let widgets = try ReadOnlyQuery.run(
            """
            SELECT w.path, w.kind, p.path FROM widgets AS w LEFT JOIN widgets AS p ON p.session = w.session
            AND p.id = w.parent WHERE w.session = \(summary.session) ORDER BY w.id
            """, databasePath: database)
        expectEqual(
            widgets.rows,
            [
                [.text("root"), .text("View"), .null],
                [.text("root/cell"), .text("View"), .text("root")],
                [.text("root/cell#tap"), .text("TapGestureRecognizer"), .text("root/cell")],
                [.text("root/cell#press"), .text("LongPressGestureRecognizer"), .text("root/cell")],
                [.text("root/late"), .text("View"), .text("root")],
                [.text("root/late#pan"), .text("PanGestureRecognizer"), .text("root/late")],
            ])
    }

    @Test func aRemovedRecognizerLeavesTheAudit() throws {
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let tap = TapGestureRecognizer(identifier: "tap")
        root.addGestureRecognizer(tap)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: root)
        #expect(tap.auditLink != nil)
        root.removeGestureRecognizer(tap)
        #expect(tap.auditLink == nil)
        recorder.finish()
    }

    // Seeds whose runs reach every action below (42 stopped reaching "press began" when the
    // prevention order changed, #13 item 10: the delegate answers by a running count).
    @Test(arguments: [1, 2, 3, 43, 2026] as [UInt64])
    func auditingNeverChangesGestureBehaviour(seed: UInt64) throws {
        struct Outcome: Equatable {
            let actions: [String]
            let events: Int
        }
        let (plain, summary) = try expectAuditingChangesNothing(database: database) { recorder in
            let run = runRandomTouches(seed: seed, strokes: 300, recorder: recorder)
            return (run.calls, Outcome(actions: run.actions, events: run.events))
        }
        #expect(summary.inputs >= plain.state.events)
        // The random runs exercise every kind of recognizer and every question.
        for name in ["single ended", "double ended", "press began", "pan changed", "swipe ended", "rootTap ended"] {
            #expect(plain.state.actions.contains { $0.contains(name) }, "\(name)")
        }
        let questions = Set(plain.calls.map { $0.split(separator: ".")[1].prefix { $0.isLetter } })
        expectEqual(
            questions,
            [
                "shouldBegin", "shouldReceive", "simultaneous", "requireFailure", "beRequiredToFail", "canPrevent",
                "canBePrevented",
            ])
    }

    @Test func recognizerAndDelegateLeaveNoRetainCycle() throws {
        weak var weakRoot: View?
        weak var weakRecognizer: GestureRecognizer?
        weak var weakDelegate: ScriptedGestureDelegate?
        weak var weakDispatcher: TouchDispatcher?
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        do {
            let fixture = GestureFixture()
            let delegate = ScriptedGestureDelegate()
            let press = fixture.add(LongPressGestureRecognizer(identifier: "press"), to: fixture.cell)
            press.delegate = delegate
            try recorder.attach(to: fixture.root)
            // Let go in the middle of a sequence: the dispatcher still holds its recognizers then.
            fixture.dispatcher.send(touch(.began, 50, 50, 0))
            fixture.dispatcher.advance(to: 0.6)
            expectEqual(fixture.actions, ["cell#press began @0.5"])
            weakRoot = fixture.root
            weakRecognizer = press
            weakDelegate = delegate
            weakDispatcher = fixture.dispatcher
        }
        #expect(weakRoot == nil)
        #expect(weakRecognizer == nil)
        #expect(weakDelegate == nil)
        #expect(weakDispatcher == nil)
        recorder.finish()
    }
}

/// Answers every question from a counter, so random runs see every answer, and logs each call
/// with the recognizer's path.
final class CountingGestureDelegate: GestureRecognizerDelegate {
    var calls: [String] = []
    private var asked = 0

    private func answer(_ recognizer: GestureRecognizer, _ question: String, every period: Int, _ usual: Bool) -> Bool {
        asked += 1
        let answer = asked % period == 0 ? !usual : usual
        calls.append("\(recognizer.path).\(question) \(answer)")
        return answer
    }

    func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
        answer(gestureRecognizer, "shouldBegin", every: 5, true)
    }

    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
        answer(gestureRecognizer, "shouldReceive(\(touch.id))", every: 7, true)
    }

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        answer(gestureRecognizer, "simultaneous(\(otherGestureRecognizer.path))", every: 3, false)
    }

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        answer(gestureRecognizer, "requireFailure(\(otherGestureRecognizer.path))", every: 4, false)
    }

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, shouldBeRequiredToFailBy otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        answer(gestureRecognizer, "beRequiredToFail(\(otherGestureRecognizer.path))", every: 6, false)
    }

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, canPrevent preventedGestureRecognizer: GestureRecognizer
    ) -> Bool {
        answer(gestureRecognizer, "canPrevent(\(preventedGestureRecognizer.path))", every: 5, true)
    }

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, canBePreventedBy preventingGestureRecognizer: GestureRecognizer
    ) -> Bool {
        answer(gestureRecognizer, "canBePrevented(\(preventingGestureRecognizer.path))", every: 4, true)
    }
}

/// A screen with every kind of recognizer, driven by `strokes` random fingers from `seed` (some
/// overlapping in time, some outside the window, some cancelled). Returns the delegate's log, the
/// actions the recognizers ran, and how many touch events were sent.
func runRandomTouches(seed: UInt64, strokes: Int, recorder: Recorder?) -> (
    calls: [String], actions: [String], events: Int
) {
    let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 400, height: 800))
    let container = View(identifier: "container", frame: Rect(x: 0, y: 0, width: 400, height: 600))
    let cell = View(identifier: "cell", frame: Rect(x: 20, y: 20, width: 200, height: 200))
    let button = View(identifier: "button", frame: Rect(x: 250, y: 20, width: 100, height: 100))
    let disabled = View(identifier: "disabled", frame: Rect(x: 20, y: 300, width: 200, height: 200))
    let footer = View(identifier: "footer", frame: Rect(x: 0, y: 600, width: 400, height: 200))
    root.addSubview(container)
    root.addSubview(footer)
    for view in [cell, button, disabled] { container.addSubview(view) }
    disabled.isUserInteractionEnabled = false

    let single = TapGestureRecognizer(identifier: "single")
    let double = TapGestureRecognizer(identifier: "double", numberOfTapsRequired: 2)
    single.require(toFail: double)
    let swipe = PanGestureRecognizer(identifier: "swipe")
    swipe.minimumTranslation = 20
    let placements: [(View, GestureRecognizer)] = [
        (container, PanGestureRecognizer(identifier: "pan")), (cell, single), (cell, double),
        (cell, LongPressGestureRecognizer(identifier: "press")), (button, TapGestureRecognizer(identifier: "tap")),
        (disabled, TapGestureRecognizer(identifier: "never")), (footer, LongPressGestureRecognizer(identifier: "hold")),
        (footer, swipe), (root, TapGestureRecognizer(identifier: "rootTap")),
    ]
    let delegate = CountingGestureDelegate()
    var actions: [String] = []
    for (view, recognizer) in placements {
        view.addGestureRecognizer(recognizer)
        recognizer.delegate = delegate
        recognizer.addAction { recognizer in
            var line = "\(recognizer.path) \(recognizer.state) @\(recognizer.view!.touchDispatcher.now)"
            if let pan = recognizer as? PanGestureRecognizer { line += " \(pan.translation) \(pan.velocity)" }
            actions.append(line)
        }
    }
    try! recorder?.attach(to: root)

    var random = SeededGenerator(seed: seed)
    var events: [Touch] = []
    var start = 0.0
    var finger = 0
    /// One finger: touches down at `point` at `time`, moves `moves` times by up to `reach` pt, lifts.
    func stroke(at point: Point, time: Double, moves: Int, reach: Double, step: ClosedRange<Double>) {
        finger += 1
        var (point, time) = (point, time)
        events.append(Touch(id: finger, location: point, phase: .began, timestamp: time))
        for _ in 0..<moves {
            time += Double.random(in: step, using: &random)
            point.x += Double.random(in: -reach...reach, using: &random)
            point.y += Double.random(in: -reach...reach, using: &random)
            events.append(Touch(id: finger, location: point, phase: .moved, timestamp: time))
        }
        time += Double.random(in: step, using: &random)
        let phase: Touch.Phase = Int.random(in: 0..<12, using: &random) == 0 ? .cancelled : .ended
        events.append(Touch(id: finger, location: point, phase: phase, timestamp: time))
    }
    for _ in 0..<strokes {
        start += Double.random(in: 0.05...0.9, using: &random)
        // Half the strokes start on the cell, where most recognizers compete.
        let point =
            Bool.random(using: &random)
            ? Point(x: Double.random(in: 20...220, using: &random), y: Double.random(in: 20...220, using: &random))
            : Point(x: Double.random(in: 0...420, using: &random), y: Double.random(in: 0...820, using: &random))
        switch Int.random(in: 0..<4, using: &random) {
        case 0:  // a tap, often followed by a second one
            stroke(at: point, time: start, moves: 0, reach: 0, step: 0.03...0.2)
            if Bool.random(using: &random) {
                start += Double.random(in: 0.2...0.5, using: &random)
                stroke(at: point, time: start, moves: 0, reach: 0, step: 0.03...0.2)
            }
        case 1:  // a press, held still or nearly
            stroke(at: point, time: start, moves: Int.random(in: 0...2, using: &random), reach: 6, step: 0.1...0.6)
        case 2:  // a drag
            stroke(at: point, time: start, moves: Int.random(in: 1...5, using: &random), reach: 30, step: 0.02...0.2)
        default:  // anything
            stroke(at: point, time: start, moves: Int.random(in: 0...4, using: &random), reach: 25, step: 0.02...0.5)
        }
    }
    // A stable sort keeps each finger's own events in order.
    let ordered = events.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
        .map(\.element)
    try! Touch.validate(ordered)
    root.touchDispatcher.perform(ordered)
    return (delegate.calls, actions, ordered.count)
}
