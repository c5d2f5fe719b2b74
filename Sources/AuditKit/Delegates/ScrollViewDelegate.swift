import AuditModel
import AuditStorage

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
    public func scrollViewDidScroll(_ scrollView: ScrollView) { ScrollView.callbacks.didScroll.unimplemented(()) }

    public func scrollViewWillBeginDragging(_ scrollView: ScrollView) {
        ScrollView.callbacks.willBeginDragging.unimplemented(())
    }

    public func scrollViewWillEndDragging(
        _ scrollView: ScrollView, withVelocity velocity: Point, targetContentOffset: UnsafeMutablePointer<Point>
    ) {
        _ = ScrollView.callbacks.willEndDragging.unimplemented((velocity, targetContentOffset.pointee))
    }

    public func scrollViewDidEndDragging(_ scrollView: ScrollView, willDecelerate decelerate: Bool) {
        ScrollView.callbacks.didEndDragging.unimplemented(decelerate)
    }

    public func scrollViewWillBeginDecelerating(_ scrollView: ScrollView) {
        ScrollView.callbacks.willBeginDecelerating.unimplemented(())
    }

    public func scrollViewDidEndDecelerating(_ scrollView: ScrollView) {
        ScrollView.callbacks.didEndDecelerating.unimplemented(())
    }

    public func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        ScrollView.callbacks.shouldScrollToTop.unimplemented(())
    }

    public func scrollViewDidScrollToTop(_ scrollView: ScrollView) {
        ScrollView.callbacks.didScrollToTop.unimplemented(())
    }
}

/// The callback table of `ScrollViewDelegate`: each callback declared once.
///
/// `willEndDragging` is declared with the proposed target as an argument and the final target as
/// its result (an override): the audit records the target before and after the delegate saw it,
/// and counts it as vetoed when the delegate moved it.
public struct ScrollViewCallbacks: CallbackTable {
    public static let protocolName = "ScrollViewDelegate"

    public let didScroll = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        "scrollViewDidScroll(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewDidScroll(scrollView) })

    public let willBeginDragging = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        "scrollViewWillBeginDragging(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewWillBeginDragging(scrollView) })

    /// Arguments: the velocity and the proposed target; result: the target after the call.
    public let willEndDragging = Callback<any ScrollViewDelegate, ScrollView, (Point, Point), Point>(
        "scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)",
        arguments: .two("velocity", .point, "targetContentOffset", .point),
        answer: .override(proposal: { $0.1 }, coding: .point, described: "the proposed target offset"),
        invoke: { delegate, scrollView, arguments in
            var target = arguments.1
            withUnsafeMutablePointer(to: &target) { pointer in
                delegate.scrollViewWillEndDragging(scrollView, withVelocity: arguments.0, targetContentOffset: pointer)
            }
            return target
        })

    public let didEndDragging = Callback<any ScrollViewDelegate, ScrollView, Bool, Void>(
        "scrollViewDidEndDragging(_:willDecelerate:)", arguments: .one("willDecelerate", .bool),
        answer: .void, invoke: { $0.scrollViewDidEndDragging($1, willDecelerate: $2) })

    public let willBeginDecelerating = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        "scrollViewWillBeginDecelerating(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewWillBeginDecelerating(scrollView) })

    public let didEndDecelerating = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        "scrollViewDidEndDecelerating(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewDidEndDecelerating(scrollView) })

    public let shouldScrollToTop = Callback<any ScrollViewDelegate, ScrollView, Void, Bool>(
        "scrollViewShouldScrollToTop(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, scrollView, _ in delegate.scrollViewShouldScrollToTop(scrollView) })

    public let didScrollToTop = Callback<any ScrollViewDelegate, ScrollView, Void, Void>(
        "scrollViewDidScrollToTop(_:)", arguments: .none, answer: .void,
        invoke: { delegate, scrollView, _ in delegate.scrollViewDidScrollToTop(scrollView) })
}
