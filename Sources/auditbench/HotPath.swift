import AuditCore
import Foundation

/// A delegate protocol of the benchmark's own, audited through the public API exactly as an app's.
protocol ProbeDelegate: AnyObject {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool
}

extension ProbeDelegate {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool { delegateDefault(true) }
}

enum ProbeCallbacks {
    static let shouldAccept = Callback<any ProbeDelegate, Probe, Int, Bool>(
        "ProbeDelegate", "probe(_:shouldAccept:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.probe($1, shouldAccept: $2) })
}

final class ProbeProxy: DelegateProxy, ProbeDelegate {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool {
        forward(ProbeCallbacks.shouldAccept, to: probe.delegate, probe, value)
    }
}

struct WeakProbeDelegate: WeakDelegateReference {
    weak var delegate: (any ProbeDelegate)?
}

final class Probe: View {
    private var slot = DelegateSlot<WeakProbeDelegate>()
    var delegate: (any ProbeDelegate)? {
        get { slot.delegate }
        set { slot.delegate = newValue }
    }
    /// The proxy while audited: what a widget's `slot.callee` returns then, and what the benchmark calls.
    var proxy: (any ProbeDelegate)? { slot.proxy }
    override func auditLinkDidChange(_ link: AuditLink?) { slot.audit(link, with: ProbeProxy.init(link:)) }
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
        databasePath: database, session: NewSession(scenario: "bench", scenarioSource: "{}", delegate: "bench"),
        catalog: .builtIn)
    try recorder.attach(to: probe)
    let proxy = probe.proxy!
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
            let answer = proxy.probe(probe, shouldAccept: value)
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
