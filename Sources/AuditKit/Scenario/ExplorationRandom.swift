import AuditModel
import AuditStorage

/// The seeded random numbers of exploration (xoshiro256**, its state filled by SplitMix64): the
/// same seed gives the same numbers on every platform and run, so an exploration repeats exactly.
///
/// Each run of an exploration takes its own generator, `ExplorationRandom(seed:run:)`, so run k is
/// the same whatever budget ended the exploration, and a run can be repeated on its own.
public struct ExplorationRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var mixer = seed
        func splitMix() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    /// The generator of run `run` of an exploration seeded with `seed`.
    public init(seed: UInt64, run: Int) {
        self.init(seed: seed ^ (UInt64(truncatingIfNeeded: run) &* 0xD1B5_4A32_D192_ED03))
    }

    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }

    /// With probability `chance`, one of `boundaries` exactly, or `step` below or above it (each
    /// boundary and each of the three equally often); otherwise a value drawn uniformly from
    /// `range`. This is how a generator meets a widget's thresholds, which a uniform draw almost
    /// never lands on: a pan's minimum translation, a long press's duration, the first and last
    /// segment. A boundary need not lie in `range`: a threshold is met wherever it is.
    public mutating func value(
        in range: ClosedRange<Double>, orNear boundaries: [Double], step: Double, chance: Double = 0.5
    ) -> Double {
        guard !boundaries.isEmpty, self.chance(chance) else { return Double.random(in: range, using: &self) }
        let boundary = boundaries.randomElement(using: &self)!
        return boundary + step * Double(Int.random(in: -1...1, using: &self))
    }

    /// With probability `chance`, one of `boundaries` or the integer just below or above it, kept
    /// in `range`; otherwise an integer drawn uniformly from `range`.
    public mutating func value(in range: ClosedRange<Int>, orNear boundaries: [Int], chance: Double = 0.5) -> Int {
        guard !boundaries.isEmpty, self.chance(chance) else { return Int.random(in: range, using: &self) }
        let boundary = boundaries.randomElement(using: &self)! + Int.random(in: -1...1, using: &self)
        return min(max(boundary, range.lowerBound), range.upperBound)
    }

    /// An index of `weights` drawn in proportion to its weight; nil when no weight is positive.
    public mutating func index(weightedBy weights: [Double]) -> Int? {
        let total = weights.reduce(0) { $0 + max($1, 0) }
        guard total > 0 else { return nil }
        var point = Double.random(in: 0..<total, using: &self)
        for (index, weight) in weights.enumerated() where weight > 0 {
            if point < weight { return index }
            point -= weight
        }
        return weights.lastIndex { $0 > 0 }
    }
}
