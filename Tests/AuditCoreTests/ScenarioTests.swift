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

@Suite("Scenario format")
struct ScenarioTests {
    static let valid = """
        {
          "format": 1,
          "name": "small",
          "delegate": "checkout.v1",
          "root": {
            "kind": "View", "id": "root",
            "children": [
              { "kind": "SegmentedControl", "id": "pick", "frame": [0, 0, 100, 30], "segments": ["a", "b"], "selected": 0 }
            ]
          },
          "steps": [
            { "action": "tapSegment", "widget": "root/pick", "segment": 1 },
            { "action": "selectSegment", "widget": "root/pick", "segment": 0, "notify": false }
          ]
        }
        """

    func parse(_ text: String) throws(ScenarioError) -> Scenario {
        try Scenario(data: Data(text.utf8), catalog: .builtIn)
    }

    @Test func parsesAValidScenario() throws {
        let scenario = try parse(Self.valid)
        expectEqual(scenario.name, "small")
        expectEqual(scenario.delegate, "checkout.v1")
        expectEqual(
            scenario.steps,
            [
                .tapSegment(widget: "root/pick", segment: 1),
                .selectSegment(widget: "root/pick", segment: 0, notify: false),
            ])
        let tree = scenario.root.build()
        let control = try #require(tree.view(atPath: "root/pick") as? SegmentedControl)
        expectEqual(control.segments, ["a", "b"])
        expectEqual(control.frame, Rect(x: 0, y: 0, width: 100, height: 30))
    }

