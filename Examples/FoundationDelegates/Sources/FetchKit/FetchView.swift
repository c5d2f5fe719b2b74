import AuditCore
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A view that loads pages from one HTTP server with a real Foundation `URLSession`: its input
/// `fetch` runs a data task for a path, and the view, the session's delegate, asks its own
/// `delegate` (an app's `FetchViewDelegate`) through the declared `FetchCallbacks`, so every
/// decision is recorded while a recorder audits the view.
///
/// `fetch` returns when the load has ended: the session's delegate calls (which come on the
/// session's queue) are handed to the input's thread and asked there, in the order they came,
/// so they nest under the input and nothing else happens meanwhile. The view answers the session
/// with the answer its delegate gives (or, in isolated replay, the recorded one), with these
/// exceptions for Linux Foundation (see the README): a response answered `.cancel` is cancelled by
/// the view itself, and `.performDefaultHandling` without a credential cancels the challenge. A
/// delegate that lets go of a handler without calling it stops the load (see `FetchOutcome`).
public final class FetchView: View {
    public static let callbacks = FetchCallbacks()
    public weak var delegate: (any FetchViewDelegate)?
    /// How the last fetch ended.
    public private(set) var outcome: FetchOutcome?

    /// The server every view fetches from: set it before fetching (the tests and `fetch-audit`
    /// set it to their `LoopbackServer`'s origin).
    public static var origin: URL {
        get { currentOrigin.withLock { $0 } }
        set { currentOrigin.withLock { $0 = newValue } }
    }
    private static let currentOrigin = Mutex(URL(string: "http://127.0.0.1")!)

    public override init(identifier: String, frame: Rect = .zero) {
        super.init(identifier: identifier, frame: frame)
    }

    /// Loads `path` from `FetchView.origin` and waits for the load to end; the input records the
    /// path, so replaying it fetches the same page again.
    public func fetch(_ path: String) {
        performInput(Self.fetchInput, path) {
            let load = Load(view: self)
            let outcome = load.run(URLRequest(url: Self.url(path)))
            self.outcome = outcome
            return ValueCoding<FetchOutcome>.codable.encode(outcome)
        }
    }

    /// `url`'s path and query, without the origin.
    static func path(_ url: URL) -> String {
        let query = url.query.map { "?\($0)" } ?? ""
        return (url.path.isEmpty ? "/" : url.path) + query
    }

    /// `path` on the server.
    static func url(_ path: String) -> URL {
        URL(string: path, relativeTo: origin)?.absoluteURL ?? origin
    }
}

/// How one fetch ended: the last response's status and path, the bytes of its body the view got,
/// the session's error code, whether the view cancelled the load (a vetoed response), and whether
/// it stopped it because the delegate let go of a handler uncalled (recorded only then).
/// Recorded as the `fetch` input's result.
public struct FetchOutcome: Codable, Sendable, Equatable {
    public var status: Int?
    public var path: String?
    public var bytes: Int
    public var errorCode: Int?
    public var cancelled: Bool
    /// True when the delegate let go of a handler without calling it; nil otherwise.
    public var unanswered: Bool?

    public init(
        status: Int?, path: String?, bytes: Int, errorCode: Int?, cancelled: Bool, unanswered: Bool? = nil
    ) {
        (self.status, self.path, self.bytes, self.errorCode, self.cancelled) = (
            status, path, bytes, errorCode, cancelled
        )
        self.unanswered = unanswered
    }
}

extension FetchView {
    public static let fetchInput: Input<FetchView, String> = Input(
        "fetch", of: "FetchView", arguments: .one("path", .string),
        perform: { view, path in view.fetch(path) })

    /// The view's registration: `{"kind": "FetchView", "id": "browser"}` in a scenario.
    public static let kind: WidgetKind = WidgetKind(
        "FetchView", properties: FetchProperties.self,
        make: { id, frame, _ in FetchView(identifier: id, frame: frame) }, describe: { _ in FetchProperties() },
        delegate: \.delegate, callbacks: callbacks, inputs: [fetchInput])
}

/// A fetch view's scenario properties: none beyond its `id` and `frame` (the server is
/// `FetchView.origin`, which differs from run to run).
public struct FetchProperties: Codable, Sendable {}
