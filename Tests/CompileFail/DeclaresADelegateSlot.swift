// expect: 'DelegateSlot' is unavailable: declare 'public weak var delegate: (any YourDelegate)?'
import AuditCore

protocol KnobDelegate: AnyObject {}

final class Knob: View {
    private var slot = DelegateSlot<any KnobDelegate>()
}
