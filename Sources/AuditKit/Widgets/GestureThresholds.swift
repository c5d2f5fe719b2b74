/// The thresholds at which a gesture recognizer decides, in points and seconds: how far a finger
/// may move (or must, for a pan), how long it must (or may) be held, and the longest pause
/// between taps. `explore` reads them from the recognizers a touch reaches
/// (`GestureRecognizer.thresholds`) and generates touches that meet each one exactly, or a point
/// or a hundredth of a second either side, half the time.
public struct GestureThresholds: Sendable, Equatable {
    public var distances: [Double]
    public var durations: [Double]
    public var intervals: [Double]

    public init(distances: [Double] = [], durations: [Double] = [], intervals: [Double] = []) {
        self.distances = distances
        self.durations = durations
        self.intervals = intervals
    }

    /// These and `other`'s, each once, in increasing order (so a generator's draws do not depend
    /// on the order recognizers were added).
    mutating func formUnion(_ other: GestureThresholds) {
        distances = Set(distances + other.distances).sorted()
        durations = Set(durations + other.durations).sorted()
        intervals = Set(intervals + other.intervals).sorted()
    }
}

extension GestureThresholds {
    /// The thresholds of every recognizer in `root`'s tree that receives touches, together: what
    /// the minimizer snaps a touch sequence's moves to.
    package init(tree root: View) {
        self.init()
        root.visit { view in
            for recognizer in view.touchRecognizers { formUnion(recognizer.thresholds) }
        }
    }

    /// The value nearest `delta` among 0 and each distance either way (the smaller on a tie): a
    /// move along one axis made to meet a threshold, or to stay put.
    package func nearestDistance(to delta: Double) -> Double {
        var best = 0.0
        for distance in distances.flatMap({ [-$0, $0] }) where abs(distance - delta) < abs(best - delta) {
            best = distance
        }
        return best
    }
}
