import AuditCore  // public API only: an app's own widget whose delegate answers later
import Foundation

// A gate that asks its delegate whether to admit each visitor through a completion handler, and
// what the visitor pays through an `async` method; a new knock stops waiting for the last one.

protocol GateDelegate: AnyObject {
    func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void)
    func gate(_ gate: Gate, feeFor visitor: String) async -> Int
    func gateDidRing(_ gate: Gate)
}

extension GateDelegate {
    func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        Gate.callbacks.shouldAdmit.unimplemented(visitor, decisionHandler)
    }
    func gate(_ gate: Gate, feeFor visitor: String) async -> Int { Gate.callbacks.fee.unimplemented(visitor) }
    func gateDidRing(_ gate: Gate) { Gate.callbacks.didRing.unimplemented(()) }
}

struct GateCallbacks: CallbackTable {
    let shouldAdmit = LaterCallback<any GateDelegate, Gate, String, Bool>(
        "gate(_:shouldAdmit:decisionHandler:)", arguments: .one("visitor", .string), answer: .veto(),
        invoke: { $0.gate($1, shouldAdmit: $2, decisionHandler: $3) })
    let fee = LaterCallback<any GateDelegate, Gate, String, Int>(
        "gate(_:feeFor:)", arguments: .one("visitor", .string), answer: .value(coding: .int, default: 0),
        invokeAsync: { await $0.gate($1, feeFor: $2) })
    let didRing = Callback<any GateDelegate, Gate, Void, Void>(
        "gateDidRing(_:)", arguments: .none, answer: .void, invoke: { delegate, gate, _ in delegate.gateDidRing(gate) })
}

final class Gate: View {
    static let callbacks = GateCallbacks()
    weak var delegate: (any GateDelegate)?
    private(set) var admitted: [String] = []
    private(set) var paid = 0
    /// The visitors whose decision the delegate let go of without giving it.
    private(set) var forgotten: [String] = []
    /// Called first when a decision comes, before the gate acts on it.
    var heard: (() -> Void)?
    /// Called when the gate goes away (its run is over).
    var gone: (() -> Void)?
    private var waiting: PendingAnswer?
    /// Whether a knock waits for the decision before it returns (a gate whose delegate decides on
    /// a thread of its own).
    let waitsForDecision: Bool

    init(identifier: String, frame: Rect = .zero, waitsForDecision: Bool = false) {
        self.waitsForDecision = waitsForDecision
        super.init(identifier: identifier, frame: frame)
    }

    deinit { gone?() }

    /// A visitor knocks: the gate stops waiting for the last decision and asks about this one.
    func knock(_ visitor: String) {
        performInput(Self.knockInput, visitor) {
            waiting?.giveUp()
            waiting = Self.callbacks.shouldAdmit.ask(
                delegate, self, visitor,
                then: { [weak self] admit in
                    self?.heard?()
                    guard let self, admit else { return }
                    admitted.append(visitor)
                    Self.callbacks.fee.ask(delegate, self, visitor) { [weak self] fee in self?.paid += fee }
                },
                ifNeverAnswered: { [weak self] in self?.forgotten.append(visitor) })
            if waitsForDecision { waiting?.wait() }
            return .int(admitted.count)
        }
    }

    /// The bell rings: the delegate hears of it (and may answer what it holds).
    func ring() {
        performInput(Self.ringInput, ()) {
            Self.callbacks.didRing.ask(delegate, self, ())
            return .int(admitted.count)
        }
    }

    static let knockInput = Input<Gate, String>(
        "knock", of: "Gate", arguments: .one("visitor", .string), perform: { $0.knock($1) })
    static let ringInput = Input<Gate, Void>("ring", of: "Gate", arguments: .none, perform: { gate, _ in gate.ring() })

    struct Properties: Codable, Sendable {
        var waitsForDecision: Bool?
    }

    static let kind = WidgetKind(
        "Gate", properties: Properties.self,
        make: { id, frame, properties in
            Gate(identifier: id, frame: frame, waitsForDecision: properties.waitsForDecision ?? false)
        },
        describe: { Properties(waitsForDecision: $0.waitsForDecision) }, delegate: \.delegate, callbacks: callbacks,
        inputs: [knockInput, ringInput])
}

/// Every call a delegate got, in order, for comparing runs with and without the recorder. Each
/// method is the class's own, so a subclass's override is what the protocol calls.
class LoggingGateDelegate: GateDelegate {
    var log: [String] = []

    func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        Gate.callbacks.shouldAdmit.unimplemented(visitor, decisionHandler)
    }
    func gate(_ gate: Gate, feeFor visitor: String) async -> Int { Gate.callbacks.fee.unimplemented(visitor) }
    func gateDidRing(_ gate: Gate) { Gate.callbacks.didRing.unimplemented(()) }
}

/// Decides at once: admits everyone but Mallory; the fee is the name's length.
class PromptDoorman: LoggingGateDelegate {
    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
        decisionHandler(visitor != "mallory")
    }
    override func gate(_ gate: Gate, feeFor visitor: String) async -> Int {
        await Task.yield()  // a suspension: the answer still comes before `ask` returns
        return visitor.count
    }
}

/// As `PromptDoorman`, but also refuses Bob.
final class StrictDoorman: PromptDoorman {
    override func gate(
        _ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void
    ) {
        log.append("shouldAdmit \(visitor)")
        decisionHandler(visitor != "mallory" && visitor != "bob")
    }
}

/// Holds each decision until the bell rings, then admits everyone it holds (or, `shrugging`, lets
/// go of every handler it holds uncalled).
final class BellDoorman: LoggingGateDelegate {
    private var held: [@Sendable (Bool) -> Void] = []
    private let shrugging: Bool

    init(shrugging: Bool = false) {
        self.shrugging = shrugging
        super.init()
    }

    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
        held.append(decisionHandler)
    }
    override func gateDidRing(_ gate: Gate) {
        log.append("didRing")
        let answering = held
        held = []
        if !shrugging { for handler in answering { handler(true) } }
    }
}

/// As `PromptDoorman`, but decides on a thread of its own.
final class ThreadedDoorman: PromptDoorman {
    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
        Thread { decisionHandler(visitor != "mallory") }.start()
    }
}

/// Decides on a thread of its own once the gate has gone away: after the inputs. `decided` is
/// signalled once the decision is given.
final class AfterTheRunDoorman: PromptDoorman {
    let decided = DispatchSemaphore(value: 0)

    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
        let earlier = gate.gone
        let decided = decided
        gate.gone = {
            earlier?()
            Thread {
                decisionHandler(visitor != "mallory")
                decided.signal()
            }.start()
        }
    }
}

/// Lets go of the handler without calling it.
final class ForgetfulDoorman: LoggingGateDelegate {
    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
    }
}

/// Hands each decision to a thread of its own, which lets go of it uncalled; waits for nothing.
final class HandingOffDoorman: LoggingGateDelegate {
    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
        Thread { withExtendedLifetime(decisionHandler) {} }.start()
    }
}

/// Calls the handler twice: yes, then no.
final class StutteringDoorman: LoggingGateDelegate {
    override func gate(_ gate: Gate, shouldAdmit visitor: String, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        log.append("shouldAdmit \(visitor)")
        decisionHandler(true)
        decisionHandler(false)
    }
}
