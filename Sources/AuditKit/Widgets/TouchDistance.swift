import AuditModel
import AuditStorage

/// Where the recognizers' distance thresholds are decided: on a fixed grid of micro-points, a
/// millionth of a point each.
///
/// Touch locations are `Double`s, and a difference of two `Double`s is rounded: 16.4 − 6.4 is
/// 9.999999999999998, so a 10 pt move from y 6.4 to 16.4 would fall short of a 10 pt limit that the
/// same move from 0 to 10 reaches. Every distance limit of a recognizer is therefore compared here,
/// and only here, by one rule: the coordinates of the two locations, and the limit, are each taken
/// to the nearest whole number of micro-points (ties away from zero, as `VirtualTime` takes seconds
/// to nanoseconds), and the translation along an axis, or the square of the straight-line distance,
/// is computed from those integers exactly. A location given with at most six decimals, as scenario
/// files and recordings give them, lands on its exact micro-point, so the same relative move
/// measures the same wherever on the screen it starts, and a limit reached exactly counts as reached
/// (the Gestures article, "Touches and the clock").
///
/// Only the comparisons use the grid: touch locations are not changed where they enter (what is
/// recorded and replayed, `translation` and `velocity` are the `Double`s given), and rounding the
/// locations themselves would not help, as decimals such as 6.4 have no exact `Double`. The price is
/// that two distances less than about half a micro-point apart are not told apart.
///
/// The grid covers coordinates and limits up to about 4.6 × 10^12 pt (2^62 micro-points; a scenario
/// allows 10^7): beyond, they are held at that bound, so no difference or square overflows.
public enum TouchDistance {
    public static let micropointsPerPoint: Int64 = 1_000_000

    /// The largest magnitude, in micro-points, a coordinate or a limit is taken as.
    static let maximumMicropoints: Int64 = (1 << 62) - 1

    /// The magnitude, in points, from which `micropoints(_:)` holds at ±`maximumMicropoints`.
    private static let maximumPoints = Double(maximumMicropoints / micropointsPerPoint)

    /// `points` as the nearest whole number of micro-points (ties away from zero), held within
    /// ±`maximumMicropoints`; not a number counts as zero (touch locations are always finite).
    public static func micropoints(_ points: Double) -> Int64 {
        guard !points.isNaN else { return 0 }
        guard abs(points) < maximumPoints else { return points < 0 ? -maximumMicropoints : maximumMicropoints }
        // Whole points and the fraction apart (both exact), so only the fraction is scaled and
        // rounded: the result is the micro-point nearest the number itself, however large.
        let whole = points.rounded(.towardZero)
        let fraction = ((points - whole) * Double(micropointsPerPoint)).rounded(.toNearestOrAwayFromZero)
        return Int64(whole) * micropointsPerPoint + Int64(fraction)
    }

    /// The move from `start` to `end` along each axis, in micro-points: exact, from the nearest
    /// micro-points of the two locations.
    public static func translation(from start: Point, to end: Point) -> (x: Int64, y: Int64) {
        (micropoints(end.x) - micropoints(start.x), micropoints(end.y) - micropoints(start.y))
    }

    /// Whether the move from `start` to `end` reaches `limit` points along either axis (a pan's
    /// `minimumTranslation`): a move of exactly `limit` does. An infinite limit or not a number is
    /// never reached; −∞ always is.
    public static func translation(from start: Point, to end: Point, reaches limit: Double) -> Bool {
        guard limit.isFinite else { return limit == -.infinity }
        let translation = translation(from: start, to: end)
        let limit = micropoints(limit)
        return abs(translation.x) >= limit || abs(translation.y) >= limit
    }

    /// Whether the straight-line distance from `start` to `end` is more than `limit` points (a tap's
    /// or a long press's `allowableMovement`): a move of exactly `limit` is not. Compared as squares
    /// of whole micro-points, so no square root rounds. An infinite limit or not a number is never
    /// exceeded; −∞ always is.
    public static func distance(from start: Point, to end: Point, exceeds limit: Double) -> Bool {
        guard limit.isFinite else { return limit == -.infinity }
        let limit = micropoints(limit)
        guard limit >= 0 else { return true }
        let translation = translation(from: start, to: end)
        return square(translation.x) + square(translation.y) > square(limit)
    }

    /// `value`², exact: below 2^126 for any difference of two held micro-points, so a sum of two
    /// fits.
    private static func square(_ value: Int64) -> UInt128 {
        UInt128(value.magnitude) * UInt128(value.magnitude)
    }
}
