// expect: cannot override 'auditLinkDidChange' which has been marked unavailable: delete this override
import AuditCore

final class Knob: View {
    override func auditLinkDidChange(_ link: AuditLink?) {}
}
