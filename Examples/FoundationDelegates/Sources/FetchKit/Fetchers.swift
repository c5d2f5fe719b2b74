import AuditCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every widget kind the fetch tools know: the package's own and the fetch view.
public let fetchCatalog = WidgetCatalog.builtIn.adding(FetchView.kind)

/// A reader of the loopback site, written as an app writes a `URLSession` delegate (it knows
/// nothing of auditing): it follows redirects, signs in with the reader's credential, and reads
/// every response. It keeps the bodies it got, and answers every handler at once, on the thread
/// that asks.
public class SiteReader: FetchViewDelegate {
    public private(set) var bodies: [Data] = []
    public private(set) var errors: [Int] = []

    public init() {}

    /// The request the reader follows when redirected to `request` (nil: none).
    func follows(_ request: URLRequest, from response: FetchResponse) -> URLRequest? { request }

    /// Whether the reader reads a response of `mimeType`.
    func reads(_ mimeType: String?) -> Bool { true }

    public func fetchView(
        _ view: FetchView, willRedirect response: FetchResponse, to request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(follows(request, from: response))
    }
    public func fetchView(
        _ view: FetchView, didReceive challenge: FetchChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard challenge.previousFailureCount == 0 else { return completionHandler(.cancelAuthenticationChallenge, nil) }
        completionHandler(
            .useCredential,
            URLCredential(user: LoopbackServer.user, password: LoopbackServer.password, persistence: .forSession))
    }
    public func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(reads(response.mimeType) ? .allow : .cancel)
    }
    public func fetchView(_ view: FetchView, didLoad body: Data) { bodies.append(body) }
    public func fetchView(_ view: FetchView, didCompleteWithError error: (any Error)?) {
        if let error { errors.append((error as NSError).code) }
    }
}

/// The same reader after a "refactoring", with two planted policy changes: it refuses redirects
/// (the first version follows them), and cancels audio responses (the first version reads them).
public final class SiteReaderV2: SiteReader {
    override func follows(_ request: URLRequest, from response: FetchResponse) -> URLRequest? { nil }
    override func reads(_ mimeType: String?) -> Bool { !(mimeType ?? "").hasPrefix("audio/") }
}

/// The first version's policy, answering every handler later, from a queue of its own, as a
/// delegate that looks something up first would: the same answers at another time.
public final class LateSiteReader: SiteReader {
    private static let answering = DispatchQueue(label: "fetch.later")

    public override func fetchView(
        _ view: FetchView, willRedirect response: FetchResponse, to request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        super.fetchView(view, willRedirect: response, to: request) { answer in
            Self.answering.async { completionHandler(answer) }
        }
    }
    public override func fetchView(
        _ view: FetchView, didReceive challenge: FetchChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        super.fetchView(view, didReceive: challenge) { disposition, credential in
            let user = credential?.user
            let password = credential?.password
            Self.answering.async {
                completionHandler(
                    disposition,
                    user.map { URLCredential(user: $0, password: password ?? "", persistence: .forSession) })
            }
        }
    }
    public override func fetchView(
        _ view: FetchView, didReceive response: FetchResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        super.fetchView(view, didReceive: response) { disposition in
            Self.answering.async { completionHandler(disposition) }
        }
    }
}

extension DelegateRegistry {
    /// The site readers, by name: what `fetch-audit --delegate` and the replayer look up.
    public static let fetchers: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("fetch.v1", summary: "follows redirects, signs in, reads every response") { SiteReader() }
        registry.register("fetch.v2", summary: "refuses redirects, cancels audio responses (a regression)") {
            SiteReaderV2()
        }
        registry.register("fetch.later", summary: "fetch.v1's answers, each given later from another queue") {
            LateSiteReader()
        }
        return registry
    }()
}
