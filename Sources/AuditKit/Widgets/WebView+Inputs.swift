import AuditModel
import AuditStorage
import Foundation

extension WebView {
    /// The inputs that drive a web view, as recorded: the user's (`click`), the app's (`load`) and
    /// the network's (`respond`, `finish`, `fail`).
    public enum Inputs {
        public static let load: Input<WebView, String> = Input(
            "load", of: "WebView", arguments: .one("url", .string), checkAsBuilt: { _, url in urlProblem(url) },
            perform: { $0.load($1) })
        public static let click: Input<WebView, String> = Input(
            "click", of: "WebView", arguments: .one("url", .string), checkAsBuilt: { _, url in urlProblem(url) },
            perform: { $0.click($1) })
        public static let respond: Input<WebView, (Int, String)> = Input(
            "respond", of: "WebView", arguments: .two("statusCode", .int, "mimeType", .string),
            defaults: ["mimeType": .string("text/html")],
            checkAsBuilt: { _, arguments in
                if !(100...599).contains(arguments.0) {
                    return StepProblem(field: "statusCode", "must be an HTTP status code, 100...599")
                }
                let parts = arguments.1.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }) else {
                    return StepProblem(field: "mimeType", "expected a MIME type such as text/html")
                }
                return nil
            }, perform: { $0.respond(statusCode: $1.0, mimeType: $1.1) })
        public static let finish: Input<WebView, Void> = Input(
            "finish", of: "WebView", arguments: .none, perform: { webView, _ in webView.finishLoading() })
        public static let fail: Input<WebView, Int> = Input(
            "fail", of: "WebView", arguments: .one("code", .int),
            checkAsBuilt: { _, code in code == 0 ? "an error code is not 0 (-1009: not connected)" : nil },
            perform: { $0.failLoading(code: $1) })
        public static let all: [any WidgetInput] = [load, click, respond, finish, fail]
    }

    /// Why `url` cannot be navigated to: nil for an absolute URL (a scheme, then the rest).
    static func urlProblem(_ url: String) -> StepProblem? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme, !scheme.isEmpty,
            url.count > scheme.count + 1
        else { return "expected an absolute URL such as https://example.com/" }
        return nil
    }
}
