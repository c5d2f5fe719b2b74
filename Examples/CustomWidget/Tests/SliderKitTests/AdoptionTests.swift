import AuditCore
import Foundation
import SliderKit
import Testing

/// The mistakes a user can make while adopting the package with a widget of their own, each made
/// on purpose here: what still compiles is refused when it happens, with one line saying what is
/// wrong and where. (What no longer compiles is checked by `scripts/compile-fail.sh`.)
@Suite("Adopting the package with a widget of one's own: no silent mistake")
struct AdoptionTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    /// `volume.json` with its steps replaced by `steps` and the slider's value by `value`.
    func scenario(steps: String, value: String = "0.3") throws -> Scenario {
        let text = try String(contentsOfFile: scenarioPath, encoding: .utf8)
            .replacingOccurrences(of: #""value": 0.3 }"#, with: "\"value\": \(value) }")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        document["steps"] = try JSONSerialization.jsonObject(with: Data(steps.utf8))
        return try Scenario(data: try JSONSerialization.data(withJSONObject: document), catalog: catalog)
    }

    func scenarioError(steps: String, value: String = "0.3") -> String? {
        do {
            _ = try scenario(steps: steps, value: value)
            return nil
        } catch let error as ScenarioError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test("an input's check runs in code as from a file: the input is refused and the recorder says so")
    func aCheckRefusesAnInputPerformedInCode() throws {
        let root = buildScreen()
        let slider = try require(root.view(atPath: "screen/volume") as? Slider)
        let controller = VolumeControllerV1()
        slider.delegate = controller
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "refused", delegate: "volume.v1"),
            catalog: catalog)
        try recorder.attach(to: root)
        slider.drag(to: 0.37)
        slider.drag(to: 1.2)  // out of range: refused, as a scenario step with it would be
        recorder.detach(from: root)
        let summary = recorder.finish()
        #expect(summary.refusedInputs == ["drag on screen/volume refused: must be in 0...1, not 1.2"])
        #expect(summary.inputs == 1 && slider.value == 0.4)
        // Nothing was recorded for it, so the session replays as it was recorded.
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try Replayer(databasePath: database, registry: .volume, catalog: catalog)
                .replay(session: summary.session, delegate: "volume.v1", mode: mode)
            #expect(report.identical && report.inputsSkipped == 0)
        }
        // The same check, the same words, for a scenario file's step.
        #expect(
            scenarioError(steps: #"[{"action": "drag", "widget": "screen/volume", "value": 1.2}]"#) == nil,
            "a check that depends on state runs when the step runs")
        let file = try scenario(steps: #"[{"action": "drag", "widget": "screen/volume", "value": 1.2}]"#)
        #expect(throws: ScenarioError.self) {
            try ScenarioRunner.record(file, delegate: "volume.v1", registry: .volume, databasePath: database)
        }
        do {
            _ = try ScenarioRunner.record(file, delegate: "volume.v1", registry: .volume, databasePath: database)
        } catch let error as ScenarioError {
            #expect(error.description == "steps[0].value: must be in 0...1, not 1.2")
        }
    }

    @Test("a scenario's property out of range is an error naming the field, before any widget is made")
    func aPropertyOutOfRangeIsRefused() {
        #expect(scenarioError(steps: "[]", value: "2.0") == "root.children[0].value: must be in 0...1")
        #expect(scenarioError(steps: "[]", value: #""loud""#) == "root.children[0].value: expected a number")
    }

    @Test("a step's argument of the wrong type names the field and what was expected, as a built-in's does")
    func inputErrorsAreAsPreciseAsTheBuiltIns() {
        #expect(
            scenarioError(steps: #"[{"action": "drag", "widget": "screen/volume", "value": "loud"}]"#)
                == "steps[0].value: expected a number")
        #expect(
            scenarioError(steps: #"[{"action": "wiggle", "widget": "screen/volume"}]"#)
                == "steps[0].action: unknown action 'wiggle' for a Slider (it takes: ask, drag, reset, touch, touches)")
        #expect(
            scenarioError(steps: #"[{"action": "tapSegment", "widget": "screen/volume"}]"#)
                == "steps[0].widget: 'screen/volume' is a Slider, not a SegmentedControl")
    }

    @Test("a recorder whose catalog lacks the slider refuses the tree at once and leaves no session")
    func anUnregisteredWidgetIsRefusedAndLeavesNoSession() throws {
        let root = buildScreen()
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "unregistered", delegate: "volume.v1"),
            catalog: .builtIn)
        #expect {
            try recorder.attach(to: root)
        } throws: { error in
            "\(error)".hasPrefix("'screen/volume' is a Slider, a widget kind the catalog does not register")
        }
        let summary = recorder.finish()
        #expect(summary.session == 0 && summary.status == .complete && summary.statusWritten)
        #expect(summary.lastError?.hasPrefix("nothing was attached") == true)
        #expect(try AuditStore(path: database, access: .read).sessions().isEmpty)
    }

    @Test(
        "a callback asked outside any input, written as an `ask` step, is recorded at the top level and replays",
        arguments: [ReplayMode.interaction, .isolated])
    func anAskStepReplays(mode: ReplayMode) throws {
        let asked =
            #"{"action": "ask", "widget": "screen/volume", "callback": "#
            + #""SliderDelegate.slider(_:accessibilityLabelFor:)", "arguments": {"value": 0}}"#
        let file = try scenario(steps: "[\(asked)]")
        let summary = try ScenarioRunner.record(
            file, delegate: "volume.v1", registry: .volume, databasePath: database)
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        #expect(events.map(\.callback) == ["slider(_:accessibilityLabelFor:)"])
        #expect(events.first?.parentSeq == nil && events.first?.result == #""muted""#)
        let replayer = Replayer(databasePath: database, registry: .volume, catalog: catalog)
        #expect(try replayer.replay(session: summary.session, delegate: "volume.v1", mode: mode).identical)
        let changed = try replayer.replay(session: summary.session, delegate: "volume.v2", mode: mode)
        #expect(changed.diff.differences.map(describe) == ["result_changed slider(_:accessibilityLabelFor:)"])
    }

    @Test("an `ask` step on a widget of another kind, or with arguments of the wrong shape, names the problem")
    func aWrongAskStepIsRefused() throws {
        let callback = #""callback": "SliderDelegate.slider(_:accessibilityLabelFor:)""#
        let noValue = #"[{"action": "ask", "widget": "screen/volume", \#(callback), "arguments": {}}]"#
        #expect(
            scenarioError(steps: noValue)
                == "steps[0].arguments: expected the arguments of "
                + "SliderDelegate.slider(_:accessibilityLabelFor:): value")
        let onTheList = try scenario(
            steps: #"[{"action": "ask", "widget": "screen/playlist", \#(callback), "arguments": {"value": 0}}]"#)
        #expect {
            try ScenarioRunner.record(onTheList, delegate: "volume.v1", registry: .volume, databasePath: database)
        } throws: { error in
            "\(error)"
                == "steps[0].widget: 'screen/playlist' is a ScrollView, not a widget whose delegate is a "
                + "SliderDelegate"
        }
    }

    @Test("a delegate that adopts none of the tree's protocols is refused before anything is recorded")
    func aDelegateThatConformsToNothingIsRefused() throws {
        final class VolumeLogger {}  // meant to be a SliderDelegate, but the conformance was left out
        var registry = DelegateRegistry()
        registry.register("logger", summary: "forgot its conformance") { VolumeLogger() }
        #expect {
            try ScenarioRunner.record(
                try volumeScenario(), delegate: "logger", registry: registry, databasePath: database)
        } throws: { error in
            "\(error)"
                == "delegate: VolumeLogger conforms to no delegate protocol of the scenario's widgets "
                + "(ScrollViewDelegate, SliderDelegate): it would be asked nothing; make it adopt one, or "
                + "register the widget's delegate property"
        }
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test("a behaviour check records no baseline whose drive performed an input its check refused")
    func aBaselineWithARefusedInputIsNotRecorded() throws {
        let check = BehaviourCheck(databasePath: database, catalog: catalog, mode: .all)
        #expect {
            try check.check(
                "refused", delegateName: "volume.v1", delegate: { VolumeControllerV1() }, build: buildScreen,
                drive: { root in (root.view(atPath: "screen/volume") as? Slider)?.drag(to: 1.2) })
        } throws: { error in
            "\(error)" == "the baseline was not recorded: drag on screen/volume refused: must be in 0...1, not 1.2"
        }
        #expect(!FileManager.default.fileExists(atPath: database))
    }
}