    @Test func theShippedExampleParsesAndRuns() throws {
        let scenario = try Examples.checkout()
        expectEqual(scenario.steps.count, 28)
        let delegate = try DelegateRegistry.examples.entry(named: "checkout.v1").make()
        let tree = try ScenarioRunner.run(scenario, delegate: delegate).root
        expectEqual((tree.view(atPath: "checkout/payment") as? SegmentedControl)?.selectedSegmentIndex, 1)
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        #expect {
            try parse("{\n  \"name\": \"x\",\n  \"steps\": [1, 2,, 3]\n}")
        } throws: { error in
            (error as? ScenarioError)?.location == "line 3, column 18"
        }
    }

    @Test func invalidUTF8IsNamedWithItsPosition() {
        var bytes = Array("{\n \"name\": \"".utf8)
        bytes += [0xFF, 0x22, 0x7D]
        #expect {
            try Scenario(data: Data(bytes), catalog: .builtIn)
        } throws: { error in
            (error as? ScenarioError)?.description == "line 2, column 11: invalid UTF-8"
        }
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        let replace: String
        let with: String
        let location: String
        let message: String
        var testDescription: String { location }
    }

    @Test(arguments: [
        BadCase(
            replace: #""segment": 1"#, with: #""segment": "one""#, location: "steps[0].segment",
            message: "expected an integer"),
        BadCase(
            replace: #""segment": 1"#, with: #""segment": 5"#, location: "steps[0].segment", message: "out of range"),
        BadCase(
            replace: #""widget": "root/pick", "segment": 1"#, with: #""widget": "root/nope", "segment": 1"#,
            location: "steps[0].widget", message: "no widget"),
        BadCase(
            replace: #""action": "tapSegment""#, with: #""action": "swipe""#, location: "steps[0].action",
            message: "unknown action"),
        BadCase(
            replace: #""kind": "SegmentedControl""#, with: #""kind": "Slider""#, location: "root.children[0].kind",
            message: "unknown widget kind"),
        BadCase(
            replace: #""selected": 0"#, with: #""selected": 0, "colour": "red""#, location: "root.children[0].colour",
            message: "unknown field"),
        BadCase(
            replace: #""segments": ["a", "b"]"#, with: #""segments": []"#, location: "root.children[0].segments",
            message: "at least one"),
        BadCase(
            replace: #""frame": [0, 0, 100, 30]"#, with: #""frame": [0, 0]"#, location: "root.children[0].frame",
            message: "[x, y, width, height]"),
        BadCase(
            replace: #""notify": false"#, with: #""notify": 0"#, location: "steps[1].notify", message: "true or false"),
        BadCase(replace: #""format": 1"#, with: #""format": 2"#, location: "format", message: "not supported"),
        BadCase(replace: #""name": "small","#, with: "", location: "name", message: "missing required field"),
        BadCase(replace: #""id": "pick""#, with: #""id": "a/b""#, location: "root.children[0].id", message: "no '/'"),
        BadCase(replace: #""id": "pick""#, with: #""id": "a#b""#, location: "root.children[0].id", message: "'#'"),
    ])
    func badFieldsAreNamedByPath(_ bad: BadCase) {
        let text = Self.valid.replacingOccurrences(of: bad.replace, with: bad.with)
        #expect(text != Self.valid)
        #expect {
            try parse(text)
        } throws: { error in
            guard let error = error as? ScenarioError else { return false }
            return error.location == bad.location && error.message.contains(bad.message)
        }
    }

    @Test func aStepAgainstTheWrongWidgetKindIsRefused() {
        let text = Self.valid.replacingOccurrences(
            of: #""widget": "root/pick", "segment": 1"#, with: #""widget": "root", "segment": 1"#)
        #expect {
            try parse(text)
        } throws: { error in
            (error as? ScenarioError)?.message == "'root' is a View, not a SegmentedControl"
        }
    }

    @Test func missingFileIsAScenarioError() {
        #expect {
            try Scenario(contentsOf: "/nonexistent/scenario.json", catalog: .builtIn)
        } throws: { error in
            "\(error)".contains("cannot read scenario /nonexistent/scenario.json")
        }
    }
}

@Suite("Scenarios that could crash a run are refused")
struct ScenarioBoundsTests {
    static let base = #"{"kind":"View","id":"r","frame":[0,0,300,300],"children":[CHILD]}"#

    @Test(arguments: [
        (
            #"{"kind":"View","id":"v","gestures":[{"kind":"TapGestureRecognizer","id":"t","requireToFail":["r/v#t"]}]}"#,
            "root.children[0].gestures[0].requireToFail[0]"
        ),
        (#"{"kind":"TableView","id":"t","rows":[9223372036854775807,1]}"#, "root.children[0].rows[0]"),
        (#"{"kind":"TableView","id":"t","rows":[1],"rowHeight":1e308}"#, "root.children[0].rowHeight"),
        (#"{"kind":"ScrollView","id":"s","contentSize":[1e300,10]}"#, "root.children[0].contentSize[0]"),
    ])
    func refusedWithItsPath(child: String, location: String) {
        let text = #"{"name":"s","root":\#(Self.base.replacingOccurrences(of: "CHILD", with: child)),"steps":[]}"#
        #expect {
            try Scenario(data: Data(text.utf8), catalog: .builtIn)
        } throws: { error in
            (error as? ScenarioError)?.location == location
        }
    }

    @Test func aTouchSequenceAtAnInfiniteTimeIsRefusedBeforeItRuns() throws {
        let text = #"""
            {"name":"s","root":{"kind":"View","id":"r","frame":[0,0,300,300]},"steps":[
              {"action":"touches","widget":"r","events":[{"id":1,"phase":"began","x":1,"y":1,"t":1e308},
                                                        {"id":1,"phase":"ended","x":1,"y":1,"t":1.5e308}]}]}
            """#
        // A time the nanosecond clock cannot hold is refused when the file is read (VirtualTime),
        // naming the event and why.
        #expect {
            try Scenario(data: Data(text.utf8), catalog: .builtIn)
        } throws: { error in
            "\(error)" == "steps[0].events[0].t: 1e+308 s is past the end of the virtual clock (at most 9223372036 s)"
        }
    }

    /// A touch time just past the clock's end, in a sequence and in a single `touch` step: the
    /// error names the event's `t` and the clock's end, not the whole field's shape.
    @Test(arguments: [
        (
            #"{"action":"touches","widget":"r","events":[{"id":1,"phase":"began","x":1,"y":1,"t":1e10},"#
                + #"{"id":1,"phase":"ended","x":1,"y":1,"t":1e10}]}"#,
            "steps[0].events[0].t: 10000000000.0 s is past the end of the virtual clock (at most 9223372036 s)"
        ),
        (
            #"{"action":"touch","widget":"r","touch":{"id":1,"phase":"began","x":1,"y":1,"t":9223372036.8}}"#,
            "steps[0].touch.t: 9223372036.8 s is past the end of the virtual clock (at most 9223372036 s)"
        ),
    ])
    func aTouchTimePastTheClockNamesTheEvent(step: String, message: String) throws {
        let text = #"{"name":"s","root":{"kind":"View","id":"r","frame":[0,0,300,300]},"steps":["# + step + "]}"
        #expect {
            try Scenario(data: Data(text.utf8), catalog: .builtIn)
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func aTimerBetweenTouchesAndAnotherStepReplaysIdentically() throws {
        let text = #"""
            {"name":"t","root":{"kind":"View","id":"root","frame":[0,0,300,300],"children":[
             {"kind":"SegmentedControl","id":"seg","frame":[0,0,300,30],"segments":["a","b"],"selected":0},
             {"kind":"View","id":"pay","frame":[0,100,300,50],"gestures":[
               {"kind":"TapGestureRecognizer","id":"one","requireToFail":["root/pay#two"]},
               {"kind":"TapGestureRecognizer","id":"two","taps":2}]}]},
             "steps":[{"action":"touches","widget":"root","events":[{"id":1,"phase":"began","x":10,"y":120,"t":0},
                                                                     {"id":1,"phase":"ended","x":10,"y":120,"t":0.05}]},
                      {"action":"tapSegment","widget":"root/seg","segment":1}]}
            """#
        let folder = TemporaryDirectory()
        let database = folder.path("a.sqlite")
        let session = try ScenarioRunner.record(
            try Scenario(data: Data(text.utf8), catalog: .builtIn), delegate: "checkout.v1", registry: .examples,
            databasePath: database
        ).session
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
                session: session, delegate: "checkout.v1", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences)")
        }
    }
}
