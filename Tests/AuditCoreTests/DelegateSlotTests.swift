import Foundation
import Testing

@testable import AuditCore

// A widget of the tests' own, holding its delegate the way every widget does: in one slot.

protocol SlotDialDelegate: AnyObject {
    func dial(_ dial: SlotDial, shouldTurnTo value: Int) -> Bool
}

extension SlotDialDelegate {
    func dial(_ dial: SlotDial, shouldTurnTo value: Int) -> Bool { delegateDefault(true) }
}

enum SlotDialCallbacks {
    static let shouldTurn = Callback<any SlotDialDelegate, SlotDial, Int, Bool>(
        "SlotDialDelegate", "dial(_:shouldTurnTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.dial($1, shouldTurnTo: $2) })
    static let turn = CallbackDescriptor(input: "turn", of: "SlotDial", arguments: ["value"])
}

final class SlotDialProxy: DelegateProxy, SlotDialDelegate {
    func dial(_ dial: SlotDial, shouldTurnTo value: Int) -> Bool {
        forward(SlotDialCallbacks.shouldTurn, to: dial.delegate, dial, value)
    }
}

struct WeakSlotDialDelegate: WeakDelegateReference {
    weak var delegate: (any SlotDialDelegate)?
}

final class SlotDial: View {
    var slot = DelegateSlot<WeakSlotDialDelegate>()
    var delegate: (any SlotDialDelegate)? {
        get { slot.delegate }
        set { slot.delegate = newValue }
    }
    private(set) var value = 0

    override var widgetKind: String { "SlotDial" }
    override func auditLinkDidChange(_ link: AuditLink?) { slot.audit(link, with: SlotDialProxy.init(link:)) }

    func turn(to newValue: Int) {
        performInput(SlotDialCallbacks.turn, [.int(newValue)]) {
            if SlotDialCallbacks.shouldTurn.ask(slot.callee, self, newValue) { value = newValue }
            return .int(value)
        }
    }
}

/// Answers by a threshold and logs every question with its own name.
final class DialLog: SlotDialDelegate {
    let name: String
    let limit: Int
    var calls: [String] = []

    init(_ name: String, limit: Int = .max) {
        self.name = name
        self.limit = limit
    }

    func dial(_ dial: SlotDial, shouldTurnTo value: Int) -> Bool {
        calls.append("\(name).should(\(value))")
        return value <= limit
    }
}

@Suite("DelegateSlot: one slot for the app's delegate and the audit proxy")
struct DelegateSlotTests {
    static let catalog = WidgetCatalog.builtIn.adding(
        WidgetKind("SlotDial", make: { id, frame in SlotDial(identifier: id, frame: frame) }))

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "slot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func recorder() throws -> Recorder {
        try Recorder(
            databasePath: folder.appending(path: "\(UUID().uuidString).sqlite").path, session: newSession(),
            catalog: Self.catalog)
    }

    @Test func calleeIsTheDelegateWhenNotAudited() {
        var slot = DelegateSlot<WeakSlotDialDelegate>()
        #expect(slot.callee == nil && slot.delegate == nil && slot.proxy == nil && !slot.isAudited)
        let delegate = DialLog("app")
        slot.delegate = delegate
        #expect(slot.callee === delegate)
        #expect(slot.delegate === delegate)
        #expect(slot.proxy == nil && !slot.isAudited)
    }

    @Test func calleeIsTheProxyWhenAuditedAndTheDelegateAgainAfterDetach() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try recorder()
        var slot = DelegateSlot<WeakSlotDialDelegate>()
        let delegate = DialLog("app")
        slot.delegate = delegate

        slot.audit(AuditLink(recorder: recorder, widget: 1), with: SlotDialProxy.init(link:))
        let proxy = try #require(slot.callee as? SlotDialProxy)
        #expect(slot.isAudited && slot.proxy === proxy)
        #expect(slot.delegate === delegate, "auditing leaves the app's delegate in place")

        slot.audit(nil, with: SlotDialProxy.init(link:))
        #expect(slot.callee === delegate)
        #expect(slot.proxy == nil && !slot.isAudited)
        _ = recorder.finish()
    }

    @Test func aWidgetCallsTheProxyOnlyWhileAttached() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try recorder()
        let dial = SlotDial(identifier: "dial")
        let delegate = DialLog("app", limit: 5)
        dial.delegate = delegate
        #expect(dial.slot.callee === delegate)

        try recorder.attach(to: dial)
        #expect(dial.slot.callee is SlotDialProxy)
        dial.turn(to: 3)
        dial.turn(to: 9)
        recorder.detach(from: dial)
        #expect(dial.slot.callee === delegate)
        dial.turn(to: 4)

        let summary = recorder.finish()
        #expect(delegate.calls == ["app.should(3)", "app.should(9)", "app.should(4)"])
        #expect(dial.value == 4)
        #expect(summary.callbacks == 2, "only the calls made while attached are recorded")
        #expect(summary.vetoes == 1)
    }

    @Test func theDelegateStaysWeak() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try recorder()
        var slot = DelegateSlot<WeakSlotDialDelegate>()
        weak var dropped: DialLog?
        do {
            let delegate = DialLog("app")
            slot.delegate = delegate
            dropped = delegate
        }
        #expect(dropped == nil, "the slot does not retain the delegate")
        #expect(slot.delegate == nil && slot.callee == nil)

        // Audited too: neither the slot nor the proxy retains it.
        let dial = SlotDial(identifier: "dial")
        try recorder.attach(to: dial)
        do {
            let delegate = DialLog("app")
            dial.delegate = delegate
            dropped = delegate
            dial.turn(to: 1)
            #expect(delegate.calls == ["app.should(1)"])
        }
        #expect(dropped == nil, "the audited slot does not retain the delegate")
        #expect(dial.delegate == nil)
        dial.turn(to: 2)  // the proxy takes the default
        #expect(dial.value == 2)
        let summary = recorder.finish()
        #expect(summary.callbacks == 2)
    }

    @Test func reassigningTheDelegateWhileAuditedRetargetsTheProxy() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try recorder()
        let dial = SlotDial(identifier: "dial")
        let first = DialLog("first", limit: 1)
        let second = DialLog("second", limit: 10)
        dial.delegate = first
        try recorder.attach(to: dial)
        let proxy = try #require(dial.slot.callee as? SlotDialProxy)

        dial.turn(to: 5)  // vetoed by the first
        dial.delegate = second
        #expect(dial.slot.callee === proxy, "the proxy stays in place")
        #expect(dial.slot.delegate === second)
        dial.turn(to: 5)  // allowed by the second

        let summary = recorder.finish()
        #expect(first.calls == ["first.should(5)"])
        #expect(second.calls == ["second.should(5)"])
        #expect(dial.value == 5)
        #expect(summary.callbacks == 2)
        #expect(summary.vetoes == 1)
    }

    @Test func auditingADialChangesNothing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try expectAuditingChangesNothing(
            database: folder.appending(path: "same.sqlite").path, catalog: Self.catalog
        ) { recorder in
            let dial = SlotDial(identifier: "dial")
            let delegate = DialLog("app", limit: 3)
            dial.delegate = delegate
            try! recorder?.attach(to: dial)
            for value in [1, 4, 2, 7, 3] { dial.turn(to: value) }
            return (delegate.calls, dial.value)
        }
    }
}
