import AuditCore

extension DelegateRegistry {
    /// The examples the package ships: the checkout screen's `checkout.v1` and `checkout.v2`.
    public static let examples: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("checkout.v1", summary: "checkout screen: invoice only with standard shipping") {
            CheckoutDelegate(version: .v1)
        }
        registry.register("checkout.v2", summary: "checkout.v1, but store pickup is no longer offered") {
            CheckoutDelegate(version: .v2)
        }
        return registry
    }()
}
