/// The forwarding delegate: sits in a widget's delegate slot, passes every callback to the app's
/// delegate and records it.
///
/// Who wins: the app's delegate, always. The proxy calls it with the same arguments, in the same
/// order, exactly once, and returns exactly what it returned; when there is no app delegate, or it
/// does not implement the callback, the proxy returns the callback's declared default, which is
/// what the widget itself would have used. The proxy never holds the app's delegate: it reads it
/// from the widget's own (weak) slot at each call, so `widget.delegate = x` retargets it at once.
///
/// Subclass it once per delegate protocol; each method is one line:
/// `forward(Callbacks.shouldX, to: widget.delegate, widget, argument)`.
open class DelegateProxy {
    public let link: AuditLink

    public init(link: AuditLink) {
        self.link = link
    }

    /// Forwards one callback to `target` (or takes the default) and records it.
    ///
    /// Inlinable so that a proxy declared outside this module (an app's own protocol) is
    /// specialized for its types: unspecialized generic code would cost more than the whole
    /// capture. Everything it touches of the recorder is two calls, `beginCall` and `endCall`.
    @inlinable
    public final func forward<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments
    ) -> Result {
        guard case .recorder(let recorder) = link.sink else { return pinned(callback, to: target, widget, arguments) }
        let frame = recorder.beginCall()
        let result: Result
        if let target {
            result = callback.invoke(target, widget, arguments)
        } else {
            result = callback.answer.defaultResult(arguments)
        }
        let flags = callback.answer.flags(arguments, result)
        recorder.endCall(
            frame, callback.descriptor, widget: link.widget, arguments: callback.arguments.encode(arguments),
            result: callback.answer.coding?.encode(result), flags: flags, invoked: target != nil)
        return result
    }

    /// The same callback during an isolated replay: the pin asks the candidate and answers as
    /// recorded.
    @usableFromInline
    final func pinned<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments
    ) -> Result {
        guard case .pin(let pin) = link.sink else { return callback.ask(target, widget, arguments) }
        return pin.answer(callback, to: target, widget, arguments, widgetID: link.widget)
    }
}
