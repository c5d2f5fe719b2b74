import AuditCore  // public API only: this is what an app's own code sees
import Foundation
import Testing

// An app's own widget and delegate protocol, audited by declaring each callback once.

protocol StepperDelegate: AnyObject {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool
    func stepper(_ stepper: Stepper, didChangeTo value: Int)
}

extension StepperDelegate {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool { delegateDefault(true) }
    func stepper(_ stepper: Stepper, didChangeTo value: Int) { delegateDefault() }
}

enum StepperCallbacks {
    static let shouldChange = Callback<any StepperDelegate, Stepper, Int, Bool>(
        "StepperDelegate", "stepper(_:shouldChangeTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.stepper($1, shouldChangeTo: $2) })
    static let didChange = Callback<any StepperDelegate, Stepper, Int, Void>(
        "StepperDelegate", "stepper(_:didChangeTo:)", arguments: .one("value", .int), answer: .void,
        invoke: { $0.stepper($1, didChangeTo: $2) })
    static let increment = CallbackDescriptor(input: "increment", of: "Stepper", arguments: [])
}

final class StepperProxy: DelegateProxy, StepperDelegate {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool {
        forward(StepperCallbacks.shouldChange, to: stepper.delegate, stepper, value)
    }
    func stepper(_ stepper: Stepper, didChangeTo value: Int) {
        forward(StepperCallbacks.didChange, to: stepper.delegate, stepper, value)
    }
}

struct WeakStepperDelegate: WeakDelegateReference {
    weak var delegate: (any StepperDelegate)?
}

final class Stepper: View {
    private var slot = DelegateSlot<WeakStepperDelegate>()  // the app's delegate (weak) and the proxy
    var delegate: (any StepperDelegate)? {
        get { slot.delegate }
        set { slot.delegate = newValue }
    }
    private(set) var value = 0

    override var widgetKind: String { "Stepper" }
    override func auditLinkDidChange(_ link: AuditLink?) { slot.audit(link, with: StepperProxy.init(link:)) }

    func increment() {
        performInput(StepperCallbacks.increment, []) {
            if StepperCallbacks.shouldChange.ask(slot.callee, self, value + 1) {  // read at each call
                value += 1
                StepperCallbacks.didChange.ask(slot.callee, self, value)
            }
            return .int(value)
        }
    }
}

final class UpToTwo: StepperDelegate {
    func stepper(_ stepper: Stepper, shouldChangeTo value: Int) -> Bool { value <= 2 }
}

@Suite("An app's own widget, audited through the public API")
struct CustomWidgetTests {
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
            catalog: .builtIn.adding(WidgetKind("Stepper", make: { id, frame in Stepper(identifier: id) })))
        try recorder.attach(to: stepper)
        for _ in 0..<3 { stepper.increment() }
        let summary = recorder.finish()
        #expect(stepper.value == 2)
        #expect(summary.vetoes == 1)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let callbacks = events.filter { $0.kind == .callback }
        #expect(callbacks.map(\.protocolName) == Array(repeating: "StepperDelegate", count: 5))
        #expect(
            callbacks.map(\.callback) == [
                "stepper(_:shouldChangeTo:)", "stepper(_:didChangeTo:)", "stepper(_:shouldChangeTo:)",
                "stepper(_:didChangeTo:)", "stepper(_:shouldChangeTo:)",
            ])
        // UpToTwo does not implement didChange: recorded as "not implemented, default used".
        #expect(callbacks.map(\.implemented) == [true, false, true, false, true])
        #expect(callbacks.last?.vetoed == true)
        #expect(events.filter { $0.kind == .input }.map(\.result) == ["1", "2", "2"])
    }
}
