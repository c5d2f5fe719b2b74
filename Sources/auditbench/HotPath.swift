import AuditCore
import Foundation

/// A delegate protocol of the benchmark's own, audited through the public API exactly as an app's.
protocol ProbeDelegate: AnyObject {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool
    func probe(_ probe: Probe, decide value: Int, decisionHandler: @escaping @Sendable (Bool) -> Void)
}

extension ProbeDelegate {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool { Probe.callbacks.shouldAccept.unimplemented(value) }
    func probe(_ probe: Probe, decide value: Int, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        Probe.callbacks.decide.unimplemented(value, decisionHandler)
    }
}

struct ProbeCallbacks: CallbackTable {
    let shouldAccept = Callback<any ProbeDelegate, Probe, Int, Bool>(
        "probe(_:shouldAccept:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.probe($1, shouldAccept: $2) })
    let decide = LaterCallback<any ProbeDelegate, Probe, Int, Bool>(
        "probe(_:decide:decisionHandler:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.probe($1, decide: $2, decisionHandler: $3) })
}

final class Probe: View {
    static let callbacks = ProbeCallbacks()
    weak var delegate: (any ProbeDelegate)?

    /// Recorded as a plain view: the benchmark's catalog is the built-in one.
    override var widgetKind: String { "View" }

    /// What a widget does at each callback, and what the benchmark calls: recorded while audited.
    func ask(_ value: Int) -> Bool { Self.callbacks.shouldAccept.ask(delegate, self, value) }

    /// The same question answered through a completion handler, which the delegate calls at once.
    func askLater(_ value: Int, then deliver: @escaping (Bool) -> Void) {
        Self.callbacks.decide.ask(delegate, self, value, then: deliver)
    }
}

final class EvenOnly: ProbeDelegate {
    func probe(_ probe: Probe, shouldAccept value: Int) -> Bool { value & 1 == 0 }
    func probe(_ probe: Probe, decide value: Int, decisionHandler: @escaping @Sendable (Bool) -> Void) {
        decisionHandler(value & 1 == 0)
    }
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

/// What auditing a callback answered through a completion handler adds, against what auditing a
/// synchronous one adds, on the caller's thread: four series timed call by call and interleaved in
/// blocks of 1,000 (the synchronous callback direct and audited, then the handler callback direct —
/// the delegate's method called with a closure — and audited, answered at once), with the same
/// pauses and warm-up as `measureHotPath`. Each figure is the difference of the medians; the
/// handler callback records two events per call (the ask and its answer).
func measureLaterHotPath(calls: Int, database: String) throws -> (synchronous: Double, later: Double) {
    let probe = Probe(identifier: "probe")
    let delegate = EvenOnly()
    probe.delegate = delegate
    let recorder = try Recorder(
        databasePath: database, session: NewSession(scenario: "bench", source: "{}", delegate: "bench"),
        catalog: .builtIn)
    try recorder.attach(to: probe)
    let target: any ProbeDelegate = delegate
    var series = [[Int64]](repeating: [], count: 4)
    for index in series.indices { series[index].reserveCapacity(calls) }
    var sink = 0
    let answer = AnswerBox()  // the last answer, set on this thread by either handler
    let block = 1_000
    let warmUp = 20 * block
    for start in stride(from: -warmUp, to: calls, by: block) {
        if start == 0 { for index in series.indices { series[index].removeAll(keepingCapacity: true) } }
        let values = start..<min(calls, start + block)
        for value in values {
            let t0 = now()
            let answer = target.probe(probe, shouldAccept: value)
            series[0].append(now() - t0)
            sink &+= answer ? 1 : 0
        }
        for value in values {
            let t0 = now()
            let answer = probe.ask(value)
            series[1].append(now() - t0)
            sink &+= answer ? 1 : 0
        }
        for value in values {
            let t0 = now()
            target.probe(probe, decide: value) { answer.value = $0 }
            series[2].append(now() - t0)
            sink &+= answer.value ? 1 : 0
        }
        for value in values {
            let t0 = now()
            probe.askLater(value) { answer.value = $0 }
            series[3].append(now() - t0)
            sink &+= answer.value ? 1 : 0
        }
        usleep(1_000)
    }
    let summary = recorder.finish()
    precondition(summary.events == 3 * (calls + warmUp) && sink == 2 * (calls + warmUp), "every call recorded")
    let medians = series.map { percentile($0.sorted(), 0.5) }
    return (Double(medians[1] - medians[0]), Double(medians[3] - medians[2]))
}

/// The handlers' answer, written and read on the benchmark's one thread.
private final class AnswerBox: @unchecked Sendable {
    var value = false
}
