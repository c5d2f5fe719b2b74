// expect: 'performInput' is unavailable: declare the input as 'static let x: Input<Widget, Arguments> = Input(…)'
import AuditCore

final class Knob: View {
    static let turn = CallbackDescriptor(input: "turn", of: "Knob", arguments: ["value"])

    func turn(to value: Int) {
        performInput(Self.turn, [.int(value)]) { .int(value) }
    }
}
