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

/// Validation inside nested objects (points, index paths, ranges, touches), touch phases followed
/// through the whole file, and a leading byte order mark: each error names the exact field by its
/// path and says why.
@Suite("Scenario validation of nested objects and touches")
struct NestedValidationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The fuzzer's signup seed: every widget kind and every action, touches included.
    static let signup =
        (try? String(
            contentsOf: packageRoot.appendingPathComponent("scripts/fuzz/seeds/scenario/signup.json"), encoding: .utf8))
        ?? ""

    static func parse(_ text: String) throws(ScenarioError) -> Scenario {
        try Scenario(data: Data(text.utf8), catalog: .builtIn)
    }

    /// The signup seed with `old` replaced by `new`.
    static func signup(replacing old: String, with new: String) -> String {
        precondition(signup.contains(old), "the signup seed no longer contains \(old)")
        return signup.replacingOccurrences(of: old, with: new)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let location: String
        let message: String
        var testDescription: String { name }

        init(_ name: String, _ old: String, _ new: String, _ location: String, _ message: String) {
            self.name = name
            text = NestedValidationTests.signup(replacing: old, with: new)
            self.location = location
            self.message = message
        }
    }

    static let drag = #"{ "x": 0, "y": -40 }"#
    static let velocity = #"{ "x": 0, "y": 0.5 }"#
    static let offset = #"{ "x": 0, "y": 120 }"#
    static let row = #"{ "section": 0, "row": 1 }"#
    static let range = #"{ "location": 0, "length": 4 }"#
    static let firstEvent = #"{ "id": 1, "phase": "began", "x": 100, "y": 720, "t": 0 }"#
    static let secondEvent = #"{ "id": 1, "phase": "moved", "x": 130, "y": 720, "t": 0.2 }"#
    static let thirdEvent = #"{ "id": 1, "phase": "ended", "x": 130, "y": 720, "t": 0.7 }"#
    static let touchDown = #"{ "id": 2, "phase": "began", "x": 50, "y": 725, "t": 2 }"#
    static let touchUp = #"{ "id": 2, "phase": "cancelled", "x": 50, "y": 725, "t": 2.1 }"#
    static let lastStep =
        #"{ "action": "touch", "widget": "root", "touch": { "id": 2, "phase": "cancelled", "x": 50, "y": 725, "t": 2.1 } }"#

    static let cases: [Case] = [
        // Unknown, missing and mistyped members of nested objects.
        Case(
            "an unknown member of a translation", drag, #"{ "x": 0, "y": -40, "z": 1 }"#, "steps[11].translation.z",
            "unknown field"),
        Case("a velocity without y", velocity, #"{ "x": 0 }"#, "steps[12].velocity.y", "missing required field"),
        Case(
            "a content offset of text", offset, #"{ "x": "0", "y": 120 }"#, "steps[14].contentOffset.x",
            "expected a number"),
        Case(
            "a point that is not an object", drag, "[0, -40]", "steps[11].translation",
            #"expected {"x": number, "y": number}"#),
        Case(
            "an unknown member of an index path", row, #"{ "section": 0, "row": 1, "column": 2 }"#,
            "steps[7].indexPath.column", "unknown field"),
        Case("a negative row", row, #"{ "section": 0, "row": -1 }"#, "steps[7].indexPath.row", "must be at least 0"),
        Case(
            "an unknown member of a range", range, #"{ "location": 0, "length": 4, "end": 4 }"#, "steps[3].range.end",
            "unknown field"),
        Case(
            "a negative location", range, #"{ "location": -1, "length": 4 }"#, "steps[3].range.location",
            "a negative location (-1): ranges count UTF-16 units from 0"),
        Case(
            "a negative length", range, #"{ "location": 0, "length": -4 }"#, "steps[3].range.length",
            "a negative length (-4): ranges count UTF-16 units from 0"),
        Case(
            "an unknown member of a touch event", thirdEvent,
            #"{ "id": 1, "phase": "ended", "x": 130, "y": 720, "t": 0.7, "z": 0 }"#,
            "steps[16].events[2].z", "unknown field"),
        Case(
            "a touch event without a time", secondEvent, #"{ "id": 1, "phase": "moved", "x": 130, "y": 720 }"#,
            "steps[16].events[1].t", "missing required field"),
        Case(
            "an unknown member of a touch", touchDown,
            #"{ "id": 2, "phase": "began", "x": 50, "y": 725, "t": 2, "force": 1 }"#, "steps[17].touch.force",
            "unknown field"),
        Case(
            "an unknown phase", secondEvent, #"{ "id": 1, "phase": "pressed", "x": 130, "y": 720, "t": 0.2 }"#,
            "steps[16].events[1].phase", "unknown phase 'pressed' (expected 'began', 'moved', 'ended', 'cancelled')"),
        Case(
            "a negative time", firstEvent, #"{ "id": 1, "phase": "began", "x": 100, "y": 720, "t": -0.5 }"#,
            "steps[16].events[0].t", "a negative time (-0.5 s)"),
        // Phases out of order, in a sequence and across touch steps.
        Case(
            "a sequence that starts by moving", firstEvent,
            #"{ "id": 1, "phase": "moved", "x": 100, "y": 720, "t": 0 }"#,
            "steps[16].events[0].phase", "touch 1 is not down: expected 'began', not 'moved'"),
        Case(
            "a finger that begins twice", secondEvent, #"{ "id": 1, "phase": "began", "x": 130, "y": 720, "t": 0.2 }"#,
            "steps[16].events[1].phase",
            "touch 1 is already down (since steps[16].events[0]): expected 'moved', 'ended' or 'cancelled', not 'began'"
        ),
        Case(
            "a sequence that leaves a finger down", thirdEvent,
            #"{ "id": 1, "phase": "moved", "x": 130, "y": 720, "t": 0.7 }"#,
            "steps[16].events[0]",
            "touch 1 began here and never ended; expected a later event of touch 1 whose phase is 'ended' or 'cancelled'"
        ),
        Case(
            "time that goes back", thirdEvent, #"{ "id": 1, "phase": "ended", "x": 130, "y": 720, "t": 0.1 }"#,
            "steps[16].events[2].t", "time goes back from 0.2 s to 0.1 s"),
        Case(
            "a touch step that ends a finger that is not down", touchDown,
            #"{ "id": 3, "phase": "began", "x": 50, "y": 725, "t": 2 }"#,
            "steps[18].touch.phase", "touch 2 is not down: expected 'began', not 'cancelled'"),
        Case(
            "a touch step that begins a finger already down", touchUp,
            #"{ "id": 2, "phase": "began", "x": 50, "y": 725, "t": 2.1 }"#,
            "steps[18].touch.phase",
            "touch 2 is already down (since steps[17].touch): expected 'moved', 'ended' or 'cancelled', not 'began'"),
        Case(
            "a touch step that leaves a finger down", lastStep,
            #"{ "action": "tapStatusBar", "widget": "root/terms" }"#,
            "steps[17].touch",
            "touch 2 began here and is still down at the end of the scenario; end it with a later touch whose phase is "
                + "'ended' or 'cancelled' (every finger must be lifted, as in a touches sequence)"),
        Case(
            "a sequence on a finger a touch step holds down", lastStep,
            #"{ "action": "touches", "widget": "root", "events": [ { "id": 2, "phase": "moved", "x": 1, "y": 1, "t": 0 } ] }, "#
                + lastStep,
            "steps[18].events[0].id",
            "touch 2 is still down since steps[17].touch; a touches sequence needs a finger that is not down"),
    ]

    @Test(arguments: cases)
    func refusedWithItsPathAndReason(_ bad: Case) {
        #expect {
            try Self.parse(bad.text)
        } throws: { error in
            let error = error as? ScenarioError
            expectEqual(error?.location, bad.location)
            expectEqual(error?.message, bad.message)
            return error != nil
        }
    }

    @Test func theSeedItselfIsValidAndEveryFingerLifts() throws {
        let scenario = try Self.parse(Self.signup)
        expectEqual(scenario.steps.count, 19)
        _ = try ScenarioRunner.run(scenario, delegate: nil)
        // A finger a touch step puts down may be moved and lifted by later touch steps.
        let moved = Self.signup(
            replacing: Self.lastStep,
            with:
                #"{ "action": "touch", "widget": "root", "touch": { "id": 2, "phase": "moved", "x": 60, "y": 725, "t": 2.05 } }, "#
                + Self.lastStep)
        _ = try ScenarioRunner.run(try Self.parse(moved), delegate: nil)
    }

    // MARK: byte order mark

    @Test func aLeadingByteOrderMarkIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let withMark = try Scenario(data: Data(bom + Array(Self.signup.utf8)), catalog: .builtIn)
        let without = try Self.parse(Self.signup)
        #expect(withMark.steps == without.steps && withMark.name == without.name)
        expectEqual(withMark.source, without.source, "the stored source is the text after the mark")
        // Lines and columns count from after the mark, as an editor shows them.
        #expect {
            try Scenario(data: Data(bom + Array("{\n  \"name\": ,\n}".utf8)), catalog: .builtIn)
        } throws: { error in
            (error as? ScenarioError)?.location == "line 2, column 11"
        }
        // Only at the start: anywhere else it is a character JSON does not allow.
        #expect {
            try Scenario(data: Data(Array(" ".utf8) + bom + Array(Self.signup.utf8)), catalog: .builtIn)
        } throws: { error in
            (error as? ScenarioError)?.description == "line 1, column 2: invalid JSON: unexpected character U+FEFF"
        }
    }

    // MARK: random: an unknown key at a random depth

    /// Every object in `value` with the path an error names it by (`steps[3].events[2]`; "" for
    /// the top level).
    static func objectPaths(_ value: AuditValue, at path: String = "") -> [String] {
        switch value {
        case .object(let fields):
            return [path]
                + fields.keys.sorted().flatMap { key in
                    objectPaths(fields[key]!, at: path.isEmpty ? key : "\(path).\(key)")
                }
        case .array(let values):
            return values.indices.flatMap { objectPaths(values[$0], at: "\(path)[\($0)]") }
        default:
            return []
        }
    }

    /// `value` with `key: value` added to the object at `path`.
    static func inserting(_ key: String, into value: AuditValue, at path: String, here: String = "") -> AuditValue {
        switch value {
        case .object(var fields):
            if here == path {
                fields[key] = .int(1)
                return .object(fields)
            }
            for (name, field) in fields {
                fields[name] = inserting(key, into: field, at: path, here: here.isEmpty ? name : "\(here).\(name)")
            }
            return .object(fields)
        case .array(let values):
            return .array(values.indices.map { inserting(key, into: values[$0], at: path, here: "\(here)[\($0)]") })
        default:
            return value
        }
    }

    /// Valid scenarios of every widget kind and action: the shipped checkout and the signup seed.
    static var validScenarios: [AuditValue] {
        get throws {
            [
                try AuditValue.parse(json: Examples.scenarios["checkout"]!),
                try AuditValue.parse(json: Data(signup.utf8)),
            ]
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func anUnknownKeyAtARandomDepthIsNamedByItsPath(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for document in try Self.validScenarios {
            _ = try Scenario(data: Data(document.json.utf8), catalog: .builtIn)
            let paths = Self.objectPaths(document)
            // Depth first, then a path of that depth, so the deep objects are not drowned out.
            let depths = Dictionary(grouping: paths) { $0.filter { $0 == "." || $0 == "[" }.count }
            for _ in 0..<60 {
                let depth = depths.keys.sorted().randomElement(using: &random)!
                let path = depths[depth]!.randomElement(using: &random)!
                let key = "typo" + String(Int.random(in: 0..<1_000, using: &random))
                let mutated = Self.inserting(key, into: document, at: path)
                let expected = path.isEmpty ? key : "\(path).\(key)"
                #expect {
                    try Scenario(data: Data(mutated.json.utf8), catalog: .builtIn)
                } throws: { error in
                    let error = error as? ScenarioError
                    #expect(error?.location == expected && error?.message == "unknown field", "at \(path)")
                    return error != nil
                }
            }
        }
    }

    // MARK: a kind of your own: Codable properties and arguments, at any depth

    /// A view whose properties and whose input's argument are nested `Codable` values.
    final class Gauge: View {
        struct Range: Codable, Sendable, Equatable {
            var low: Int
            var high: Int
        }
        struct Properties: Codable, Sendable {
            var range: Range
            var marks: [Range]?
        }

        var range: Range
        init(identifier: String, frame: Rect, range: Range) {
            self.range = range
            super.init(identifier: identifier, frame: frame)
        }
        override var widgetKind: String { "Gauge" }

        func set(_ range: Range) {
            performInput(Self.setRange, range) {
                self.range = range
                return nil
            }
        }

        static let setRange = Input<Gauge, Range>(
            "setRange", of: "Gauge", arguments: .one("range", .codable), perform: { $0.set($1) })
        static let kind = WidgetKind(
            "Gauge", properties: Properties.self,
            make: { id, frame, properties in Gauge(identifier: id, frame: frame, range: properties.range) },
            describe: { Properties(range: $0.range) }, inputs: [setRange])
    }

    static func gaugeScenario(properties: String, range: String) -> String {
        #"{"name": "g", "root": {"kind": "View", "id": "root", "children": [{"kind": "Gauge", "id": "g", "#
            + properties + #"}]}, "steps": [{"action": "setRange", "widget": "root/g", "range": "# + range + "}]}"
    }

    @Test(arguments: [
        (
            #""range": {"low": 0, "high": 9, "hihg": 8}"#, #"{"low": 1, "high": 2}"#,
            "root.children[0].range.hihg"
        ),
        (
            #""range": {"low": 0, "high": 9}, "marks": [{"low": 1, "high": 2}, {"low": 3, "high": 4, "x": 0}]"#,
            #"{"low": 1, "high": 2}"#, "root.children[0].marks[1].x"
        ),
        (#""range": {"low": 0, "high": 9}"#, #"{"low": 1, "high": 2, "middle": 1}"#, "steps[0].range.middle"),
    ])
    func anUnknownMemberOfACodableValueIsNamed(properties: String, range: String, location: String) throws {
        let catalog = WidgetCatalog.builtIn.adding(Gauge.kind)
        let valid = Self.gaugeScenario(properties: #""range": {"low": 0, "high": 9}"#, range: #"{"low": 1, "high": 2}"#)
        _ = try Scenario(data: Data(valid.utf8), catalog: catalog)
        #expect {
            try Scenario(data: Data(Self.gaugeScenario(properties: properties, range: range).utf8), catalog: catalog)
        } throws: { error in
            let error = error as? ScenarioError
            #expect(error?.location == location && error?.message == "unknown field")
            return error != nil
        }
    }
}
