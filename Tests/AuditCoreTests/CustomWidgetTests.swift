import AuditCore  // public API only: this is what an app's own code sees
import Foundation
import SharedTestSupport
import Testing

// An app's own widget and delegate protocol, audited by declaring each callback once.

protocol StepperDelegate: AnyObject {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool
    func stepper(_ stepper: Stepper, didChangeTo value: Int)
}

extension StepperDelegate {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool {
        Stepper.callbacks.shouldChange.unimplemented(value)
    }
    func stepper(_ stepper: Stepper, didChangeTo value: Int) { Stepper.callbacks.didChange.unimplemented(value) }
}

struct StepperCallbacks: CallbackTable {
    let shouldChange = Callback<any StepperDelegate, Stepper, Int, Bool>(
        "stepper(_:shouldChangeTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.stepper($1, shouldChangeTo: $2) })
    let didChange = Callback<any StepperDelegate, Stepper, Int, Void>(
        "stepper(_:didChangeTo:)", arguments: .one("value", .int), answer: .void,
        invoke: { $0.stepper($1, didChangeTo: $2) })
}

final class Stepper: View {
    static let callbacks = StepperCallbacks()
    weak var delegate: (any StepperDelegate)?
    private(set) var value: Int

    init(identifier: String, frame: Rect = .zero, value: Int = 0) {
        self.value = value
        super.init(identifier: identifier, frame: frame)
    }

    func increment() { drag(by: 1) }

    /// Moves by `steps`, one at a time, each asked for.
    func drag(by steps: Int) {
        performInput(Self.drag, steps) {
            // The delegate is read at each call.
            for _ in 0..<steps where Self.callbacks.shouldChange.ask(delegate, self, value + 1) {
                value += 1
                Self.callbacks.didChange.ask(delegate, self, value)
            }
            return .int(value)
        }
    }

    /// An input named like the scroll view's `drag`, with other arguments: names belong to kinds.
    static let drag = Input<Stepper, Int>(
        "drag", of: "Stepper", arguments: .one("steps", .int),
        check: { _, steps in steps >= 0 ? nil : "steps must not be negative" },
        perform: { stepper, steps in stepper.drag(by: steps) })

    struct Properties: Codable, Sendable { var value: Int }

    static let kind = WidgetKind(
        "Stepper", properties: Properties.self,
        make: { id, frame, properties in Stepper(identifier: id, frame: frame, value: properties.value) },
        describe: { Properties(value: $0.value) }, delegate: \.delegate, callbacks: callbacks, inputs: [drag])
}

/// A table whose second entry was copied from the first and never renamed.
struct TwiceNamedCallbacks: CallbackTable {
    let shouldChange = Callback<any StepperDelegate, Stepper, Int, Bool>(
        "stepper(_:shouldChangeTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.stepper($1, shouldChangeTo: $2) })
    let didChange = Callback<any StepperDelegate, Stepper, Int, Bool>(
        "stepper(_:shouldChangeTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.stepper($1, shouldChangeTo: $2) })
}

/// `BadgeAtThree`, but 6 is refused.
final class NotSix: BadgeAtThree {
    override func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool {
        value != 6 && super.stepper(stepper, shouldChangeTo: value)
    }
}

final class UpToTwo: StepperDelegate {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool { value <= 2 }
}

/// Reads the stepper's state inside its callback, and adds a badge (another stepper, its delegate
/// too) when the value reaches 3: a widget added by a delegate, from inside a callback.
class BadgeAtThree: StepperDelegate {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool { value == stepper.value + 1 && value <= 6 }
    func stepper(_ stepper: Stepper, didChangeTo value: Int) {
        if value == 3, let screen = stepper.superview, screen.view(atPath: screen.path + "/badge") == nil {
            let badge = Stepper(identifier: "badge", value: 1)
            badge.delegate = self
            screen.addSubview(badge)
        }
    }
}

@Suite("An app's own widget, audited through the public API")
struct CustomWidgetTests {
    static let catalog = WidgetCatalog.builtIn.adding(Stepper.kind)
    static let registry: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("badge", summary: "adds a badge at three") { BadgeAtThree() }
        registry.register("upToTwo", summary: "stops at two") { UpToTwo() }
        registry.register("notSix", summary: "adds a badge at three, refuses six") { NotSix() }
        return registry
    }()
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// A screen with a stepper, recorded in code with `delegate`: three drags, a view added by the
    /// app between two of them, and a drag on that view's stepper.
    func recordInCode(_ delegateName: String) throws -> RecordingSummary {
        let delegate = try Self.registry.entry(named: delegateName).make()
        return try withExtendedLifetime(delegate) {
            let screen = View(identifier: "screen")
            let stepper = Stepper(identifier: "stepper", value: 1)
            screen.addSubview(stepper)
            stepper.delegate = delegate as? any StepperDelegate
            let recorder = try Recorder(
                databasePath: database, session: NewSession(recordedInCode: "in code", delegate: delegateName),
                catalog: Self.catalog)
            try recorder.attach(to: screen)
            stepper.drag(by: 1)
            let later = Stepper(identifier: "later", value: 5)
            later.delegate = delegate as? any StepperDelegate
            screen.addSubview(later)  // between events: joins the stored tree as it is now
            stepper.drag(by: 2)
            later.drag(by: 1)
            // The user drags the badge the delegate added: an input on a widget the stored tree
            // does not have (replay's delegate adds it again).
            (screen.view(atPath: "screen/badge") as? Stepper)?.drag(by: 1)
            recorder.detach(from: screen)
            return recorder.finish()
        }
    }
    /// A session recorded in code stores its tree from the root: a view under it attached
    /// instead would store a session that cannot be replayed, so it stops the program with one
    /// line naming the root to attach.
    @Test func attachingAViewUnderTheRootStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let screen = View(identifier: "screen")
            let stepper = Stepper(identifier: "stepper")
            screen.addSubview(stepper)
            let folder = TemporaryDirectory()
            try CustomWidgetTests.recorderInCode(folder).attach(to: stepper)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains(
                "attach(to:) takes the root of the tree the session stores: attach to 'screen', not 'screen/stepper'"),
            "\(stderr)")
    }

