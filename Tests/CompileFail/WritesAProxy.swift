// expect: 'DelegateProxy' is unavailable: delete the proxy class
import AuditCore

final class KnobProxy: DelegateProxy {}
