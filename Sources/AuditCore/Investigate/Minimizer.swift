import Foundation

/// Finds a smallest sequence of a session's inputs on which a candidate delegate still diverges
/// from the recording delegate in the same way (delta debugging, ddmin).
///
/// "The same way" is the first divergence's kind, widget, protocol and callback when the whole
/// session is replayed. Each test records the candidate subsequence twice — with a fresh recording
/// delegate and a fresh candidate — into a scratch database and diffs the two; a subsequence that
/// cannot run (a touch that never began, a range past the end of the text) is unresolved, never a
/// pass. Outcomes are cached by subsequence, and the number of tests is bounded.
public struct Minimizer: Sendable {
    public var databasePath: String
    public var registry: DelegateRegistry
    public var catalog: WidgetCatalog

    public init(databasePath: String, registry: DelegateRegistry, catalog: WidgetCatalog) {
        self.databasePath = databasePath
        self.registry = registry
        self.catalog = catalog
    }

    /// What minimizing found.
    public struct Result: Sendable {
        /// The smallest failing input sequence found, in order.
        public var steps: [ScenarioStep]
        /// The original number of inputs.
        public var originalCount: Int
        /// A scenario file (JSON) with the session's tree and `steps`, which `record` and `replay` accept.
        public var scenario: String
        /// What the divergence is: kind, widget and callback.
        public var divergence: String
        /// Tests run (each two recordings and a diff), answered from the cache, and unresolved.
        public var tests: Int
        public var cached: Int
        public var unresolved: Int
        /// True when the bound on tests stopped the search before it finished.
        public var stoppedAtBound: Bool
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case noDivergence(session: Int64, delegate: String)

        public var description: String {
            switch self {
            case .noDivergence(let session, let delegate):
                "\(delegate) behaves like the recording on session \(session): there is nothing to minimize"
            }
        }
    }

    private enum Outcome {
        case diverges
        case same
        case unresolved
    }

    public func minimize(
        session id: Int64, delegate candidateName: String, maximumTests: Int = 500,
        progress: (_ tests: Int, _ inputs: Int) -> Void = { _, _ in }
    ) throws -> Result {
        let candidate = try registry.entry(named: candidateName)
        let store = try AuditStore(path: databasePath, access: .read)
        let recording = try registry.entry(named: try store.session(id).delegate)
        let plan = try ReplayPlan(session: id, databasePath: databasePath, catalog: catalog)
        let scratch = FileManager.default.temporaryDirectory.appending(path: "auditctl-minimize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let database = scratch.appending(path: "scratch.sqlite").path

        func firstDivergence(_ indexes: [Int]) throws -> (Outcome, String?) {
            var scenario = plan.scenario
            scenario.steps = indexes.map { plan.steps[$0] }
            let a: RecordingSummary
            let b: RecordingSummary
            do {
                a = try ScenarioRunner.record(
                    scenario, delegate: recording.make, named: "recording", databasePath: database)
                // The candidate skips an input it cannot take, as in a replay (where that shows as a
                // difference); a subsequence the recording delegate cannot run reproduces nothing.
                b = try ScenarioRunner.record(
                    scenario, delegate: candidate.make, named: "candidate", databasePath: database, invalid: .skip)
            } catch is ScenarioError {
                return (.unresolved, nil)
            }
            let diff = try AuditStore(path: database, access: .read).diff(a.session, b.session)
            guard let first = ReplayReport.firstDifference(in: diff) else { return (.same, nil) }
            return (.diverges, Self.signature(first))
        }

        let all = Array(plan.steps.indices)
        guard case (.diverges, let signature?) = try firstDivergence(all) else {
            throw Failure.noDivergence(session: id, delegate: candidateName)
        }
        var cache: [[Int]: Outcome] = [:]
        var tests = 1
        var cached = 0
        var unresolved = 0
        var stoppedAtBound = false
        func test(_ indexes: [Int]) throws -> Outcome {
            if let known = cache[indexes] {
                cached += 1
                return known
            }
            guard tests < maximumTests else {
                stoppedAtBound = true
                return .unresolved
            }
            tests += 1
            let (outcome, found) = try firstDivergence(indexes)
            // Diverging in another way does not reproduce this divergence.
            let result: Outcome = outcome == .diverges && found != signature ? .same : outcome
            if result == .unresolved { unresolved += 1 }
            cache[indexes] = result
            return result
        }

        // ddmin: try chunks, then complements; refine the granularity when neither fails.
        var current = all
        var granularity = 2
        while current.count >= 2 && !stoppedAtBound {
            progress(tests, current.count)
            let size = Int((Double(current.count) / Double(granularity)).rounded(.up))
            let chunks = stride(from: 0, to: current.count, by: size).map {
                Array(current[$0..<min(current.count, $0 + size)])
            }
            var reduced = false
            for chunk in chunks where try test(chunk) == .diverges {
                current = chunk
                granularity = 2
                reduced = true
                break
            }
            if !reduced && chunks.count > 2 {
                for chunk in chunks {
                    let complement = current.filter { !chunk.contains($0) }
                    if try test(complement) == .diverges {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                if granularity >= current.count { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        let steps = current.map { plan.steps[$0] }
        return Result(
            steps: steps, originalCount: all.count, scenario: try Self.scenarioText(plan.scenario, steps: steps),
            divergence: signature, tests: tests, cached: cached, unresolved: unresolved, stoppedAtBound: stoppedAtBound)
    }

    static func signature(_ difference: EventDifference) -> String {
        let event = difference.event
        return "\(difference.kind.rawValue) at \(event.widget ?? "-") "
            + "\(event.protocolName.map { $0 + "." } ?? "")\(event.callback)"
    }

    /// The session's scenario file with its steps replaced and its name marked.
    private static func scenarioText(_ scenario: Scenario, steps: [ScenarioStep]) throws -> String {
        guard case .object(var fields) = try AuditValue(json: scenario.source) else { return scenario.source }
        fields["name"] = .string(scenario.name + "-minimized")
        fields["steps"] = .array(try steps.map { try AuditValue(json: $0.description) })
        return AuditValue.object(fields).json
    }
}