    /// A view of the stored tree may be attached again after it was detached: it is audited again.
    @Test func aViewOfTheTreeIsAttachedAgainAfterItWasDetached() throws {
        let screen = View(identifier: "screen")
        let stepper = Stepper(identifier: "stepper", value: 1)
        screen.addSubview(stepper)
        let delegate = UpToTwo()
        stepper.delegate = delegate
        let recorder = try Self.recorderInCode(folder)
        try recorder.attach(to: screen)
        recorder.detach(from: stepper)
        stepper.increment()  // not audited
        try recorder.attach(to: stepper)
        stepper.increment()  // audited: 3 is refused
        let summary = recorder.finish()
        expectEqual([summary.inputs, summary.vetoes], [1, 1])
    }

    /// So does a second tree: the session stores one.
    @Test func attachingASecondTreeStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let folder = TemporaryDirectory()
            let recorder = try CustomWidgetTests.recorderInCode(folder)
            try recorder.attach(to: View(identifier: "screen"))
            try recorder.attach(to: View(identifier: "other"))
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains("a session recorded in code stores one tree: 'other' is not the tree attached first"),
            "\(stderr)")
    }

    /// A callback declared twice under one name (a copied table entry) would be recorded under
    /// one name and replayed as either: the kind stops the program with one line naming it.
    @Test func aCallbackNamedTwiceStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = WidgetKind(
                "Stepper", properties: Stepper.Properties.self,
                make: { id, frame, properties in Stepper(identifier: id, frame: frame, value: properties.value) },
                describe: { Stepper.Properties(value: $0.value) }, delegate: \.delegate,
                callbacks: TwiceNamedCallbacks())
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains(
                "StepperDelegate declares 'stepper(_:shouldChangeTo:)' twice in the callback tables of Stepper"),
            "\(stderr)")
    }

    /// A recorder of a session recorded in code, into a database in `folder` (for an exit test).
    static func recorderInCode(_ folder: TemporaryDirectory) throws -> Recorder {
        try Recorder(
            databasePath: folder.path("audit.sqlite"),
            session: NewSession(recordedInCode: "in code", delegate: "badge"), catalog: catalog)
    }

    @Test func customWidgetIsRecordedWithItsProtocolAndDefaults() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "custom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "audit.sqlite").path

        let stepper = Stepper(identifier: "stepper")
        let delegate = UpToTwo()
        stepper.delegate = delegate
        let recorder = try Recorder(
            databasePath: database,
            session: NewSession(recordedInCode: "custom", delegate: "UpToTwo"),
            catalog: Self.catalog)
        try recorder.attach(to: stepper)
        for _ in 0..<3 { stepper.increment() }
        let summary = recorder.finish()
        expectEqual(stepper.value, 2)
        expectEqual(summary.vetoes, 1)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let callbacks = events.filter { $0.kind == .callback }
        expectEqual(callbacks.map(\.protocolName), Array(repeating: "StepperDelegate", count: 5))
        expectEqual(
            callbacks.map(\.callback),
            [
                "stepper(_:shouldChangeTo:)", "stepper(_:didChangeTo:)", "stepper(_:shouldChangeTo:)",
                "stepper(_:didChangeTo:)", "stepper(_:shouldChangeTo:)",
            ])
        // UpToTwo does not implement didChange: recorded as "not implemented, default used".
        expectEqual(callbacks.map(\.implemented), [true, false, true, false, true])
        expectEqual(callbacks.last?.vetoed, true)
        expectEqual(events.filter { $0.kind == .input }.map(\.result), ["1", "2", "2"])
    }

    @Test func aSessionRecordedInCodeReplaysIdenticallyInBothModes() throws {
        let summary = try recordInCode("badge")
        let store = try AuditStore(path: database, access: .read)
        let events = try store.timeline(of: summary.session)
        // The badge was added by the delegate inside a callback, so it is not in the stored tree
        // (replay adds it again); the later stepper was added by the app, and is.
        let source = try store.scenarioSource(of: summary.session)
        let stored = try Scenario(data: Data(source.utf8), catalog: Self.catalog)
        expectEqual(stored.root.children.map(\.identifier), ["stepper", "later"])
        #expect(events.contains { $0.widget == "screen/badge" && $0.kind == .input && $0.parentSeq == nil })
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try replayer.replay(session: summary.session, delegate: "badge", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences.prefix(2))")
        }
        let changed = try replayer.replay(session: summary.session, delegate: "upToTwo", mode: .isolated)
        #expect(!changed.identical)
    }

    @Test func anUnregisteredWidgetIsRefusedWhenRecordingBegins() throws {
        let screen = View(identifier: "screen")
        screen.addSubview(Stepper(identifier: "stepper"))
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "x", delegate: "none"), catalog: .builtIn)
        #expect(throws: UnregisteredKind.self) { try recorder.attach(to: screen) }
        do {
            try recorder.attach(to: screen)
        } catch {
            #expect(
                error.description.hasPrefix(
                    "'screen/stepper' is a Stepper, a widget kind the catalog does not register"))
        }
        expectEqual(recorder.finish().events, 0)
    }

    /// The stepper's `drag` and the scroll view's `drag` in one scenario: each step finds its own
    /// kind's input, and the timeline shows each with its own argument labels.
    @Test func inputNamesBelongToTheirWidgetKind() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"name": "both", "root": {"kind": "View", "id": "screen", "children": [
                  {"kind": "Stepper", "id": "stepper", "value": 0},
                  {"kind": "ScrollView", "id": "list", "frame": [0, 0, 100, 100], "contentSize": [100, 400]}]},
                 "steps": [
                  {"action": "drag", "widget": "screen/stepper", "steps": 2},
                  {"action": "beginDrag", "widget": "screen/list"},
                  {"action": "drag", "widget": "screen/list", "translation": {"x": 0, "y": -20}},
                  {"action": "endDrag", "widget": "screen/list", "velocity": {"x": 0, "y": 0}}]}
                """#.utf8), catalog: Self.catalog)
        let summary = try ScenarioRunner.record(
            scenario, delegate: "badge", registry: Self.registry, databasePath: database)
        let drags = try AuditStore(path: database, access: .read).timeline(of: summary.session).filter {
            $0.kind == .input && $0.callback == "drag"
        }
        expectEqual(drags.map(\.arguments), [#"{"steps":2}"#, #"{"translation":{"x":0.0,"y":-20.0}}"#])
        let report = try Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
            .replay(session: summary.session, delegate: "badge", mode: .interaction)
        #expect(report.identical)
    }

    @Test(arguments: [
        (#"{"kind": "Stepper", "id": "s", "value": 1, "colour": "red"}"#, "root.colour: unknown field"),
        (#"{"kind": "Stepper", "id": "s", "value": "one"}"#, "root.value: expected an integer"),
        (#"{"kind": "Stepper", "id": "s"}"#, "root.value: missing required field"),
    ])
    func codablePropertiesAreCheckedByFieldPath(root: String, message: String) {
        #expect(throws: ScenarioError.self) {
            try Scenario(data: Data(#"{"name": "s", "root": \#(root), "steps": []}"#.utf8), catalog: Self.catalog)
        }
        do {
            _ = try Scenario(data: Data(#"{"name": "s", "root": \#(root), "steps": []}"#.utf8), catalog: Self.catalog)
        } catch {
            expectEqual(error.description, message)
        }
    }

    /// A session recorded in code minimizes like one from a file: the minimal scenario is the
    /// stored tree with the inputs that still diverge.
    @Test func aSessionRecordedInCodeMinimizes() throws {
        let summary = try recordInCode("badge")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
            .minimize(session: summary.session, delegate: "notSix")
        #expect(result.steps.count < result.originalCount)
        expectEqual(result.steps.map(\.widget), ["screen/later"])
        let minimal = try Scenario(data: Data(result.scenario.utf8), catalog: Self.catalog)
        expectEqual(minimal.steps, result.steps)
        expectEqual(minimal.root.children.map(\.identifier), ["stepper", "later"])
    }

    /// A candidate that never adds the badge cannot take the recorded drag on it: like a replay,
    /// minimizing skips it there, and still finds the divergence (upToTwo implements no didChange).
    @Test func aCandidateThatCannotTakeAnInputStillMinimizes() throws {
        let summary = try recordInCode("badge")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
            .minimize(session: summary.session, delegate: "upToTwo")
        expectEqual(result.steps.map(\.widget), ["screen/stepper"])
        expectEqual(result.divergence, "implemented_changed at screen/stepper StepperDelegate.stepper(_:didChangeTo:)")
    }
}
