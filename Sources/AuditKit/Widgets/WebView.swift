import AuditModel
import AuditStorage
import Foundation

/// A headless web view: no page is fetched or drawn, but each navigation runs WebKit's course
/// (`WKWebView` and its `WKNavigationDelegate`), driven by inputs that stand for the user and the
/// network, and its delegate decides each navigation later.
///
/// A navigation (`load` in code, `click` on a link) first waits for the delegate's action
/// decision; `.cancel` ends it with no notification. Allowed, it starts
/// (`didStartProvisionalNavigation`) and waits for its response (`respond`), on which the delegate
/// decides again: `.cancel` fails it (`didFailProvisionalNavigation` with
/// `NavigationError.frameLoadInterruptedByPolicyChange`); allowed, it commits (`didCommit`, and
/// `url` becomes its URL) and loads until `finish` (`didFinish`) or `fail` (`didFail`). A failure
/// before the commit is `didFailProvisionalNavigation`.
///
/// A new navigation replaces one that has not committed: the web view gives up the decision it
/// waits for (`PendingAnswer.giveUp()`: a handler called afterwards is a mistake and changes
/// nothing), and one that had started fails with `NavigationError.cancelled` (-999). A committed
/// page goes on loading until the new navigation is allowed, then fails with the same error,
/// just before the new one starts. An input with nothing to act on (a response while no request
/// waits for one) does nothing; its recorded result says where the web view stands.
///
/// Time is the scenario's: nothing happens between inputs, so a navigation waits for its
/// decision, its response or its end for as long as the inputs say. The delegate is read at each
/// callback and must answer on the web view's thread, as WebKit requires the main thread.
open class WebView: View {
    /// The app's navigation delegate, held weakly, as `WKWebView.navigationDelegate`.
    public weak var navigationDelegate: (any NavigationDelegate)?

    /// The callbacks of `NavigationDelegate`, each declared once.
    public static let callbacks = NavigationCallbacks()
    /// The two decisions of `AsyncNavigationDelegate`.
    public static let asyncCallbacks = AsyncNavigationCallbacks()

    /// The URL of the page last committed (nil before any), as `WKWebView.url` once a navigation
    /// commits.
    public private(set) var url: String?

    /// The navigation that has not committed yet, and what it waits for.
    private var provisional: (navigation: Navigation, stage: Stage)?
    /// The navigation that committed and whose page still loads.
    private var loadingNavigation: Navigation?
    private var navigationCount = 0

    private enum Stage {
        /// Waiting for the action decision (the answer, once `ask` has returned it).
        case decidingAction(PendingAnswer?)
        case started
        case decidingResponse(PendingAnswer?)
    }

    public init(identifier: String, frame: Rect = .zero, url: String? = nil) {
        self.url = url
        super.init(identifier: identifier, frame: frame)
    }

    deinit {
        // WebKit drops a pending decision when the web view goes away: the delegate may still call
        // the handler, to no effect.
        pendingAnswer?.giveUp()
    }

    open override var widgetKind: String { "WebView" }

    /// Where the navigations stand: the one not yet committed, if any, else the loading page.
    public var phase: Phase {
        switch provisional?.stage {
        case .decidingAction?: .decidingAction
        case .started?: .provisional
        case .decidingResponse?: .decidingResponse
        case nil: loadingNavigation == nil ? .idle : .committed
        }
    }

    /// Whether a navigation has started and not ended, or a committed page still loads
    /// (`WKWebView.isLoading`).
    public var isLoading: Bool { loadingNavigation != nil || phase == .provisional || phase == .decidingResponse }

    /// Whether the web view waits for a decision of its delegate.
    public var isWaitingForDecision: Bool { pendingAnswer?.isWaiting ?? false }

    private var pendingAnswer: PendingAnswer? {
        switch provisional?.stage {
        case .decidingAction(let pending)?, .decidingResponse(let pending)?: pending
        case .started?, nil: nil
        }
    }

    // MARK: Inputs

    /// Loads `url` in code (`WKWebView.load(_:)`): a navigation of type `other`.
    public func load(_ url: String) {
        performInput(Inputs.load, url) {
            navigate(to: url, type: .other)
            return state
        }
    }

    /// The user follows a link to `url`: a navigation of type `linkActivated`.
    public func click(_ url: String) {
        performInput(Inputs.click, url) {
            navigate(to: url, type: .linkActivated)
            return state
        }
    }

    /// The response to the navigation that started arrives; the delegate decides on it.
    public func respond(statusCode: Int, mimeType: String) {
        performInput(Inputs.respond, (statusCode, mimeType)) {
            if case (let navigation, .started)? = provisional {
                let response = NavigationResponse(url: navigation.url, statusCode: statusCode, mimeType: mimeType)
                provisional = (navigation, .decidingResponse(nil))
                let pending = decide(response) { [weak self] allows in
                    self?.responseDecided(navigation, allows: allows)
                }
                keep(pending, for: navigation)
            }
            return state
        }
    }

