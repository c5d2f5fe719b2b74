import AuditModel
import AuditStorage

/// What can be audited: a `View` or a `GestureRecognizer`. A recorder or an isolated replay links
/// it (`auditLink`), and every `Callback` it asks through is then recorded or pinned.
///
/// Nothing to install: a widget keeps its delegate in a plain `weak var delegate` and asks it
/// through its callbacks (`Slider.callbacks.didChange.ask(delegate, self, change)`), audited or
/// not. The recorder links and unlinks the widget; the widget never overrides a hook to be audited.
public protocol Auditable: AnyObject, SendableMetatype {
    /// The audit this object takes part in, or nil. Set by the recorder and the replayer only.
    var auditLink: AuditLink? { get }
}

/// A widget's membership in an audit: a recording (the recorder, and the widget's id in that
/// session) or an isolated replay (the pin that holds the recorded answers). A widget's proxy
/// forwards through it (`DelegateProxy.forward`); the widget only installs and removes the proxy.
public struct AuditLink: Sendable {
    @usableFromInline let sink: Sink
    public let widget: Int32

    @usableFromInline
    enum Sink: Sendable {
        case recorder(Recorder)
        case pin(any AnswerPinning)
    }

    init(recorder: Recorder, widget: Int32) {
        sink = .recorder(recorder)
        self.widget = widget
    }

    package init(pin: any AnswerPinning, widget: Int32) {
        sink = .pin(pin)
        self.widget = widget
    }

    /// The recorder, when this link is a recording's.
    public var recorder: Recorder? {
        if case .recorder(let recorder) = sink { return recorder }
        return nil
    }

    /// Joins a view added under the linked one (`View.addSubview`) to the same audit.
    func attachAdded(_ view: View) {
        switch sink {
        case .recorder(let recorder): recorder.attachAdded(view)
        case .pin(let pin): pin.attach(to: view)
        }
    }

    /// Joins a recognizer added to the linked view (`View.addGestureRecognizer`) to the same audit.
    func attachAdded(_ recognizer: GestureRecognizer) {
        switch sink {
        case .recorder(let recorder): recorder.attachAdded(recognizer, viewWidget: widget)
        case .pin(let pin): pin.attach(recognizer)
        }
    }

    /// Reports an input of the widget refused by its check: to the recorder, which lists it in its
    /// summary. (A replay's candidate refusing an input is its own behaviour: nothing to report.)
    func refuse(_ message: String) {
        if case .recorder(let recorder) = sink { recorder.noteRefusal(message) }
    }

    /// Runs an input of the widget: recorded as an event when recording, followed along the
    /// recording when pinned.
    func perform(
        _ input: CallbackDescriptor, _ arguments: @autoclosure () -> CapturedArguments, _ body: () -> AuditValue?
    ) {
        switch sink {
        case .recorder(let recorder):
            recorder.capture(input, widget: widget, arguments: arguments()) { _ in ((), .input, body()) }
        case .pin(let pin):
            pin.input(input, widget: widget, body)
        }
    }
}

/// What an isolated replay puts in the widgets' audit links instead of a recorder (the replay
/// layer's answer pin): it follows the recording event by event, runs the inputs the recording
/// has, asks the candidate each callback and answers as recorded.
@usableFromInline
package protocol AnswerPinning: AnyObject, Sendable {
    /// The keyed hash the pinned run records secure text with.
    var secrets: SecretHasher { get }
    /// Links every widget and recognizer under `root` to the pin.
    func attach(to root: View)
    /// Links a recognizer added during the run.
    func attach(_ recognizer: GestureRecognizer)
    /// Runs an input when it is the recording's next event.
    func input(_ descriptor: CallbackDescriptor, widget: Int32, _ body: () -> AuditValue?)
    /// Asks the candidate, compares its answer with the recorded one, and returns the recorded one.
    func answer<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, widgetID: Int32
    ) -> Result
    /// Asks the candidate a callback answered later and compares its answer with the recorded
    /// one; returns the widget's ask, which gets the recorded answer where the recording has it
    /// (`deliver`, or `ifNeverAnswered` for a recorded "never answered").
    func answerLater<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, then deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void,
        widgetID: Int32
    ) -> LaterAskState
}

extension AuditLink {
    /// One callback the widget asks, handed to whatever audits it: the recorder records it
    /// (`Recorder.record(_:to:_:_:widget:)`); during an isolated replay the pin asks the candidate
    /// and answers as recorded. Inlinable so that a callback declared outside this module is
    /// specialized for its types.
    @inlinable
    func forward<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments
    ) -> Result {
        switch sink {
        case .recorder(let recorder): recorder.record(callback, to: target, widget, arguments, widget: self.widget)
        case .pin: pinned(callback, to: target, widget, arguments)
        }
    }

    /// One ask of a callback answered later, handed to whatever audits the widget: the recorder
    /// records it (`Recorder.recordLater`); during an isolated replay the pin asks the candidate
    /// and answers as recorded. Returns the widget's ask. Inlinable, as `forward` is.
    @inlinable
    func forward<Delegate, Widget, Arguments, Result>(
        _ callback: LaterCallback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments, then deliver: @escaping (Result) -> Void, ifNeverAnswered: @escaping () -> Void
    ) -> LaterAskState {
        switch sink {
        case .recorder(let recorder):
            recorder.recordLater(
                callback, to: target, widget, arguments, then: deliver, ifNeverAnswered: ifNeverAnswered,
                widget: self.widget)
        case .pin(let pin):
            pin.answerLater(
                callback, to: target, widget, arguments, then: deliver, ifNeverAnswered: ifNeverAnswered,
                widgetID: self.widget)
        }
    }

    /// The same callback during an isolated replay: the pin asks the candidate and answers as
    /// recorded.
    @usableFromInline
    func pinned<Delegate, Widget, Arguments, Result>(
        _ callback: Callback<Delegate, Widget, Arguments, Result>, to target: Delegate?, _ widget: Widget,
        _ arguments: Arguments
    ) -> Result {
        guard case .pin(let pin) = sink else { return callback.unaudited(target, widget, arguments) }
        return pin.answer(callback, to: target, widget, arguments, widgetID: self.widget)
    }
}

/// Removed: a widget keeps its delegate in `public weak var delegate: (any SliderDelegate)?` and asks
/// it through its callbacks; the recorder needs no slot.
@available(
    *, unavailable,
    message:
        "declare 'public weak var delegate: (any YourDelegate)?' and ask it through 'Callbacks.x.ask(delegate, self, arguments)'"
)
public struct DelegateSlot<Reference> {
    public init() {}
}

/// Removed with `DelegateSlot`.
@available(
    *, unavailable,
    message: "declare 'public weak var delegate: (any YourDelegate)?'; no weak-reference struct is needed"
)
public protocol WeakDelegateReference {}

/// Removed: no proxy class is written; the callback table forwards.
@available(
    *, unavailable,
    message:
        "delete the proxy class: a widget asks 'Callbacks.x.ask(delegate, self, arguments)', which records the call"
)
open class DelegateProxy {}
