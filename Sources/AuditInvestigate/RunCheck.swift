import AuditKit
import AuditModel
import AuditReplay
import AuditStorage
import Foundation
import Synchronization

/// Records generated runs with a delegate and a candidate into scratch databases and diffs them,
/// several at once when asked.
struct RunCheck: Sendable {
    let scenario: Scenario
    let delegate: DelegateRegistry.Entry
    let candidate: DelegateRegistry.Entry

    /// What one run did: its steps, the delegate's session and the database holding it, the answer
    /// branches the delegate reached, and the first difference's signature when the candidate's
    /// session differs.
    struct Outcome: Sendable {
        var steps: [ScenarioStep]
        var session: Int64
        var database: String
        var branches: Set<String>
        var divergence: String?
        /// The callbacks both delegates were asked.
        var callbacks: Int
    }

    /// Checks `runs` (their steps) in order, `jobs` at a time: job j records runs j, j + jobs, …
    /// into `folder/job-j.sqlite`. A run whose delegate answers differently from its dry run has no
    /// outcome (nil).
    func check(_ runs: [[ScenarioStep]], jobs: Int, in folder: URL) throws -> [Outcome?] {
        let lanes = min(jobs, runs.count)
        let results = Mutex<[Int: Swift.Result<Outcome?, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            let database = folder.appending(path: "job-\(lane).sqlite").path
            for index in stride(from: lane, to: runs.count, by: lanes) {
                let outcome = Swift.Result { try check(runs[index], database: database) }
                results.withLock { $0[index] = outcome }
            }
        }
        return try results.withLock { found in try runs.indices.map { try found[$0]!.get() } }
    }

    private func check(_ steps: [ScenarioStep], database: String) throws -> Outcome? {
        var run = scenario
        run.steps = steps
        let a: RecordingSummary
        let b: RecordingSummary
        do {
            a = try ScenarioRunner.record(run, delegate: delegate.make, named: delegate.name, databasePath: database)
            b = try ScenarioRunner.record(
                run, delegate: candidate.make, named: candidate.name, databasePath: database, invalid: .skip)
        } catch is ScenarioError {
            return nil
        }
        let store = try AuditStore(path: database, access: .read)
        let first = ReplayReport.firstDifference(in: try SessionDiffer(store).diff(a.session, b.session))
        return Outcome(
            steps: steps, session: a.session, database: database,
            branches: try Self.branches(of: a.session, in: store, catalog: scenario.catalog),
            divergence: first.map(Minimizer.signature), callbacks: a.callbacks + b.callbacks)
    }

    /// The answer branches session `id` reached, one string each (widget, callback, branch).
    static func branches(of id: Int64, in store: AuditStore, catalog: WidgetCatalog) throws -> Set<String> {
        var branches: Set<String> = []
        for row in try CoverageReport(sessions: [id], catalog: catalog, in: store).rows {
            for (branch, count) in row.branches where count > 0 {
                branches.insert("\(row.widget) \(row.protocolName).\(row.callback) \(branch)")
            }
        }
        return branches
    }
}
