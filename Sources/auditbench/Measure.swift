import Foundation

/// Nanoseconds on the monotonic clock.
func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// The value at `fraction` (0…1) of the sorted samples.
func percentile(_ sorted: [Int64], _ fraction: Double) -> Int64 {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// One reported figure: the measured value, its baseline from the same run, and the goal.
struct Figure {
    let name: String
    let unit: String
    let value: Double
    let minimum: Double
    let maximum: Double
    let baseline: Double?
    let baselineName: String?
    let goal: String
    let met: Bool?
    /// The ratios of values and baselines measured in pairs, one right after the other, when the
    /// figure was measured that way; the ratio is then their median.
    var pairs: [Double]? = nil

    var ratio: Double? { pairs.map(median) ?? baseline.map { $0 == 0 ? 0 : value / $0 } }

    var json: String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.6g", $0) } ?? "null" }
        func text(_ value: String?) -> String {
            value.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" } ?? "null"
        }
        let pairs = self.pairs.map { "[" + $0.map { number($0) }.joined(separator: ",") + "]" } ?? "null"
        return """
            {"name":\(text(name)),"unit":\(text(unit)),"value":\(number(value)),"min":\(number(minimum)),\
            "max":\(number(maximum)),"baseline":\(number(baseline)),"baseline_name":\(text(baselineName)),\
            "ratio":\(number(ratio)),"pairs":\(pairs),\
            "goal":\(text(goal)),"met":\(met.map { $0 ? "true" : "false" } ?? "null")}
            """
    }
}

/// Runs `body` `runs` times and returns the values it reports.
func repeated(_ runs: Int, _ body: () throws -> Double) rethrows -> [Double] {
    try (0..<runs).map { _ in try body() }
}

/// The machine's CPU time so far, from `/proc/stat`: all of it, and what the host took for other
/// guests (`steal`), in clock ticks; nil where there is no such file.
func cpuTicks() -> (total: Int64, stolen: Int64)? {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
        let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
    else { return nil }
    // user, nice, system, idle, iowait, irq, softirq, steal (guest time is counted in user).
    let fields = line.split(separator: " ").dropFirst().prefix(8).compactMap { Int64($0) }
    guard fields.count == 8 else { return nil }
    return (fields.reduce(0, +), fields[7])
}

/// Removes a database measured and no longer needed, with its WAL and shared-memory files.
func discard(_ database: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
}

/// A fresh temporary folder.
func temporaryFolder(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appending(path: "auditbench-\(name)-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