    /// The committed page finishes loading.
    public func finishLoading() {
        performInput(Inputs.finish, ()) {
            if let navigation = loadingNavigation {
                loadingNavigation = nil
                Self.callbacks.didFinish.ask(navigationDelegate, self, navigation)
            }
            return state
        }
    }

    /// The network fails with `NSURLErrorDomain`'s `code`: the navigation that started and waits
    /// for its response fails provisionally, else the committed page fails to load.
    public func failLoading(code: Int) {
        performInput(Inputs.fail, code) {
            let error = NavigationError.network(code)
            if case (let navigation, .started)? = provisional {
                provisional = nil
                Self.callbacks.didFailProvisional.ask(navigationDelegate, self, (navigation, error))
            } else if let navigation = loadingNavigation {
                loadingNavigation = nil
                Self.callbacks.didFail.ask(navigationDelegate, self, (navigation, error))
            }
            return state
        }
    }

    // MARK: The course of a navigation

    /// The input's result: the phase and the committed URL.
    private var state: AuditValue {
        .object(["phase": .string(phase.rawValue), "url": url.map(AuditValue.string) ?? .null])
    }

    private func navigate(to url: String, type: NavigationType) {
        cancelProvisional()
        navigationCount += 1
        let navigation = Navigation(id: navigationCount, url: url)
        provisional = (navigation, .decidingAction(nil))
        let pending = decide(NavigationAction(url: url, navigationType: type)) { [weak self] allows in
            self?.actionDecided(navigation, allows: allows)
        }
        keep(pending, for: navigation)
    }

    /// Keeps the answer the navigation waits for; gives it up if the navigation was replaced
    /// while its delegate was being asked.
    private func keep(_ pending: PendingAnswer, for navigation: Navigation) {
        switch provisional {
        case (navigation, .decidingAction(nil))?: provisional = (navigation, .decidingAction(pending))
        case (navigation, .decidingResponse(nil))?: provisional = (navigation, .decidingResponse(pending))
        default: pending.giveUp()  // nothing when the answer has come
        }
    }

    /// Ends the navigation that has not committed, as a new one replaces it.
    private func cancelProvisional() {
        guard let current = provisional else { return }
        let navigation = current.navigation
        provisional = nil
        switch current.stage {
        case .decidingAction(let pending):
            pending?.giveUp()
        case .started:
            Self.callbacks.didFailProvisional.ask(navigationDelegate, self, (navigation, .cancelled))
        case .decidingResponse(let pending):
            pending?.giveUp()
            Self.callbacks.didFailProvisional.ask(navigationDelegate, self, (navigation, .cancelled))
        }
    }

    private func actionDecided(_ navigation: Navigation, allows: Bool) {
        guard case (navigation, .decidingAction)? = provisional else { return }
        guard allows else {
            provisional = nil
            return
        }
        provisional = (navigation, .started)
        if let replaced = loadingNavigation {
            loadingNavigation = nil
            Self.callbacks.didFail.ask(navigationDelegate, self, (replaced, .cancelled))
        }
        guard case (navigation, .started)? = provisional else { return }  // the delegate moved on
        Self.callbacks.didStartProvisional.ask(navigationDelegate, self, navigation)
    }

    private func responseDecided(_ navigation: Navigation, allows: Bool) {
        guard case (navigation, .decidingResponse)? = provisional else { return }
        provisional = nil
        if allows {
            loadingNavigation = navigation
            url = navigation.url
            Self.callbacks.didCommit.ask(navigationDelegate, self, navigation)
        } else {
            Self.callbacks.didFailProvisional.ask(
                navigationDelegate, self, (navigation, .frameLoadInterruptedByPolicyChange))
        }
    }

    /// Asks the delegate's action decision, in its `async` form when it adopts it.
    private func decide(_ action: NavigationAction, then deliver: @escaping (Bool) -> Void) -> PendingAnswer {
        if let delegate = navigationDelegate as? any AsyncNavigationDelegate {
            return Self.asyncCallbacks.decideAction.ask(delegate, self, action, then: deliver)
        }
        return Self.callbacks.decideAction.ask(navigationDelegate, self, action, then: deliver)
    }

    /// Asks the delegate's response decision, in its `async` form when it adopts it.
    private func decide(_ response: NavigationResponse, then deliver: @escaping (Bool) -> Void) -> PendingAnswer {
        if let delegate = navigationDelegate as? any AsyncNavigationDelegate {
            return Self.asyncCallbacks.decideResponse.ask(delegate, self, response, then: deliver)
        }
        return Self.callbacks.decideResponse.ask(navigationDelegate, self, response, then: deliver)
    }
}
