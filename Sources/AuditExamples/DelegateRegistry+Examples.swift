import AuditCore

extension DelegateRegistry {
    /// The examples the package ships: the checkout screen's `checkout.v1` and `checkout.v2`, and
    /// the browser's `browser.v1` and `browser.v2` (a web view whose delegate decides later).
    public static let examples: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("checkout.v1", summary: "checkout screen: invoice only with standard shipping") {
            CheckoutDelegate(version: .v1)
        }
        registry.register("checkout.v2", summary: "checkout.v1, but store pickup is no longer offered") {
            CheckoutDelegate(version: .v2)
        }
        registry.register("browser.v1", summary: "browser: https and http, not the ad host, no downloads") {
            BrowserDelegate(version: .v1)
        }
        registry.register("browser.v2", summary: "browser.v1 refactored, but plain http is cancelled") {
            BrowserDelegate(version: .v2)
        }
        return registry
    }()
}
