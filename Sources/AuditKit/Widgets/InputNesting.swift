import AuditModel
import AuditStorage
import Foundation

/// How deeply inputs may nest on one thread, and the input refused for going deeper.
///
/// An input runs inside another when a delegate, called by the first, drives a widget: a
/// `didSelect` that selects a segment of another control, whose delegate selects back, and so on.
/// Every level costs stack, auditing more than not (the proxy, the recorder's capture and the
/// event's arguments add frames), so a chain a few thousand levels deep overflows the thread's
/// stack — and would do so sooner under audit than without. The limit makes that an error instead:
/// `View.performInput`, which every input goes through (a touch too), counts the inputs running on
/// the current thread, whether or not the widget is audited, and refuses one that would make more
/// than `limit`. (A recognizer's timer is not counted: it fires only between touches, and the
/// inputs its callbacks start are.)
/// A refused input does nothing (its body does not run, nothing is recorded, no delegate is
/// called) and is remembered for `takeRefusal()`; the scenario runner turns it into an error that
/// names the step, so `auditctl record` fails before the database is opened.
public enum InputNesting {
    /// The most inputs that may run one inside another on one thread.
    ///
    /// Measured on Linux x86-64, Swift 6.3, debug build (`swift test --filter stackUsedPerLevel`):
    /// one level — a segmented control's delegate selecting a segment of another — takes about
    /// 4.0 KiB of stack without audit and 7.2 KiB audited (proxy, recorder capture, arguments). 32
    /// levels audited take about 230 KiB: under half of a 512 KiB stack, the smallest default the
    /// library may run on (a secondary thread or a Swift concurrency thread on Apple platforms; the
    /// main thread and Linux threads have 8 MiB), leaving the other half for the app's own frames
    /// at each level and for what runs at the innermost one. 64 levels would take 460 KiB, too
    /// close. Real screens nest two or three levels.
    public static let limit = 32

    /// Inputs running on the current thread, outermost first counted as 1.
    public static var depth: Int { Counter.current.depth }

    /// The first input refused on the current thread since the last call, and forgets it.
    public static func takeRefusal() -> InputNestingError? {
        let counter = Counter.current
        defer { counter.refusal = nil }
        return counter.refusal
    }

    /// Runs `body` as one more level of input on this thread, or refuses it past `limit`: skips it
    /// and remembers the first refusal. `widget` names the widget it drives.
    static func run(_ input: CallbackDescriptor, on widget: @autoclosure () -> String, _ body: () -> Void) {
        let counter = Counter.current
        guard counter.depth < limit else {
            if counter.refusal == nil {
                counter.refusal = InputNestingError(input: input.name, widget: widget(), depth: counter.depth + 1)
            }
            return
        }
        counter.depth += 1
        defer { counter.depth -= 1 }
        body()
    }

    /// The per-thread count, kept in thread-specific storage so several threads driving widgets
    /// each have their own.
    private final class Counter {
        var depth = 0
        var refusal: InputNestingError?

        static var current: Counter {
            if let pointer = pthread_getspecific(key) {
                return Unmanaged<Counter>.fromOpaque(pointer).takeUnretainedValue()
            }
            let counter = Counter()
            pthread_setspecific(key, Unmanaged.passRetained(counter).toOpaque())
            return counter
        }

        /// Created once; the destructor releases a thread's counter when the thread ends.
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key) { pointer in
                guard let pointer else { return }
                Unmanaged<Counter>.fromOpaque(pointer).release()
            }
            return key
        }()
    }
}

/// An input refused because it would have nested deeper than `InputNesting.limit`.
public struct InputNestingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input's name (`selectSegment`) and the path of the widget it was to drive.
    public let input: String
    public let widget: String
    /// The level it would have run at: `InputNesting.limit + 1`.
    public let depth: Int

    public var description: String {
        "input \(input) on \(widget) would nest \(depth) inputs deep, past the limit of \(InputNesting.limit) "
            + "(delegates that drive widgets from inside their callbacks)"
    }
}
