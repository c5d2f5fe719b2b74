import AuditCore  // public API only, as an app would audit its own web view's delegate
import AuditExamples
import Foundation

// A web view's navigation delegate decides later: through a decision handler, or as an `async`
// method's return. These delegates log every call they hear, one line each, so a run with the
// recorder can be compared with one without, and WebKit's order of notifications checked.

/// Logs every call; decides through the handler: a URL on `blocked.example` is cancelled, a
/// response the web view cannot show is cancelled, everything else allowed. Each method is the
/// class's own, so a subclass's override is what the protocol calls.
class LoggingNavigationDelegate: NavigationDelegate {
    var log: [String] = []

    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        log.append("action \(navigationAction.url) \(navigationAction.navigationType.rawValue)")
        decideAction(navigationAction, decisionHandler)
    }

    func webView(
        _ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        log.append("response \(navigationResponse.statusCode) \(navigationResponse.mimeType)")
        decisionHandler(Self.policy(for: navigationResponse))
    }

    func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(Self.policy(for: action))
    }

    static func policy(for action: WebView.NavigationAction) -> WebView.Policy {
        action.url.contains("://blocked.example") ? .cancel : .allow
    }

    static func policy(for response: WebView.NavigationResponse) -> WebView.Policy {
        response.canShowMIMEType ? .allow : .cancel
    }

    func webView(_ webView: WebView, didStartProvisionalNavigation navigation: WebView.Navigation) {
        log.append("start \(navigation.id)")
    }
    func webView(_ webView: WebView, didCommit navigation: WebView.Navigation) { log.append("commit \(navigation.id)") }
    func webView(_ webView: WebView, didFinish navigation: WebView.Navigation) { log.append("finish \(navigation.id)") }
    func webView(
        _ webView: WebView, didFailProvisionalNavigation navigation: WebView.Navigation,
        withError error: WebView.NavigationError
    ) {
        log.append("failProvisional \(navigation.id) \(error.code)")
    }
    func webView(_ webView: WebView, didFail navigation: WebView.Navigation, withError error: WebView.NavigationError) {
        log.append("fail \(navigation.id) \(error.code)")
    }
}

/// The same policies in the `async` form: each decision is the method's return, after a
/// suspension. The notifications are the class's above.
final class AsyncLoggingNavigationDelegate: LoggingNavigationDelegate, AsyncNavigationDelegate {
    func webView(_ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction) async
        -> WebView.Policy
    {
        log.append("action \(navigationAction.url) \(navigationAction.navigationType.rawValue)")
        await Task.yield()  // a suspension: the answer still comes before the input ends
        return Self.policy(for: navigationAction)
    }

    func webView(_ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse) async
        -> WebView.Policy
    {
        log.append("response \(navigationResponse.statusCode) \(navigationResponse.mimeType)")
        return Self.policy(for: navigationResponse)
    }
}

/// Holds each action decision until the test answers it.
final class HoldingNavigationDelegate: LoggingNavigationDelegate {
    var held: [@Sendable (WebView.Policy) -> Void] = []

    override func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        held.append(decisionHandler)
    }
}

/// Lets go of each action decision's handler without calling it.
final class ForgetfulNavigationDelegate: LoggingNavigationDelegate {
    override func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {}
}

/// Calls each action decision's handler twice: allow, then cancel.
final class StutteringNavigationDelegate: LoggingNavigationDelegate {
    override func decideAction(
        _ action: WebView.NavigationAction, _ decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(.allow)
        decisionHandler(.cancel)
    }
}

/// A browser that asks the user about a host it does not know: it holds the decision until the
/// user taps Allow (segment 0) or Block (segment 1) on the prompt, a segmented control beside the
/// web view. Its answers come later, at another widget's input, in a scenario.
final class PromptingBrowser: NavigationDelegate, SegmentedControlDelegate {
    static let known: Set<String> = ["https://a.example/"]
    private var held: [@Sendable (WebView.Policy) -> Void] = []

    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        if Self.known.contains(navigationAction.url) {
            decisionHandler(.allow)
        } else {
            held.append(decisionHandler)
        }
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {
        let answering = held
        held = []
        for handler in answering { handler(index == 0 ? .allow : .cancel) }
    }
}

/// Allows every host at once: the prompt's taps answer nothing.
final class TrustingBrowser: NavigationDelegate, SegmentedControlDelegate {
    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(.allow)
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool) {}
}
