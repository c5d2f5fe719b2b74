import AuditModel
import AuditStorage

extension InputGenerators {
    /// How `explore` drives a web view: navigations to a few URLs that policies tell apart (https
    /// and plain http, two hosts, a path that looks like a download, a scheme the web view would
    /// not load), and the network's answers only where a navigation waits for them, so every
    /// generated step acts.
    static let webView: [InputGenerator] = [
        WebView.Inputs.load.generator(weight: 0.5) { _, random in webURLs.randomElement(using: &random) },
        WebView.Inputs.click.generator { _, random in webURLs.randomElement(using: &random) },
        WebView.Inputs.respond.generator(weight: 2) { webView, random in
            guard webView.phase == .provisional else { return nil }
            return (
                [200, 200, 204, 301, 404, 500].randomElement(using: &random)!,
                ["text/html", "text/plain", "application/json", "image/png", "application/zip"].randomElement(
                    using: &random)!
            )
        },
        WebView.Inputs.finish.generator(weight: 1.5) { webView, _ in
            webView.phase == .committed || (webView.isLoading && webView.phase == .decidingAction) ? () : nil
        },
        WebView.Inputs.fail.generator(weight: 0.5) { webView, random in
            webView.phase == .provisional || webView.phase == .committed
                ? [-1009, -1001, -1005].randomElement(using: &random) : nil
        },
    ]

    static let webURLs = [
        "https://example.com/", "https://example.com/news", "http://example.com/archive",
        "https://ads.example.net/banner", "https://example.com/report.zip", "mailto:someone@example.com",
    ]
}
