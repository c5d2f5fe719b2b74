import AuditCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an app's delegate decides while a `FetchView` loads a page: the three decisions
/// `URLSessionTaskDelegate` and `URLSessionDataDelegate` ask for, through completion handlers of
/// Foundation's types, and two notifications. Every method has a default, as in Foundation: follow
/// the redirect, handle the challenge the default way, allow the response.
///
/// The view calls each method on the thread of its `fetch` input, one at a time, never on the
/// URL session's queue; a handler may be called then or later, from any thread, once.
public protocol FetchViewDelegate: AnyObject {
    /// The server redirects to `request`: call `completionHandler` with the request to follow (this
    /// one, or another), or nil to refuse the redirect and take `response` as the answer.
    func fetchView(
        _ view: FetchView, willRedirect response: FetchResponse, to request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void)
    /// The server asks who is there: answer with a disposition and, for `.useCredential`, a credential.
    func fetchView(
        _ view: FetchView, didReceive challenge: FetchChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
    /// A response's head arrived: `.cancel` stops the load; anything else lets its body come.
    func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)
    /// A response's whole body (what the session delivered for it, in one piece).
    func fetchView(_ view: FetchView, didLoad body: Data)
    /// The load ended: nil on success, or the session's error.
    func fetchView(_ view: FetchView, didCompleteWithError error: (any Error)?)
}

extension FetchViewDelegate {
    public func fetchView(
        _ view: FetchView, willRedirect response: FetchResponse, to request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        FetchView.callbacks.willRedirect.unimplemented((response, request), completionHandler)
    }
    public func fetchView(
        _ view: FetchView, didReceive challenge: FetchChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        FetchView.callbacks.challenge.unimplemented(challenge) {
            completionHandler($0.foundationDisposition, $0.credential)
        }
    }
    public func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        FetchView.callbacks.response.unimplemented(response) { completionHandler($0 ? .allow : .cancel) }
    }
    public func fetchView(_ view: FetchView, didLoad body: Data) { FetchView.callbacks.didLoad.unimplemented(body) }
    public func fetchView(_ view: FetchView, didCompleteWithError error: (any Error)?) {
        FetchView.callbacks.didComplete.unimplemented(error)
    }
}

/// Every method of `FetchViewDelegate`, declared once: the three decisions answer later (through
/// a completion handler), the notifications at once.
///
/// - `willRedirect` is an **override** of the proposed request (nil refuses the redirect), recorded
///   as the path it leads to (`"/page.html"`, or null).
/// - `challenge` is a **value**: the disposition and the credential's user and password.
/// - `response` is a **veto**: `false` (VETOED) when the delegate answers `.cancel`.
///
/// The two `fetchView(_:didReceive:completionHandler:)` overloads are recorded under names of
/// their own, `didReceiveChallenge:` and `didReceiveResponse:`, as Foundation tells its own apart
/// by `task:` and `dataTask:`.
public struct FetchCallbacks: CallbackTable {
    public let willRedirect = LaterCallback<any FetchViewDelegate, FetchView, (FetchResponse, URLRequest), URLRequest?>(
        "fetchView(_:willRedirect:to:completionHandler:)",
        arguments: .two("response", .codable, "request", .request),
        answer: .override(proposal: { $0.1 }, coding: .optional(.request), described: "follow the redirect"),
        invoke: { delegate, view, arguments, handler in
            delegate.fetchView(view, willRedirect: arguments.0, to: arguments.1, completionHandler: handler)
        })
    public let challenge = LaterCallback<any FetchViewDelegate, FetchView, FetchChallenge, ChallengeAnswer>(
        "fetchView(_:didReceiveChallenge:completionHandler:)", arguments: .one("challenge", .codable),
        answer: .value(coding: .codable, default: ChallengeAnswer(.performDefaultHandling)),
        invoke: { delegate, view, challenge, handler in
            delegate.fetchView(view, didReceive: challenge) { disposition, credential in
                handler(ChallengeAnswer(disposition, credential))
            }
        })
    public let response = LaterCallback<any FetchViewDelegate, FetchView, FetchResponse, Bool>(
        "fetchView(_:didReceiveResponse:completionHandler:)", arguments: .one("response", .codable),
        answer: .veto(),
        invoke: { delegate, view, response, handler in
            delegate.fetchView(view, didReceive: response) { handler($0 != .cancel) }
        })
    public let didLoad = Callback<any FetchViewDelegate, FetchView, Data, Void>(
        "fetchView(_:didLoad:)", arguments: .one("body", .body), answer: .void,
        invoke: { $0.fetchView($1, didLoad: $2) })
    public let didComplete = Callback<any FetchViewDelegate, FetchView, (any Error)?, Void>(
        "fetchView(_:didCompleteWithError:)", arguments: .one("error", .optional(.urlError)), answer: .void,
        invoke: { $0.fetchView($1, didCompleteWithError: $2) })
}

