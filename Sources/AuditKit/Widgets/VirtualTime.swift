import AuditModel
import AuditStorage

/// The unit of the touch dispatcher's virtual clock: times and durations in whole nanoseconds.
///
/// Touch timestamps, the clock, timer deadlines and recognizer durations are `Int64` nanoseconds,
/// so adding a duration to a time is exact and a deadline compares equal to a touch at the same
/// instant however far from zero the sequence starts. Scenario files and recorded events give
/// seconds as JSON numbers; they are converted once, when read, to the nearest nanosecond
/// (ties away from zero), and written back as `Double(nanoseconds) / 1e9`, which reads back to the
/// same nanoseconds for any time below 2^23 s (97 days; beyond, a `Double` holds no nanoseconds).
public enum VirtualTime {
    public static let nanosecondsPerSecond: Int64 = 1_000_000_000

    /// The largest number of seconds `nanoseconds(fromSeconds:)` takes: about 292 years.
    public static let maximumSeconds = 9_223_372_036.0

    /// `seconds` rounded to the nearest nanosecond, or nil when it is not finite or lies beyond
    /// ±`maximumSeconds`.
    public static func nanoseconds(fromSeconds seconds: Double) -> Int64? {
        guard seconds.isFinite, abs(seconds) <= maximumSeconds else { return nil }
        // Whole seconds and the fraction apart (both exact), so only the fraction is scaled and
        // rounded: the result is the nanosecond nearest the number itself, however large.
        let whole = seconds.rounded(.towardZero)
        let fraction = seconds - whole
        return Int64(whole) * nanosecondsPerSecond + Int64((fraction * 1e9).rounded(.toNearestOrAwayFromZero))
    }

    /// `nanoseconds` as seconds: what events record and what the `Double` accessors return.
    public static func seconds(_ nanoseconds: Int64) -> Double {
        Double(nanoseconds) / 1e9
    }

    /// `seconds` in nanoseconds, for the `Double`-taking accessors kept for source compatibility.
    ///
    /// - Precondition: `seconds` is finite and within ±`maximumSeconds`.
    static func converting(_ seconds: Double) -> Int64 {
        guard let nanoseconds = nanoseconds(fromSeconds: seconds) else {
            preconditionFailure("\(seconds) s is not a time the virtual clock can hold")
        }
        return nanoseconds
    }

    /// `time + duration`, held at `Int64.max` rather than overflowing: a deadline past the clock's
    /// end is never reached.
    static func adding(_ duration: Int64, to time: Int64) -> Int64 {
        let (sum, overflow) = time.addingReportingOverflow(duration)
        return overflow ? (duration > 0 ? .max : .min) : sum
    }
}
