import AuditCore  // public API only: an app's own widget, written with the adoption mistake
import Foundation
import SharedTestSupport
import Testing

protocol LampDelegate: AnyObject {
    func lampShouldLight(_ lamp: Lamp) -> Bool
}

struct LampCallbacks: CallbackTable {
    let shouldLight = Callback<any LampDelegate, Lamp, Void, Bool>(
        "lampShouldLight(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, lamp, _ in delegate.lampShouldLight(lamp) })
}

/// A widget that declares its callback but calls its delegate directly: the recorder sees its
/// inputs and none of the decisions.
final class Lamp: View {
    static let callbacks = LampCallbacks()
    weak var delegate: (any LampDelegate)?
    private(set) var isLit = false

    func press() {
        performInput(Self.press, ()) {
            isLit = delegate?.lampShouldLight(self) ?? true  // the mistake: not `callbacks.shouldLight.ask`
            return .bool(isLit)
        }
    }

    static let press: Input<Lamp, Void> = Input(
        "press", of: "Lamp", arguments: .none, perform: { lamp, _ in lamp.press() })

    struct Properties: Codable, Sendable {}

    static let kind: WidgetKind = WidgetKind(
        "Lamp", properties: Properties.self, make: { id, frame, _ in Lamp(identifier: id, frame: frame) },
        describe: { _ in Properties() }, delegate: \.delegate, callbacks: callbacks, inputs: [press])
}

final class Dark: LampDelegate {
    func lampShouldLight(_ lamp: Lamp) -> Bool { false }
}

final class Bright: LampDelegate {
    func lampShouldLight(_ lamp: Lamp) -> Bool { true }
}

@Suite("A widget that calls its delegate directly")
struct DirectDelegateCallTests {
    let folder = TemporaryDirectory()

    /// Recorded with `Bright`, replayed against `Dark`, which refuses what `Bright` allowed: no
    /// callback was recorded. Interaction mode still compares what the input did, and finds it; an
    /// isolated replay, which compares what the delegate answers, would compare nothing and call
    /// the two identical, so it is refused, saying how a widget asks its delegate.
    @Test func aSessionWithInputsAndNoCallbackIsNotReplayedInIsolation() throws {
        let catalog = WidgetCatalog.builtIn.adding(Lamp.kind)
        var registry = DelegateRegistry()
        registry.register("dark", summary: "never lights") { Dark() }
        let database = folder.path("audit.sqlite")
        let lamp = Lamp(identifier: "lamp")
        let bright = Bright()
        lamp.delegate = bright
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "lamp", delegate: "bright"), catalog: catalog)
        try recorder.attach(to: lamp)
        lamp.press()
        let session = recorder.finish().session
        try expectEqual(AuditStore(path: database, access: .read).session(session).callbacks, 0)

        let replayer = Replayer(databasePath: database, registry: registry, catalog: catalog)
        let driven = try replayer.replay(session: session, delegate: "dark", mode: .interaction)
        expectEqual(driven.diff.differences.map(\.kind), [.resultChanged])
        #expect {
            try replayer.replay(session: session, delegate: "dark", mode: .isolated)
        } throws: { error in
            guard case ReplayError.noCallbacks(session) = error else { return false }
            return "\(error)".hasSuffix(
                "'Widget.callbacks.x.ask(delegate, self, arguments)', never by calling it directly)")
        }
        // The interaction replay is stored; the refused one stored nothing.
        try expectEqual(AuditStore(path: database, access: .read).sessions().count, 2)
    }

    /// A tree whose kinds have no input generator: explore can try nothing, and says so rather
    /// than report no divergence.
    @Test func exploringATreeNoGeneratorDrivesIsRefused() throws {
        let catalog = WidgetCatalog.builtIn.adding(Lamp.kind)
        var registry = DelegateRegistry()
        registry.register("bright", summary: "always lights") { Bright() }
        registry.register("dark", summary: "never lights") { Dark() }
        let scenario = try Scenario(
            data: Data(#"{"name": "lamp", "root": {"kind": "Lamp", "id": "lamp"}, "steps": []}"#.utf8), catalog: catalog
        )
        var options = Explorer.Options()
        options.runs = 5
        #expect {
            try Explorer(scenario: scenario, registry: registry, options: options)
                .explore(delegate: "bright", candidate: "dark")
        } throws: { error in
            "\(error)".hasSuffix(
                "no input generator drives a widget of the tree, so explore tried nothing; give its kinds "
                    + "generators (WidgetKind.exploring(_:)) or weights above 0")
        }
    }
}
