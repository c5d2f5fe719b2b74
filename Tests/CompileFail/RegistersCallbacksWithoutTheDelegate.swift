// expect: is unavailable: name the widget's delegate property too: 'delegate: \.delegate, callbacks: Widget.callbacks'
import AuditCore

protocol KnobDelegate: AnyObject {
    func knob(_ knob: Knob, shouldTurnTo angle: Double) -> Bool
}

struct KnobCallbacks: CallbackTable {
    let shouldTurn = Callback<any KnobDelegate, Knob, Double, Bool>(
        "knob(_:shouldTurnTo:)", arguments: .one("angle", .double), answer: .veto(),
        invoke: { $0.knob($1, shouldTurnTo: $2) })
}

struct KnobProperties: Codable, Sendable { var angle: Double }

final class Knob: View {
    static let callbacks = KnobCallbacks()
    weak var delegate: (any KnobDelegate)?
    var angle = 0.0
}

let kind = WidgetKind(
    "Knob", properties: KnobProperties.self, make: { id, frame, _ in Knob(identifier: id, frame: frame) },
    describe: { KnobProperties(angle: $0.angle) }, callbacks: Knob.callbacks)
