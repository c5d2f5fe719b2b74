import AuditModel
import AuditStorage

/// The navigation delegate of a `WebView`, in the completion-handler form of WebKit's
/// `WKNavigationDelegate`: each navigation waits until the delegate calls `decisionHandler`,
/// now or later. Every method is optional: the extension below answers `.allow` at once and
/// marks it, so the audit records "not implemented, default used".
///
/// Call a decision handler exactly once, on the web view's thread. A handler never called, called
/// twice, or called after the web view gave up on the navigation (a new load replaced it) is
/// recorded as a mistake; the web view takes the first answer only. A delegate that adopts
/// `AsyncNavigationDelegate` is asked through its `async` methods instead.
public protocol NavigationDelegate: AnyObject {
    /// Whether the navigation may start: `.cancel` vetoes it (no notification follows).
    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void)
    /// Whether the response may be shown: `.cancel` vetoes it, and the navigation fails with
    /// `WebView.NavigationError.frameLoadInterruptedByPolicyChange`.
    func webView(
        _ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void)
    func webView(_ webView: WebView, didStartProvisionalNavigation navigation: WebView.Navigation)
    func webView(_ webView: WebView, didCommit navigation: WebView.Navigation)
    func webView(_ webView: WebView, didFinish navigation: WebView.Navigation)
    func webView(
        _ webView: WebView, didFailProvisionalNavigation navigation: WebView.Navigation,
        withError error: WebView.NavigationError)
    func webView(_ webView: WebView, didFail navigation: WebView.Navigation, withError error: WebView.NavigationError)
}

extension NavigationDelegate {
    public func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        WebView.callbacks.decideAction.unimplemented(navigationAction) { decisionHandler(WebView.Policy($0)) }
    }

    public func webView(
        _ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        WebView.callbacks.decideResponse.unimplemented(navigationResponse) { decisionHandler(WebView.Policy($0)) }
    }

    public func webView(_ webView: WebView, didStartProvisionalNavigation navigation: WebView.Navigation) {
        WebView.callbacks.didStartProvisional.unimplemented(navigation)
    }

    public func webView(_ webView: WebView, didCommit navigation: WebView.Navigation) {
        WebView.callbacks.didCommit.unimplemented(navigation)
    }

    public func webView(_ webView: WebView, didFinish navigation: WebView.Navigation) {
        WebView.callbacks.didFinish.unimplemented(navigation)
    }

    public func webView(
        _ webView: WebView, didFailProvisionalNavigation navigation: WebView.Navigation,
        withError error: WebView.NavigationError
    ) {
        WebView.callbacks.didFailProvisional.unimplemented((navigation, error))
    }

    public func webView(
        _ webView: WebView, didFail navigation: WebView.Navigation, withError error: WebView.NavigationError
    ) {
        WebView.callbacks.didFail.unimplemented((navigation, error))
    }
}

/// The callback table of `NavigationDelegate`: each callback declared once. The two decisions
/// are `LaterCallback`s recorded as vetoes (`true` allows, `false` cancels); their names are
/// WebKit's selectors, which tell the two overloads apart.
public struct NavigationCallbacks: CallbackTable {
    public static let protocolName = "NavigationDelegate"

    public let decideAction = LaterCallback<any NavigationDelegate, WebView, WebView.NavigationAction, Bool>(
        "webView(_:decidePolicyForNavigationAction:decisionHandler:)", arguments: .one("action", .codable),
        answer: .veto(),
        invoke: { delegate, webView, action, handler in
            delegate.webView(webView, decidePolicyFor: action) { handler($0 == .allow) }
        })

    public let decideResponse = LaterCallback<any NavigationDelegate, WebView, WebView.NavigationResponse, Bool>(
        "webView(_:decidePolicyForNavigationResponse:decisionHandler:)", arguments: .one("response", .codable),
        answer: .veto(),
        invoke: { delegate, webView, response, handler in
            delegate.webView(webView, decidePolicyFor: response) { handler($0 == .allow) }
        })

    public let didStartProvisional = Callback<any NavigationDelegate, WebView, WebView.Navigation, Void>(
        "webView(_:didStartProvisionalNavigation:)", arguments: .one("navigation", .codable), answer: .void,
        invoke: { $0.webView($1, didStartProvisionalNavigation: $2) })

    public let didCommit = Callback<any NavigationDelegate, WebView, WebView.Navigation, Void>(
        "webView(_:didCommit:)", arguments: .one("navigation", .codable), answer: .void,
        invoke: { $0.webView($1, didCommit: $2) })

    public let didFinish = Callback<any NavigationDelegate, WebView, WebView.Navigation, Void>(
        "webView(_:didFinish:)", arguments: .one("navigation", .codable), answer: .void,
        invoke: { $0.webView($1, didFinish: $2) })

    public let didFailProvisional = Callback<
        any NavigationDelegate, WebView, (WebView.Navigation, WebView.NavigationError), Void
    >(
        "webView(_:didFailProvisionalNavigation:withError:)",
        arguments: .two("navigation", .codable, "error", .codable), answer: .void,
        invoke: { $0.webView($1, didFailProvisionalNavigation: $2.0, withError: $2.1) })

    public let didFail = Callback<any NavigationDelegate, WebView, (WebView.Navigation, WebView.NavigationError), Void>(
        "webView(_:didFail:withError:)", arguments: .two("navigation", .codable, "error", .codable), answer: .void,
        invoke: { $0.webView($1, didFail: $2.0, withError: $2.1) })
}