/// A response's head, as the delegate is told it: the status, the path it came from on the view's
/// server (the origin is left out, so a recording replays against a server on another port), and
/// its MIME type.
public struct FetchResponse: Codable, Sendable, Equatable {
    public var status: Int
    public var path: String
    public var mimeType: String?

    public init(status: Int, path: String, mimeType: String?) {
        (self.status, self.path, self.mimeType) = (status, path, mimeType)
    }

    init(_ response: URLResponse) {
        self.init(
            status: (response as? HTTPURLResponse)?.statusCode ?? 0, path: response.url.map(FetchView.path) ?? "",
            mimeType: response.mimeType)
    }
}

/// An authentication challenge, as the delegate is told it: the method
/// (`NSURLAuthenticationMethodHTTPBasic`), the realm, how many answers failed before, and the status
/// of the response that asked.
public struct FetchChallenge: Codable, Sendable, Equatable {
    public var method: String
    public var realm: String?
    public var previousFailureCount: Int
    public var status: Int?

    public init(method: String, realm: String?, previousFailureCount: Int, status: Int?) {
        (self.method, self.realm, self.previousFailureCount, self.status) = (
            method, realm, previousFailureCount, status
        )
    }

    init(_ challenge: URLAuthenticationChallenge) {
        self.init(
            method: challenge.protectionSpace.authenticationMethod, realm: challenge.protectionSpace.realm,
            previousFailureCount: challenge.previousFailureCount,
            status: (challenge.failureResponse as? HTTPURLResponse)?.statusCode)
    }
}

/// How a delegate answered a challenge: the disposition (by name) and the credential it gave.
public struct ChallengeAnswer: Codable, Sendable, Equatable {
    /// `useCredential`, `performDefaultHandling`, `cancelAuthenticationChallenge` or `rejectProtectionSpace`.
    public var disposition: String
    public var user: String?
    public var password: String?

    public init(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential? = nil) {
        self.disposition =
            switch disposition {
            case .useCredential: "useCredential"
            case .performDefaultHandling: "performDefaultHandling"
            case .cancelAuthenticationChallenge: "cancelAuthenticationChallenge"
            case .rejectProtectionSpace: "rejectProtectionSpace"
            @unknown default: "unknown"
            }
        user = credential?.user
        password = credential?.password
    }

    /// The disposition as Foundation's value (an unknown name: cancel the challenge).
    public var foundationDisposition: URLSession.AuthChallengeDisposition {
        switch disposition {
        case "useCredential": .useCredential
        case "performDefaultHandling": .performDefaultHandling
        case "rejectProtectionSpace": .rejectProtectionSpace
        default: .cancelAuthenticationChallenge
        }
    }

    /// The credential as Foundation's value, for the session only.
    public var credential: URLCredential? {
        user.map { URLCredential(user: $0, password: password ?? "", persistence: .forSession) }
    }
}

extension ValueCoding where Value == URLRequest {
    /// A request on the view's server, recorded as its path (`"/page.html"`) and read back as a
    /// GET of that path on `FetchView.origin`.
    public static var request: ValueCoding<URLRequest> {
        ValueCoding(
            encode: { request in .string(request.url.map(FetchView.path) ?? "") },
            decode: { value in
                guard case .string(let path) = value else { return nil }
                return URLRequest(url: FetchView.url(path))
            }, expected: "a path on the server")
    }
}

extension ValueCoding where Value == Data {
    /// A body, recorded as its text when it is UTF-8, otherwise as `{"base64": …}`.
    public static var body: ValueCoding<Data> {
        ValueCoding(
            encode: { data in
                String(data: data, encoding: .utf8).map(AuditValue.string)
                    ?? .object(["base64": .string(data.base64EncodedString())])
            },
            decode: { value in
                switch value {
                case .string(let text): Data(text.utf8)
                case .object(let fields):
                    if case .string(let encoded)? = fields["base64"] { Data(base64Encoded: encoded) } else { nil }
                default: nil
                }
            }, expected: "text, or an object with a base64 member")
    }
}

extension ValueCoding where Value == any Error {
    /// A session's error, recorded as its domain and code (`{"code": -999, "domain": "NSURLErrorDomain"}`).
    public static var urlError: ValueCoding<any Error> {
        ValueCoding(
            encode: { error in
                let error = error as NSError
                return .object(["domain": .string(error.domain), "code": .int(error.code)])
            },
            decode: { value in
                guard case .string(let domain)? = value["domain"], case .int(let code)? = value["code"] else {
                    return nil
                }
                return NSError(domain: domain, code: code)
            }, expected: "an error object with a domain and a code")
    }
}
