import AuditKit
import AuditModel
import AuditReplay
import AuditStorage
import Foundation
import Synchronization

/// Checks generated runs: drives each with a delegate and with a candidate under recorders that
/// keep the events in memory, compares the two as `diff` would, and stores only a run that
/// differs (both sessions, recorded again into a scratch database, for the minimizer); several
/// runs at once when asked.
final class RunCheck: @unchecked Sendable {
    // @unchecked: a lane's store is used by one thread at a time, the one `check` gives the lane.
    let scenario: Scenario
    let delegate: DelegateRegistry.Entry
    let candidate: DelegateRegistry.Entry
    /// One scratch database per lane, in `folder`: each lane's recorders are made on its store,
    /// which only a run that differs writes.
    private let lanes: [Lane]

    /// What one run did: its steps, the answer branches the delegate reached, the callbacks both
    /// delegates were asked, and, when the candidate differs, its first difference.
    struct Outcome: Sendable {
        var steps: [ScenarioStep]
        var branches: Set<String>
        /// What makes a run join the corpus when one of them is new: `reached(_:widgets:)`.
        var features: Set<Int>
        /// The callbacks both delegates were asked.
        var callbacks: Int
        var divergence: Divergence?
    }

    /// A run that differs, stored: the delegate's session in the scratch database `database`,
    /// and the signature of the first difference (kind, widget and callback).
    struct Divergence: Sendable {
        var session: Int64
        var database: String
        var signature: String
    }

    /// A lane's scratch store, and the secure text hasher of its database when the scenario has
    /// secure text views (both sides hash under the one key, as in one database).
    private struct Lane {
        let store: AuditStore
        let secrets: SecretHasher?
    }

    /// Opens `lanes` scratch databases in `folder`.
    init(
        scenario: Scenario, delegate: DelegateRegistry.Entry, candidate: DelegateRegistry.Entry, lanes: Int,
        in folder: URL
    ) throws {
        self.scenario = scenario
        self.delegate = delegate
        self.candidate = candidate
        self.lanes = try (0..<max(lanes, 1)).map { lane in
            let path = folder.appending(path: "job-\(lane).sqlite").path
            let store = try AuditStore(path: path, access: .write)
            return Lane(
                store: store,
                secrets: scenario.secureTextPaths.isEmpty ? nil : try SecretHasher(databasePath: path))
        }
    }

    /// Checks `runs` (their steps) in order, on every lane at once: lane j checks runs j, j +
    /// lanes, …. A run whose delegate answers differently from its dry run has no outcome (nil).
    func check(_ runs: [[ScenarioStep]]) throws -> [Outcome?] {
        let count = min(lanes.count, runs.count)
        let results = Mutex<[Int: Swift.Result<Outcome?, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: count) { lane in
            for index in stride(from: lane, to: runs.count, by: count) {
                let outcome = Swift.Result { try check(runs[index], on: lanes[lane]) }
                results.withLock { $0[index] = outcome }
            }
        }
        return try results.withLock { found in try runs.indices.map { try found[$0]!.get() } }
    }

    private func check(_ steps: [ScenarioStep], on lane: Lane) throws -> Outcome? {
        var run = scenario
        run.steps = steps
        guard let a = try capture(run, delegate, invalid: .stop, on: lane),
            let b = try capture(run, candidate, invalid: .skip, on: lane)
        else { return nil }
        let reached = Self.reached(a.events, widgets: a.widgets)
        var outcome = Outcome(
            steps: steps, branches: reached.branches, features: reached.features, callbacks: a.callbacks + b.callbacks)
        guard SessionDiffer.differ(a.fingerprints, b.fingerprints) else { return outcome }
        outcome.divergence = try store(run, on: lane)
        return outcome
    }

    /// One side of a run, captured in memory.
    private struct Captured {
        var fingerprints: [EventFingerprint]
        var events: [CapturedEvent]
        var widgets: [WidgetRecord]

        var callbacks: Int { events.count { $0.descriptor.kind == .callback } }
    }

    /// Drives `run` with a delegate `entry` makes, under a recorder that stores nothing; nil when
    /// a step cannot run (`invalid: .stop`: the delegate answered differently from its dry run).
    private func capture(
        _ run: Scenario, _ entry: DelegateRegistry.Entry, invalid: ScenarioRunner.InvalidStep, on lane: Lane
    ) throws -> Captured? {
        let recorder = try Recorder(
            recordingInline: lane.store,
            session: NewSession(scenario: run.name, source: run.source, delegate: entry.name),
            catalog: run.catalog)
        if let secrets = lane.secrets { recorder.useSecrets(secrets) }
        let delegate = entry.make()
        do {
            try withExtendedLifetime(delegate) { () throws(ScenarioError) in
                _ = try ScenarioRunner.run(run, delegate: delegate, recorder: recorder, invalid: invalid)
            }
        } catch {
            return nil
        }
        guard let fingerprints = recorder.prepareToFinish() else { return nil }
        let (events, widgets) = recorder.captured
        return Captured(fingerprints: fingerprints, events: events, widgets: widgets)
    }

    /// Records a run that differs with both delegates into the lane's database, as `record` and
    /// a replay's candidate would (the candidate skipping what it cannot take), and diffs the two
    /// sessions; nil when, stored, they do not differ after all (a delegate whose answers change
    /// from one run to the next).
    private func store(_ run: Scenario, on lane: Lane) throws -> Divergence? {
        let database = lane.store.path
        let a: RecordingSummary
        let b: RecordingSummary
        do {
            a = try ScenarioRunner.record(run, delegate: delegate.make, named: delegate.name, databasePath: database)
            b = try ScenarioRunner.record(
                run, delegate: candidate.make, named: candidate.name, databasePath: database, invalid: .skip)
        } catch is ScenarioError {
            return nil
        }
        let first = ReplayReport.firstDifference(in: try SessionDiffer(lane.store).diff(a.session, b.session))
        return first.map { Divergence(session: a.session, database: database, signature: Minimizer.signature($0)) }
    }

    /// What the delegate did in `events`: its answer branches, one string each (widget, callback,
    /// branch, as `CoverageReport` names them), and, finer, each callback's branch with the classes
    /// of its arguments (`ArgumentClass`), as hashes; an argument that names a widget of the tree
    /// (another recognizer, say) counts by that name, as `coverage` lists it.
    static func reached(_ events: [CapturedEvent], widgets: [WidgetRecord]) -> (
        branches: Set<String>, features: Set<Int>
    ) {
        var paths: [Int32: String] = [:]
        for widget in widgets { paths[widget.id] = widget.path }
        let named = Set(paths.values)
        var reached: (branches: Set<String>, features: Set<Int>) = ([], [])
        for index in events.indices where events[index].descriptor.kind == .callback {
            let descriptor = events[index].descriptor
            let widget = paths[events[index].widget] ?? ""
            let branch = CoverageReport.branch(
                of: descriptor.answer, events[index].answer, resultIsNil: (events[index].result ?? .null) == .null)
            reached.branches.insert("\(widget) \(descriptor.protocolName).\(descriptor.name) \(branch)")
            var hasher = Hasher()
            hasher.combine(widget)
            hasher.combine(descriptor.protocolName)
            hasher.combine(descriptor.name)
            hasher.combine(branch)
            for (position, value) in events[index].arguments.values.enumerated() {
                hasher.combine(position)
                if case .string(let text) = value, CoverageReport.names(named, text) {
                    hasher.combine(text)
                } else {
                    hasher.combine(ArgumentClass.classes(of: value))
                }
            }
            reached.features.insert(hasher.finalize())
        }
        return reached
    }
}
