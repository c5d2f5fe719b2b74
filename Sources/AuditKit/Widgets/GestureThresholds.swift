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
