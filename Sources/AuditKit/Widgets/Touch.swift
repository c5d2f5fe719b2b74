import AuditModel
import AuditStorage

/// One finger's state at one moment: what a `TouchDispatcher` delivers and a recognizer's delegate
/// is asked about in `gestureRecognizer(_:shouldReceive:)`.
///
/// `location` is in window coordinates: the coordinate space the root view's `frame` is given in.
/// Its time is in whole nanoseconds on the dispatcher's virtual clock (`VirtualTime`), never on the
/// wall clock, so a touch sequence behaves the same on every run and wherever on the clock it starts.
public struct Touch: Sendable, Hashable {
    public enum Phase: String, Sendable, CaseIterable {
        case began
        case moved
        case ended
        case cancelled
    }

    /// Names the finger: every event of one finger, from `began` to `ended` or `cancelled`, has it.
    public var id: Int
    public var location: Point
    public var phase: Phase
    /// When it happened, in nanoseconds on the virtual clock.
    public var timestampNanoseconds: Int64

    public init(id: Int, location: Point, phase: Phase, timestampNanoseconds: Int64) {
        self.id = id
        self.location = location
        self.phase = phase
        self.timestampNanoseconds = timestampNanoseconds
    }

    /// A touch at `timestamp` seconds, rounded to the nearest nanosecond.
    ///
    /// - Precondition: `timestamp` is finite and within ±`VirtualTime.maximumSeconds`.
    public init(id: Int, location: Point, phase: Phase, timestamp: Double) {
        self.init(id: id, location: location, phase: phase, timestampNanoseconds: VirtualTime.converting(timestamp))
    }

    public init(id: Int, x: Double, y: Double, phase: Phase, timestamp: Double) {
        self.init(id: id, location: Point(x: x, y: y), phase: phase, timestamp: timestamp)
    }

    /// When it happened, in seconds: `timestampNanoseconds` converted (setting it rounds to the
    /// nearest nanosecond).
    public var timestamp: Double {
        get { VirtualTime.seconds(timestampNanoseconds) }
        set { timestampNanoseconds = VirtualTime.converting(newValue) }
    }

    /// The touch's location in `view`'s own coordinate space (window coordinates when `view` is nil).
    public func location(in view: View?) -> Point {
        view?.convert(location, from: nil) ?? location
    }

    /// Checks a complete touch sequence before it is sent: finite locations, non-negative
    /// timestamps that never go back; each finger begins once, then moves, then ends or is cancelled; and every
    /// finger that began has lifted by the end. Throws the first problem, with the event's index.
    public static func validate(_ events: [Touch]) throws(TouchSequenceError) {
        var down: Set<Int> = []
        var last: Int64 = 0
        for (index, event) in events.enumerated() {
            guard event.timestampNanoseconds >= 0, event.location.x.isFinite, event.location.y.isFinite
            else { throw TouchSequenceError(index: index, "timestamp and location must be finite, time not negative") }
            guard event.timestampNanoseconds >= last else {
                throw TouchSequenceError(
                    index: index,
                    "time goes back from \(VirtualTime.seconds(last)) to \(event.timestamp)")
            }
            last = event.timestampNanoseconds
            switch event.phase {
            case .began:
                guard down.insert(event.id).inserted else {
                    throw TouchSequenceError(index: index, "touch \(event.id) began while it was already down")
                }
            case .moved:
                guard down.contains(event.id) else {
                    throw TouchSequenceError(index: index, "touch \(event.id) moved but is not down")
                }
            case .ended, .cancelled:
                guard down.remove(event.id) != nil else {
                    throw TouchSequenceError(index: index, "touch \(event.id) \(event.phase.rawValue) but is not down")
                }
            }
        }
        if let open = down.min() {
            throw TouchSequenceError(index: events.count, "touch \(open) never ended")
        }
    }
}

/// Why a touch sequence is not valid, and the index of the event at fault.
public struct TouchSequenceError: Error, Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let message: String

    public init(index: Int, _ message: String) {
        self.index = index
        self.message = message
    }

    public var description: String { "event \(index): \(message)" }
}
