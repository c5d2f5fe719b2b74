import AuditCore  // public API only: a recognizer of an app's own
import Foundation
import SharedTestSupport
import Testing

/// An app's own recognizer: a horizontal swipe of at least `minimumDistance` points.
final class SwipeGestureRecognizer: GestureRecognizer {
    var minimumDistance: Double
    private var start: Point?

    init(identifier: String, minimumDistance: Double) {
        self.minimumDistance = minimumDistance
        super.init(identifier: identifier)
    }

    override var widgetKind: String { "SwipeGestureRecognizer" }

    override func touchBegan(_ touch: Touch) { start = touch.location }
    override func touchMoved(_ touch: Touch) {}
    override func touchEnded(_ touch: Touch) {
        guard let start else { return transition(to: .failed) }
        // Compared as the built-in recognizers compare, in micro-points: exactly `minimumDistance` counts.
        let swiped = abs(TouchDistance.translation(from: start, to: touch.location).x)
        transition(to: swiped >= TouchDistance.micropoints(minimumDistance) ? .recognized : .failed)
    }
    override func touchCancelled(_ touch: Touch) { transition(to: .failed) }
    override func reset() {
        super.reset()
        start = nil
    }

    struct Properties: Codable, Sendable { var minimumDistance: Double }

    static let kind = GestureKind(
        "SwipeGestureRecognizer", properties: Properties.self,
        make: { id, properties in SwipeGestureRecognizer(identifier: id, minimumDistance: properties.minimumDistance) },
        describe: { Properties(minimumDistance: $0.minimumDistance) })
}

/// Lets a swipe begin only when it ends in the view's right half, read off the recognizer.
final class RightHalfOnly: GestureRecognizerDelegate {
    func gestureRecognizerShouldBegin(_ recognizer: GestureRecognizer) -> Bool {
        recognizer.location(in: recognizer.view).x >= 100
    }
}

@Suite("An app's own gesture recognizer kind")
struct CustomGestureTests {
    static let catalog = WidgetCatalog.builtIn.adding(gestures: SwipeGestureRecognizer.kind)
    static let registry: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("rightHalf", summary: "swipes in the right half") { RightHalfOnly() }
        return registry
    }()
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    static let scenario = #"""
        {"name": "swipes", "root": {"kind": "View", "id": "card", "frame": [0, 0, 200, 100],
          "gestures": [{"kind": "SwipeGestureRecognizer", "id": "swipe", "minimumDistance": 40}]},
         "steps": [
          {"action": "touches", "widget": "card", "events": [
            {"id": 1, "phase": "began", "x": 60, "y": 50, "t": 0},
            {"id": 1, "phase": "moved", "x": 110, "y": 50, "t": 0.05},
            {"id": 1, "phase": "ended", "x": 150, "y": 50, "t": 0.1}]},
          {"action": "touches", "widget": "card", "events": [
            {"id": 1, "phase": "began", "x": 110, "y": 50, "t": 1},
            {"id": 1, "phase": "ended", "x": 20, "y": 50, "t": 1.1}]}]}
        """#

    @Test func aScenarioNamesItAndBothReplaysAreIdentical() throws {
        let scenario = try Scenario(data: Data(Self.scenario.utf8), catalog: Self.catalog)
        let summary = try ScenarioRunner.record(
            scenario, delegate: "rightHalf", registry: Self.registry, databasePath: database)
        let asked = try AuditStore(path: database, access: .read).timeline(of: summary.session).filter {
            $0.callback == "gestureRecognizerShouldBegin(_:)"
        }
        expectEqual(asked.map(\.widget), ["card#swipe", "card#swipe"])
        expectEqual(asked.map(\.result), ["true", "false"])
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            #expect(try replayer.replay(session: summary.session, delegate: "rightHalf", mode: mode).identical)
        }
    }

    @Test func aSessionRecordedInCodeStoresItAndReplays() throws {
        let delegate = RightHalfOnly()
        let card = View(identifier: "card", frame: Rect(x: 0, y: 0, width: 200, height: 100))
        let swipe = SwipeGestureRecognizer(identifier: "swipe", minimumDistance: 40)
        swipe.delegate = delegate
        card.addGestureRecognizer(swipe)
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "swipes", delegate: "rightHalf"),
            catalog: Self.catalog)
        try recorder.attach(to: card)
        card.touchDispatcher.perform([
            Touch(id: 1, location: Point(x: 150, y: 50), phase: .began, timestamp: 0),
            Touch(id: 1, location: Point(x: 60, y: 50), phase: .ended, timestamp: 0.1),
        ])
        let summary = recorder.finish()
        let stored = try Scenario(
            data: Data(try AuditStore(path: database, access: .read).scenarioSource(of: summary.session).utf8),
            catalog: Self.catalog)
        expectEqual(stored.root.build().gestureRecognizers.map(\.widgetKind), ["SwipeGestureRecognizer"])
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            #expect(try replayer.replay(session: summary.session, delegate: "rightHalf", mode: mode).identical)
        }
    }

    @Test func anUnregisteredRecognizerIsRefused() throws {
        #expect(throws: ScenarioError.self) { try Scenario(data: Data(Self.scenario.utf8), catalog: .builtIn) }
        let card = View(identifier: "card")
        card.addGestureRecognizer(SwipeGestureRecognizer(identifier: "swipe", minimumDistance: 40))
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "x", delegate: "none"), catalog: .builtIn)
        #expect(throws: UnregisteredKind.self) { try recorder.attach(to: card) }
        recorder.finish()
    }
}
