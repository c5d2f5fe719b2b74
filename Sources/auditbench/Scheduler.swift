import AuditCore
import AuditExamples
import Foundation

/// One policy of `replay --all`'s scheduler to measure: the standard one, or it with one piece
/// turned off.
struct SchedulerVariant {
    let name: String
    let policy: Replayer.BatchPolicy

    /// The standard policy, then each piece turned off on its own.
    static let all: [SchedulerVariant] = {
        var variants = [SchedulerVariant(name: "standard", policy: .standard)]
        func without(_ name: String, _ change: (inout Replayer.BatchPolicy) -> Void) {
            var policy = Replayer.BatchPolicy.standard
            change(&policy)
            variants.append(SchedulerVariant(name: name, policy: policy))
        }
        without("no batches (a commit per session)") { $0.sessionsPerBatch = 1 }
        without("no turns put off") { $0.turnsPutOff = 0 }
        without("no checkpointer (SQLite's automatic checkpoint)") { $0.checkpointInterval = nil }
        return variants
    }()
}

/// Callbacks per second of `Replayer.replayAll` replaying every session of a copy of `corpus`
/// against checkout.v1 in interaction mode, on `jobs` threads, scheduled by `policy`: in this
/// process, as `replay --all` runs it, from the first session taken to the last delivered.
@MainActor func schedulerRate(corpus: String, callbacks: Int, jobs: Int, policy: Replayer.BatchPolicy) throws -> Double
{
    let copy = freshDatabase()
    try FileManager.default.copyItem(atPath: corpus, toPath: copy)
    defer { discard(copy) }
    let replayer = Replayer(databasePath: copy, registry: .examples, catalog: .builtIn)
    let sessions = try AuditStore(path: copy, access: .read).sessions().map(\.id)
    let steps = Replayer.steps(delegate: "checkout.v1", mode: .interaction) { $0.identical }
    let began = now()
    var identical = 0
    replayer.replayAll(sessions, jobs: jobs, policy: policy, steps: steps) { _, outcome in
        if (try? outcome.get()) == true { identical += 1 }
    }
    let seconds = Double(now() - began) / 1e9
    precondition(identical == sessions.count, "every session of the corpus replays identically")
    return Double(sessions.count * callbacks) / seconds
}
