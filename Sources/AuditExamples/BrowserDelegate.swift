import AuditCore

/// The example browser's navigation delegate, in two versions. It decides at once, through the
/// decision handler (`NavigationDelegate`'s completion-handler form), and notes each page
/// finished and each failure.
///
/// `v1`:
/// - a navigation to `https:` or `http:` is allowed, unless it goes to the blocked ad host;
///   every other scheme is cancelled (the app would hand it to the system);
/// - a response the web view cannot show (a download) is cancelled.
///
/// `v2`, "refactored" into one switch over the scheme, also cancels plain `http:`: the one
/// planted difference, which replay finds.
final class BrowserDelegate: NavigationDelegate {
    enum Version {
        case v1
        case v2
    }

    static let blockedHost = "ads.example.net"

    let version: Version
    private(set) var notes: [String] = []

    init(version: Version) {
        self.version = version
    }

    func webView(
        _ webView: WebView, decidePolicyFor navigationAction: WebView.NavigationAction,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(policy(for: navigationAction.url))
    }

    func webView(
        _ webView: WebView, decidePolicyFor navigationResponse: WebView.NavigationResponse,
        decisionHandler: @escaping @Sendable (WebView.Policy) -> Void
    ) {
        decisionHandler(navigationResponse.canShowMIMEType ? .allow : .cancel)
    }

    func webView(_ webView: WebView, didFinish navigation: WebView.Navigation) {
        notes.append("finished \(navigation.url)")
    }

    func webView(
        _ webView: WebView, didFailProvisionalNavigation navigation: WebView.Navigation,
        withError error: WebView.NavigationError
    ) {
        notes.append("could not open \(navigation.url): \(error.domain) \(error.code)")
    }

    func webView(_ webView: WebView, didFail navigation: WebView.Navigation, withError error: WebView.NavigationError) {
        notes.append("stopped loading \(navigation.url): \(error.domain) \(error.code)")
    }

    private func policy(for url: String) -> WebView.Policy {
        let (scheme, host) = Self.schemeAndHost(url)
        switch version {
        case .v1:
            guard scheme == "https" || scheme == "http" else { return .cancel }
            return host == Self.blockedHost ? .cancel : .allow
        case .v2:
            switch (scheme, host) {
            case (_, Self.blockedHost): return .cancel
            case ("https", _): return .allow
            default: return .cancel
            }
        }
    }

    /// The URL's scheme and host, lowercased (`https://Example.com/a` → `https`, `example.com`).
    static func schemeAndHost(_ url: String) -> (scheme: String, host: String) {
        let parts = url.split(separator: ":", maxSplits: 1)
        let scheme = parts.first.map { $0.lowercased() } ?? ""
        let rest = parts.count == 2 ? parts[1] : ""
        let authority = rest.hasPrefix("//") ? rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" } : ""
        return (scheme, authority.lowercased())
    }
}
