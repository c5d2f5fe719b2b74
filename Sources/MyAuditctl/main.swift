// An example of your own auditctl: the package's examples plus a delegate of "your app",
// registered in a few lines. `swift run my-auditctl replay --session 1 --delegate checkout.strict`.
import AuditCLI
import AuditCore
import AuditExamples

/// "Your app's" checkout delegate: like checkout.v1, but PayPal is never offered.
final class StrictCheckoutDelegate: SegmentedControlDelegate {
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        !(segmentedControl.identifier == "payment" && segmentedControl.segments[index] == "PayPal")
    }
}

var registry = DelegateRegistry.examples
registry.register("checkout.strict", summary: "our checkout: PayPal is never offered") { StrictCheckoutDelegate() }
registry.register("linked", summary: "selecting a segment selects the next one of the next control") {
    LinkedControlsDelegate()
}
AuditCommandLine(registry: registry, catalog: .builtIn, programName: "my-auditctl").main()
