// auditctl: the command line with the package's examples registered, and the demo of the quick
// start added (the checkout example, recorded with checkout.v1 and replayed against checkout.v2).
import AuditCLI
import AuditCore
import AuditExamples

AuditCommandLine(registry: .examples, catalog: .builtIn)
    .adding(
        .demo(
            "the checkout example", scenario: { try Examples.checkout() }, delegate: "checkout.v1",
            candidate: "checkout.v2")
    )
    .main()
