// expect: cannot override 'adoptDelegate' which has been marked unavailable: delete this override and register the delegate
import AuditCore

final class Knob: View {
    override func adoptDelegate(_ candidate: AnyObject) {}
}
