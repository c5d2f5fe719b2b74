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
        let plan = try ReplayPlan(session: id, databasePath: databasePath, catalog: catalog)
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
        let summary = recorder.finish()
        let store = try AuditStore(path: databasePath, access: .read)
        let candidateEvents = try store.timeline(of: summary.session)
        let diff = SessionDiff(
            a: plan.session, b: try store.session(summary.session),
            differences: TimelineAligner.differences(plan.events, candidateEvents), eventsA: plan.events.count,
            eventsB: candidateEvents.count)
        return ReplayReport(
            mode: mode, diff: diff, inputsReplayed: plan.steps.count - skipped.count, inputsSkipped: skipped.count,
            cutShort: plan.cutShort,
            recordingFailures: summary.failedWrites, recordedEvents: plan.events, candidateEvents: candidateEvents)
    }

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
        for event in plan.events {
            let widget = event.widget.flatMap { live.auditedObject(atPath: $0) }
            let arguments = (try? AuditValue.parse(json: Array(event.arguments.utf8))) ?? .object([:])
            let widgetID = event.widget.flatMap { ids[$0] } ?? 0
            let parent = event.parentSeq ?? 0
            if event.kind == .input {
                let descriptor = plan.inputs[event.seq]!
                let result = event.result.flatMap { try? AuditValue.parse(json: Array($0.utf8)) }
                if let result, let widget = widget as? any AuditStateRestoring { widget.restoreAuditState(result) }
                recorder.append(
                    descriptor, widget: widgetID, arguments: descriptor.argumentLabels.map { arguments[$0] ?? .null },
                    result: result, flags: 0, parent: parent)
                continue
            }
            let invoker = plan.invokers[event.seq]!
            let outcome = widget.flatMap {
                invoker.invoke(on: candidate, widget: $0, arguments: arguments, root: live)
            }
            recorder.append(
                invoker.descriptor, widget: widgetID,
                arguments: invoker.descriptor.argumentLabels.map { arguments[$0] ?? .null }, result: outcome?.result,
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
