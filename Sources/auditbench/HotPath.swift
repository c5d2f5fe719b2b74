import AuditCore
import Foundation

/// A delegate protocol of the benchmark's own, audited through the public API exactly as an app's.
protocol ProbeDelegate: AnyObject {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool
}

extension ProbeDelegate {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool { Probe.callbacks.shouldAccept.unimplemented(value) }
}

struct ProbeCallbacks: CallbackTable {
    let shouldAccept = Callback<any ProbeDelegate, Probe, Int, Bool>(
        "probe(_:shouldAccept:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.probe($1, shouldAccept: $2) })
}

final class Probe: View {
    static let callbacks = ProbeCallbacks()
    weak var delegate: (any ProbeDelegate)?

    /// Recorded as a plain view: the benchmark's catalog is the built-in one.
    override var widgetKind: String { "View" }

    /// What a widget does at each callback, and what the benchmark calls: recorded while audited.
    func ask(_ value: Int) -> Bool { Self.callbacks.shouldAccept.ask(delegate, self, value) }
}

final class EvenOnly: ProbeDelegate {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool { value & 1 == 0 }
}

/// The time an audited callback adds on the caller's thread over a direct delegate call: each
/// call timed alone, direct and through the proxy, interleaved in blocks of 1,000 so both see the
/// same machine; the figure is the difference of the percentiles. Between blocks the benchmark
/// pauses 1 ms (not timed), as an app's callbacks come at UI rates: the writer keeps up and the
/// queue's buffers are reused, as in steady use. The first 20 blocks warm up and are not counted.
func measureHotPath(calls: Int, database: String) throws -> (p50: Double, p99: Double, directP50: Double) {
    let probe = Probe(identifier: "probe")
    let delegate = EvenOnly()
    probe.delegate = delegate
    let recorder = try Recorder(
        databasePath: database, session: NewSession(scenario: "bench", source: "{}", delegate: "bench"),
        catalog: .builtIn)
    try recorder.attach(to: probe)
    let target: any ProbeDelegate = delegate
    var direct: [Int64] = []
    var audited: [Int64] = []
    direct.reserveCapacity(calls)
    audited.reserveCapacity(calls)
    var sink = 0
    let block = 1_000
    let warmUp = 20 * block
    for start in stride(from: -warmUp, to: calls, by: block) {
        if start == 0 {
            direct.removeAll(keepingCapacity: true)
            audited.removeAll(keepingCapacity: true)
        }
        for value in start..<min(calls, start + block) {
            let t0 = now()
            let answer = target.probe(probe, shouldAccept: value)
            let t1 = now()
            direct.append(t1 - t0)
            sink &+= answer ? 1 : 0
        }
        for value in start..<min(calls, start + block) {
            let t0 = now()
            let answer = probe.ask(value)
            let t1 = now()
            audited.append(t1 - t0)
            sink &+= answer ? 1 : 0
        }
        usleep(1_000)
    }
    let summary = recorder.finish()
    precondition(summary.events == calls + warmUp && sink == calls + warmUp, "every call recorded and answered")
    direct.sort()
    audited.sort()
    return (
        Double(percentile(audited, 0.5) - percentile(direct, 0.5)),
        Double(percentile(audited, 0.99) - percentile(direct, 0.99)), Double(percentile(direct, 0.5))
    )
}
