// expect: 'delegateDefault' is unavailable: write the default implementation as 'Callbacks.x.unimplemented(arguments)'
import AuditCore

protocol KnobDelegate: AnyObject {
    func knobShouldTurn(_ knob: AnyObject) -> Bool
}

extension KnobDelegate {
    func knobShouldTurn(_ knob: AnyObject) -> Bool { delegateDefault(true) }
}
