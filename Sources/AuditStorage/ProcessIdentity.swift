import AuditModel
import Foundation

/// Names a running process in a way that survives PID reuse: its PID and its start time in clock
/// ticks since boot (field 22 of `/proc/PID/stat`).
struct ProcessIdentity: Equatable, Sendable {
    let pid: Int64
    let startTicks: Int64

    static let current = ProcessIdentity(pid: Int64(getpid()), startTicks: startTicks(of: Int64(getpid())) ?? 0)

    /// True when the process that owned a recording is still running.
    static func isRunning(pid: Int64, startTicks: Int64) -> Bool {
        guard let ticks = Self.startTicks(of: pid) else { return false }
        return ticks == startTicks
    }

    private static func startTicks(of pid: Int64) -> Int64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the parenthesised command name start at field 3 (state).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? Int64(fields[19]) : nil
    }
}
