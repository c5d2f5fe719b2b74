import AuditModel
import AuditStorage

/// The `async` form of `NavigationDelegate`: each decision is the method's return. A web view
/// whose delegate adopts this protocol asks its two decisions here, never through the handler
/// methods it inherits; the notifications are `NavigationDelegate`'s.
///
/// The web view's thread waits for the method to return and runs its work itself
/// (`LaterCallback`'s `invokeAsync:` form): the answer comes before the input that asked ends,
/// and takes no virtual time. Both methods are optional: the extension below returns `.allow`
/// and marks it, so the audit records "not implemented, default used".
public protocol AsyncNavigationDelegate: NavigationDelegate {
    /// Whether the navigation may start: `.cancel` vetoes it (no notification follows).
    func webView(_ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction) async
        -> WebView.Policy
    /// Whether the response may be shown: `.cancel` vetoes it, and the navigation fails with
    /// `WebView.NavigationError.frameLoadInterruptedByPolicyChange`.
    func webView(_ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse) async
        -> WebView.Policy
}

extension AsyncNavigationDelegate {
    public func webView(_ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction) async
        -> WebView.Policy
    {
        WebView.Policy(WebView.asyncCallbacks.decideAction.unimplemented(navigationAction))
    }

    public func webView(_ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse) async
        -> WebView.Policy
    {
        WebView.Policy(WebView.asyncCallbacks.decideResponse.unimplemented(navigationResponse))
    }
}

/// The callback table of `AsyncNavigationDelegate`: its two decisions, declared as the handler
/// form's are but with `invokeAsync:`. A `WebView` kind lists this table after
/// `NavigationCallbacks`, as a refining protocol's table follows its parent's.
public struct AsyncNavigationCallbacks: CallbackTable {
    public static let protocolName = "AsyncNavigationDelegate"

    public let decideAction = LaterCallback<any AsyncNavigationDelegate, WebView, WebView.NavigationAction, Bool>(
        "webView(_:decidePolicyForNavigationAction:)", arguments: .one("action", .codable), answer: .veto(),
        invokeAsync: { await $0.webView($1, decidePolicyFor: $2) == .allow })

    public let decideResponse = LaterCallback<
        any AsyncNavigationDelegate, WebView, WebView.NavigationResponse, Bool
    >(
        "webView(_:decidePolicyForNavigationResponse:)", arguments: .one("response", .codable), answer: .veto(),
        invokeAsync: { await $0.webView($1, decidePolicyFor: $2) == .allow })
}
