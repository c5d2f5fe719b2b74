/// The delegate of a `ScrollView`. Every method is optional: the extension below supplies
/// UIKit-style defaults and marks them, so the audit records "not implemented, default used".
///
/// `TableViewDelegate` refines it: a table view sends these callbacks to its delegate too.
public protocol ScrollViewDelegate: AnyObject {
    /// The content offset changed: by a drag, a deceleration step, a scroll to top, or in code.
    func scrollViewDidScroll(_ scrollView: ScrollView)
    func scrollViewWillBeginDragging(_ scrollView: ScrollView)
    /// The finger lifted with `velocity` (points per millisecond, in the direction the content
    /// offset moves). `targetContentOffset` points at where the content will come to rest; write
    /// another offset through it to change that. The pointer is valid only during the call.
    func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>)
    /// `decelerate` is true when the content moves on to the target after the finger lifted.
    func scrollViewDidEndDragging(_ scrollView: ScrollView, willDecelerate decelerate: Bool)
    /// The content starts moving on to the target after the finger lifted (`isDecelerating` is set).
    func scrollViewWillBeginDecelerating(_ scrollView: ScrollView)
    /// The content came to rest on the target (`isDecelerating` is clear again).
    func scrollViewDidEndDecelerating(_ scrollView: ScrollView)
    /// Return false to veto: a tap on the status bar leaves the content where it is.
    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
    func scrollViewDidScrollToTop(_ scrollView: ScrollView)
}

extension ScrollViewDelegate {
    public func scrollViewDidScroll(_ scrollView: ScrollView) { delegateDefault() }

    public func scrollViewWillBeginDragging(_ scrollView: ScrollView) { delegateDefault() }

    public func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        delegateDefault()
    }

    public func scrollViewDidEndDragging(_ scrollView: ScrollView, willDecelerate decelerate: Bool) {
        delegateDefault()
    }

    public func scrollViewWillBeginDecelerating(_ scrollView: ScrollView) { delegateDefault() }

    public func scrollViewDidEndDecelerating(_ scrollView: ScrollView) { delegateDefault() }

    public func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        delegateDefault(ScrollViewCallbacks.shouldScrollToTop.defaultResult(()))
    }

    public func scrollViewDidScrollToTop(_ scrollView: ScrollView) { delegateDefault() }
}

/// The callback table of `ScrollViewDelegate`: each callback declared once.
///
/// `willEndDragging` is declared with the proposed target as an argument and the final target as
/// its result (an override): the audit records the target before and after the delegate saw it,
/// and counts it as vetoed when the delegate moved it.
public enum ScrollViewCallbacks {
    public static let protocolName = "ScrollViewDelegate"

    public static let didScroll = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        protocolName, "scrollViewDidScroll(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewDidScroll(scrollView) })

    public static let willBeginDragging = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        protocolName, "scrollViewWillBeginDragging(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewWillBeginDragging(scrollView) })

    /// Arguments: the velocity and the proposed target; result: the target after the call.
    public static let willEndDragging = Callback<any ScrollViewDelegate, ScrollView, (Point, Point), Point>(
        protocolName, "scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)",
        arguments: .two("velocity", .point, "targetContentOffset", .point),
        answer: .override(proposal: { $0.1 }, coding: .point, described: "the proposed target offset"),
        invoke: { delegate, scrollView, arguments in
            var target = arguments.1
            withUnsafeMutablePointer(to: &target) { pointer in
                delegate.scrollViewWillEndDragging(scrollView, withVelocity: arguments.0, targetContentOffset: pointer)
            }
            return target
        })

    public static let didEndDragging = Callback<any ScrollViewDelegate, ScrollView, Bool, Void>(
        protocolName, "scrollViewDidEndDragging(_:willDecelerate:)", arguments: .one("willDecelerate", .bool),
        answer: .void, invoke: { $0.scrollViewDidEndDragging($1, willDecelerate: $2) })

    public static let willBeginDecelerating = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        protocolName, "scrollViewWillBeginDecelerating(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewWillBeginDecelerating(scrollView) })

    public static let didEndDecelerating = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        protocolName, "scrollViewDidEndDecelerating(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewDidEndDecelerating(scrollView) })

    public static let shouldScrollToTop = Callback<any ScrollViewDelegate, ScrollView, Void, Bool>(
        protocolName, "scrollViewShouldScrollToTop(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, scrollView, _ in delegate.scrollViewShouldScrollToTop(scrollView) })

    public static let didScrollToTop = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        protocolName, "scrollViewDidScrollToTop(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewDidScrollToTop(scrollView) })

    /// Every callback of the protocol, invocable by name (replay) and listed by `auditctl callbacks`.
    public static let invokers: [CallbackInvoker] = [
        didScroll.invoker, willBeginDragging.invoker, willEndDragging.invoker, didEndDragging.invoker,
        willBeginDecelerating.invoker, didEndDecelerating.invoker, shouldScrollToTop.invoker, didScrollToTop.invoker,
    ]
    public static let all = invokers.map(\.descriptor)
}

/// Forwards `ScrollViewDelegate` to the scroll view's app delegate and records each call.
///
/// Not final: `TableViewDelegateProxy` inherits these methods, so a table view's one proxy
/// forwards the scroll callbacks as well as its own.
class ScrollViewDelegateProxy: DelegateProxy, ScrollViewDelegate {
    func scrollViewDidScroll(_ scrollView: ScrollView) {
        forward(ScrollViewCallbacks.didScroll, to: scrollView.delegate, scrollView, ())
    }

    func scrollViewWillBeginDragging(_ scrollView: ScrollView) {
        forward(ScrollViewCallbacks.willBeginDragging, to: scrollView.delegate, scrollView, ())
    }

    /// Records the target the pointer holds on the way in (argument) and on the way out (result).
    func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        targetContentOffset.pointee = forward(
            ScrollViewCallbacks.willEndDragging, to: scrollView.delegate, scrollView,
            (velocity, targetContentOffset.pointee))
    }

    func scrollViewDidEndDragging(_ scrollView: ScrollView, willDecelerate decelerate: Bool) {
        forward(ScrollViewCallbacks.didEndDragging, to: scrollView.delegate, scrollView, decelerate)
    }

    func scrollViewWillBeginDecelerating(_ scrollView: ScrollView) {
        forward(ScrollViewCallbacks.willBeginDecelerating, to: scrollView.delegate, scrollView, ())
    }

    func scrollViewDidEndDecelerating(_ scrollView: ScrollView) {
        forward(ScrollViewCallbacks.didEndDecelerating, to: scrollView.delegate, scrollView, ())
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        forward(ScrollViewCallbacks.shouldScrollToTop, to: scrollView.delegate, scrollView, ())
    }

    func scrollViewDidScrollToTop(_ scrollView: ScrollView) {
        forward(ScrollViewCallbacks.didScrollToTop, to: scrollView.delegate, scrollView, ())
    }
}
