import AuditModel
import AuditStorage

extension WebView {
    /// A navigation delegate's decision: WebKit's `WKNavigationActionPolicy` and
    /// `WKNavigationResponsePolicy` without `.download`. Recorded as a veto: `true` for `.allow`,
    /// `false` for `.cancel`.
    public enum Policy: Sendable, Equatable {
        case cancel
        case allow

        /// The policy a recorded veto answer stands for: `true` allows.
        public init(_ allows: Bool) { self = allows ? .allow : .cancel }
    }

    /// What started a navigation (`WKNavigationType`, in part).
    public enum NavigationType: String, Codable, Sendable {
        /// The user followed a link (the `click` input).
        case linkActivated
        /// Anything else: a load in code (the `load` input).
        case other
    }

    /// One navigation, from its decision to its end: what WebKit's `WKNavigation` stands for,
    /// named by a number the web view counts from 1, so a replay names it as the recording did.
    public struct Navigation: Codable, Sendable, Hashable {
        public let id: Int
        public let url: String

        public init(id: Int, url: String) {
            self.id = id
            self.url = url
        }
    }

    /// What the delegate decides on before a navigation starts (`WKNavigationAction`): the URL
    /// requested and how.
    public struct NavigationAction: Codable, Sendable, Equatable {
        public let url: String
        public let navigationType: NavigationType

        public init(url: String, navigationType: NavigationType) {
            self.url = url
            self.navigationType = navigationType
        }
    }

    /// What the delegate decides on when the response arrives (`WKNavigationResponse` and its
    /// `HTTPURLResponse`): the URL, the status code and the MIME type, and whether the web view
    /// can show that type (`canShowMIMEType`: text, images, JSON, XHTML and PDF here).
    public struct NavigationResponse: Codable, Sendable, Equatable {
        public let url: String
        public let statusCode: Int
        public let mimeType: String
        public let canShowMIMEType: Bool

        public init(url: String, statusCode: Int, mimeType: String) {
            self.url = url
            self.statusCode = statusCode
            self.mimeType = mimeType
            canShowMIMEType = Self.canShow(mimeType)
        }

        /// Whether the web view shows `mimeType` itself rather than offering it as a download.
        static func canShow(_ mimeType: String) -> Bool {
            let type = mimeType.lowercased()
            return type.hasPrefix("text/") || type.hasPrefix("image/")
                || ["application/json", "application/xhtml+xml", "application/pdf"].contains(type)
        }
    }

    /// Why a navigation failed, as WebKit reports it: an `NSError`'s domain and code.
    public struct NavigationError: Error, Codable, Sendable, Hashable {
        public let domain: String
        public let code: Int

        public init(domain: String, code: Int) {
            self.domain = domain
            self.code = code
        }

        public static let urlErrorDomain = "NSURLErrorDomain"
        public static let webKitErrorDomain = "WebKitErrorDomain"

        /// `NSURLErrorCancelled` (-999): a new navigation replaced this one.
        public static let cancelled = NavigationError(domain: urlErrorDomain, code: -999)
        /// `WebKitErrorFrameLoadInterruptedByPolicyChange` (102): the delegate cancelled the
        /// response.
        public static let frameLoadInterruptedByPolicyChange = NavigationError(domain: webKitErrorDomain, code: 102)

        /// A network failure with `NSURLErrorDomain`'s `code` (`-1009`: not connected to the
        /// internet; `-1001`: timed out), as the `fail` input reports it.
        public static func network(_ code: Int) -> NavigationError {
            NavigationError(domain: urlErrorDomain, code: code)
        }
    }

    /// Where the web view's navigations stand, as each input's result records it.
    public enum Phase: String, Sendable {
        /// No navigation in progress.
        case idle
        /// A navigation waits for the delegate's action decision (a committed page may still be
        /// loading).
        case decidingAction
        /// The navigation started and waits for its response (`respond`), or a failure.
        case provisional
        /// The response arrived and waits for the delegate's response decision.
        case decidingResponse
        /// The navigation committed and its page loads until `finish` or `fail`.
        case committed
    }
}
