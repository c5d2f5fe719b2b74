import CSQLite
import Foundation
import Testing

@testable import AuditCore

/// The isolated mode compares answers as it asks and stores the candidate's session as a copy of
/// the recorded rows with its own answers written over them: what it reports and stores must be
/// what the full differ finds and what a recorder would have stored.
@Suite("Isolated replay")
struct IsolatedReplayTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func record(_ scenario: Scenario, _ delegate: String = "checkout.v1") throws -> Int64 {
        try ScenarioRunner.record(
            scenario, delegate: delegate, registry: ReplayTests.registry, databasePath: database
        ).session
    }

    func replay(_ session: Int64, _ delegate: String) throws -> ReplayReport {
        try Replayer(databasePath: database, registry: ReplayTests.registry).replay(
            session: session, delegate: delegate, mode: .isolated)
    }

    /// Each event's columns but the time and duration, in `seq` order.
    func rows(_ session: Int64) throws -> [String] {
        let connection = try Connection(path: database, mode: .readOnly)
        return try connection.prepare(
            """
            SELECT seq, kind, widget, protocol, callback, args, quote(result), quote(vetoed), quote(implemented),
                   quote(parent_seq)
            FROM timeline WHERE session = ? ORDER BY seq
            """
        ).rows([.integer(session)]) { row in (0..<10).map { row.string($0) ?? "NULL" }.joined(separator: "|") }
    }

    @Test(arguments: ["checkout.v2", "tired", "checkout.v1"])
    func reportsWhatTheFullDifferFinds(delegate: String) throws {
        let session = try record(try ReplayTests.randomCheckout(seed: 11, count: 300))
        let report = try replay(session, delegate)
        let full = try AuditStore(path: database, access: .read).diff(session, report.candidate.id)
        #expect(report.diff.differences == full.differences)
        #expect(report.diff.eventsA == full.eventsA && report.diff.eventsB == full.eventsB)
        #expect(report.identical == (delegate == "checkout.v1"))
        if delegate == "tired" { #expect(report.diff.differences.count > 50) }
    }

    @Test func storesTheRecordedEventsWithTheCandidatesAnswers() throws {
        let session = try record(try Examples.checkout())
        let report = try replay(session, "checkout.v2")
        let recorded = try rows(session)
        let candidate = try rows(report.candidate.id)
        #expect(recorded.count == candidate.count)
        let changed = Set(report.diff.differences.map { $0.a!.seq })
        for (a, b) in zip(recorded, candidate) {
            let seq = Int64(a.prefix { $0 != "|" })!
            // Who was called, with what, under which parent: always the same; the answer only
            // where a difference says so.
            #expect(a.split(separator: "|").prefix(6) == b.split(separator: "|").prefix(6))
            #expect((a != b) == changed.contains(seq), "event \(seq): \(a) vs \(b)")
        }
        let store = try AuditStore(path: database, access: .read)
        let stored = try store.session(report.candidate.id)
        #expect(stored.status == "complete" && stored.replayOf == session && stored.replayMode == "isolated")
        #expect(stored.delegate == "checkout.v2" && stored.scenario == "checkout")
        #expect(try store.scenarioSource(of: stored.id) == (try store.scenarioSource(of: session)))
        // The counters are those of the rows stored.
        let connection = try Connection(path: database, mode: .readOnly)
        let counted = try connection.prepare(
            """
            SELECT count(*), sum(kind = 'input'), sum(kind = 'callback'), coalesce(sum(vetoed), 0),
                   sum(duration_us)
            FROM timeline WHERE session = ?
            """
        ).rows([.integer(stored.id)]) { row in (0..<5).map { row.int64($0) } }
        #expect(
            counted == [[Int64(stored.events), Int64(stored.inputs), Int64(stored.callbacks), Int64(stored.vetoes), 0]])
        #expect(stored.vetoes != (try store.session(session)).vetoes)
    }

    @Test func aFailedWriteThrowsAndLeavesTheReplayInterrupted() throws {
        let session = try record(try ReplayTests.randomCheckout(seed: 5, count: 60_000))
        #expect(try AuditStore(path: database, access: .read).session(session).events > 2 * Int(AuditStore.copyChunk))
        // The session row, its widgets and the first chunk of rows are written; the second chunk fails.
        StoreFaults.inject(SQLITE_FULL, at: database, after: 3)
        defer { StoreFaults.clear(database) }
        #expect(throws: StoreError.self) { try replay(session, "checkout.v2") }
        let candidate = try #require(try AuditStore(path: database, access: .read).sessions().last)
        // The disk is still full, so the session cannot even be marked: it stays `recording`, owned
        // by this process, and reads as interrupted once the process is gone (as a recording's does).
        #expect(candidate.replayOf == session && candidate.status == "recording")
        // What was stored is a contiguous prefix of the recorded events.
        let connection = try Connection(path: database, mode: .readOnly)
        let stored = try connection.prepare("SELECT count(*), max(seq) FROM events WHERE session = ?").rows([
            .integer(candidate.id)
        ]) { [$0.int64(0), $0.int64(1)] }
        #expect(stored == [[AuditStore.copyChunk, AuditStore.copyChunk]])
    }
}
