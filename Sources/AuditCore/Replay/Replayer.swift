import Foundation

/// Replays stored sessions against a candidate delegate and compares the behaviour.
///
/// The candidate run is stored as a new session marked `replay_of` the original, so it can be
/// shown, queried and diffed like any other. The comparison is returned as a value
/// (`ReplayReport`); printing it and choosing an exit status is the caller's business.
public struct Replayer: Sendable {
    public var databasePath: String
    public var registry: DelegateRegistry
    public var catalog: CallbackCatalog

    public init(databasePath: String, registry: DelegateRegistry = .examples, catalog: CallbackCatalog = .builtIn) {
        self.databasePath = databasePath
        self.registry = registry
        self.catalog = catalog
    }

    /// Replays session `id` against the registered delegate `delegateName`.
    public func replay(session id: Int64, delegate delegateName: String, mode: ReplayMode) throws -> ReplayReport {
        let entry = try registry.entry(named: delegateName)
        return try replay(session: id, candidate: entry.make, named: delegateName, mode: mode)
    }

    /// Replays session `id` against delegates made by `makeCandidate` (called once per run: the
    /// candidate is fresh, and keeps its state across the run). `name` is stored as the replay
    /// session's delegate.
    public func replay(
        session id: Int64, candidate makeCandidate: () -> AnyObject, named name: String, mode: ReplayMode
    ) throws -> ReplayReport {
        let started = monotonicNanoseconds()
        let plan = try ReplayPlan(
            session: id, databasePath: databasePath, catalog: catalog, drivingInputs: mode == .interaction)
        let loaded = monotonicNanoseconds()
        let recorder = try Recorder(
            databasePath: databasePath,
            session: NewSession(
                name: "replay of \(id)", scenario: plan.scenario.name, scenarioSource: plan.scenario.source,
                delegate: name, replayOf: id, replayMode: mode.rawValue))
        if !plan.scenario.secureTextPaths.isEmpty {
            recorder.useSecrets(try SecretHasher(databasePath: databasePath))
        }
        let candidate = makeCandidate()
        var skipped: [Int] = []
        withExtendedLifetime(candidate) {
            if mode == .isolated {
                replayIsolated(plan, candidate: candidate, into: recorder)
            } else {
                skipped =
                    (try? ScenarioRunner.run(
                        plan.scenario, steps: plan.steps, delegate: candidate, recorder: recorder, invalid: .skip))?
                    .skipped ?? []
            }
        }
        let ran = monotonicNanoseconds()
        let summary = recorder.finish()
        let stored = monotonicNanoseconds()
        let store = try AuditStore(path: databasePath, access: .read)
        let diff = try store.diff(id, summary.session, upTo: plan.events.last?.seq)
        var divergence: Divergence?
        if let first = ReplayReport.firstDifference(in: diff) {
            let input =
                try first.a.map { try store.topLevelInput(of: $0, in: id) }
                ?? first.b.map { try store.topLevelInput(of: $0, in: summary.session) }
            divergence = Divergence(difference: first, input: input ?? nil)
        }
        return ReplayReport(
            mode: mode, diff: diff, inputsReplayed: plan.steps.count - skipped.count,
            inputsSkipped: skipped.count, cutShort: plan.cutShort,
            recordingFailures: summary.lostEvents > 0 ? summary.failedWrites : 0,
            firstDivergence: divergence,
            timings: ReplayReport.Timings(
                load: seconds(loaded - started), run: seconds(ran - loaded), store: seconds(stored - ran),
                compare: seconds(monotonicNanoseconds() - stored), callbacks: plan.invokers.count))
    }

    private func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds) / 1e9 }

    /// Calls each recorded callback on `candidate` with the recorded arguments, in order, and
    /// stores the answers as the candidate session.
    private func replayIsolated(_ plan: ReplayPlan, candidate: AnyObject, into recorder: Recorder) {
        // One tree is registered with the recorder (for widget ids) and never driven; the other
        // receives the calls and holds the state the recorded inputs left, with no delegate and
        // no recorder, so the candidate's own side effects cause no extra events.
        let registered = plan.scenario.root.build()
        recorder.attach(to: registered)
        var ids: [String: Int32] = [:]
        registered.visit { view in
            ids[view.path] = view.auditLinkID
            for recognizer in view.gestureRecognizers { ids[recognizer.path] = recognizer.auditLink?.widget ?? 0 }
        }
        recorder.detach(from: registered)
        let live = plan.scenario.root.build()
        // Inputs in progress, innermost last: a widget takes the state its input recorded when
        // that input's events are over, so the callbacks made during an input see the state from
        // before it (the text a should-change is asked about), and later ones the state after it.
        var parents: [Int64: Int64] = [:]
        var objects: [String: AnyObject?] = [:]
        var open: [(seq: Int64, widget: (any AuditStateRestoring)?, state: AuditValue?)] = []
        func isInside(_ seq: Int64, _ ancestor: Int64) -> Bool {
            var current = parents[seq]
            var steps = 0
            while let node = current, steps < 10_000 {
                if node == ancestor { return true }
                current = parents[node]
                steps += 1
            }
            return false
        }
        for event in plan.events {
            if let parent = event.parent { parents[event.seq] = parent }
            while let innermost = open.last, !isInside(event.seq, innermost.seq) {
                if let state = innermost.state { innermost.widget?.restoreAuditState(state) }
                open.removeLast()
            }
            let widget = event.widget.flatMap { path in
                if let object = objects[path] { return object }
                let object = live.auditedObject(atPath: path)
                objects[path] = object
                return object
            }
            let widgetID = event.widget.flatMap { ids[$0] } ?? 0
            let parent = event.parent ?? 0
            if event.kind == .input {
                let descriptor = plan.inputs[event.seq]!
                let result = event.result
                open.append((event.seq, widget as? any AuditStateRestoring, result))
                recorder.append(
                    descriptor, widget: widgetID, arguments: event.arguments, result: result, flags: 0, parent: parent)
                continue
            }
            let invoker = plan.invokers[event.seq]!
            let outcome = widget.flatMap {
                invoker.invoke(on: candidate, widget: $0, values: event.arguments, root: live)
            }
            recorder.append(
                invoker.descriptor, widget: widgetID, arguments: event.arguments, result: outcome?.result,
                flags: outcome?.flags ?? 0, parent: parent)
        }
    }
}

/// A widget whose state the isolated replayer can set from an input's recorded result.
public protocol AuditStateRestoring: View {
    func restoreAuditState(_ state: AuditValue)
}

extension SegmentedControl: AuditStateRestoring {
    public func restoreAuditState(_ state: AuditValue) {
        if case .int(let index)? = state["selected"], index == Self.noSegment || segments.indices.contains(index) {
            selectedSegmentIndex = index
        }
    }
}

extension View {
    var auditLinkID: Int32 { auditLink?.widget ?? 0 }
}
