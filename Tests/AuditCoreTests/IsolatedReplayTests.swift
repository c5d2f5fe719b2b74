import CSQLite
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// The isolated mode compares answers as it asks and stores the candidate's session as the
/// recorded rows, shared, and its own rows where its answers differ: what it reports and what the
/// `timeline` view shows of it must be what the full differ finds and what a recorder would have
/// stored.
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
        try Replayer(databasePath: database, registry: ReplayTests.registry, catalog: .builtIn).replay(
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
        let full = try SessionDiffer(AuditStore(path: database, access: .read)).diff(session, report.candidate.id)
        expectEqual(report.diff.differences, full.differences)
        #expect(report.diff.eventsA == full.eventsA && report.diff.eventsB == full.eventsB)
        expectEqual(report.identical, (delegate == "checkout.v1"))
        if delegate == "tired" { #expect(report.diff.differences.count > 50) }
    }

    @Test func storesTheRecordedEventsWithTheCandidatesAnswers() throws {
        let session = try record(try Examples.checkout())
        let report = try replay(session, "checkout.v2")
        let recorded = try rows(session)
        let candidate = try rows(report.candidate.id)
        expectEqual(recorded.count, candidate.count)
        let changed = Set(report.diff.differences.map { $0.a!.seq })
        for (a, b) in zip(recorded, candidate) {
            let seq = Int64(a.prefix { $0 != "|" })!
            // Who was called, with what, under which parent: always the same; the answer only
            // where a difference says so.
            expectEqual(a.split(separator: "|").prefix(6), b.split(separator: "|").prefix(6))
            expectEqual((a != b), changed.contains(seq), "event \(seq): \(a) vs \(b)")
        }
        let store = try AuditStore(path: database, access: .read)
        let stored = try store.session(report.candidate.id)
        #expect(stored.status == .complete && stored.replayOf == session && stored.replayMode == .isolated)
        #expect(stored.delegate == "checkout.v2" && stored.scenario == "checkout")
        try expectEqual(store.scenarioSource(of: stored.id), (try store.scenarioSource(of: session)))
        // The counters are those of the rows stored.
        let connection = try Connection(path: database, mode: .readOnly)
        let counted = try connection.prepare(
            """
            SELECT count(*), sum(kind = 'input'), sum(kind = 'callback'), coalesce(sum(vetoed), 0),
                   sum(duration_us)
            FROM timeline WHERE session = ?
            """
        ).rows([.integer(stored.id)]) { row in (0..<5).map { row.int64($0) } }
        expectEqual(
            counted, [[Int64(stored.events), Int64(stored.inputs), Int64(stored.callbacks), Int64(stored.vetoes), 0]])
        #expect(stored.vetoes != (try store.session(session)).vetoes)
    }

    /// The course is the recording's in what delegates do to widgets too: checkout.v1 selects a
    /// payment segment in code from inside a callback, which the recording (made with "tired") does
    /// not have; that selection is not performed, so every difference is an answer, and the events
    /// are the recorded ones. (The other way round, recorded with checkout.v1 and replayed with
    /// "tired", the pin performs the recorded selections itself: `reportsWhatTheFullDifferFinds`.)
    @Test func inputsTheCandidateMakesInsideACallbackAreNotPerformed() throws {
        let session = try record(try ReplayTests.randomCheckout(seed: 5, count: 300), "tired")
        let report = try replay(session, "checkout.v1")
        let full = try SessionDiffer(AuditStore(path: database, access: .read)).diff(session, report.candidate.id)
        expectEqual(report.diff.differences, full.differences)
        #expect(!report.diff.differences.isEmpty)
        #expect(report.diff.differences.allSatisfy { $0.kind != .onlyInA && $0.kind != .onlyInB })
        try expectEqual(rows(session).count, (try rows(report.candidate.id)).count)
        // In interaction mode the same selections are performed, and show as events only in the candidate.
        let interaction = try Replayer(databasePath: database, registry: ReplayTests.registry, catalog: .builtIn)
            .replay(session: session, delegate: "checkout.v1", mode: .interaction)
        #expect(interaction.diff.differences.contains { $0.kind == .onlyInB && $0.event.callback == "selectSegment" })
    }

    /// A candidate that changes the tree by a side effect no widget answer carries (it removes a
    /// control) takes the run off the recording's course: the report says where, and how many
    /// recorded events after it went uncompared, rather than leaving them out without a word.
    @Test func aRunThatLeavesTheRecordingsCourseSaysWhatWasNotCompared() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"format": 1, "name": "pair", "root": {"kind": "View", "id": "pair", "children": [
                   {"kind": "SegmentedControl", "id": "a", "segments": ["x", "y"]},
                   {"kind": "SegmentedControl", "id": "b", "segments": ["x", "y"]}]},
                 "steps": [{"action": "tapSegment", "widget": "pair/a", "segment": 1},
                           {"action": "tapSegment", "widget": "pair/b", "segment": 1},
                           {"action": "tapSegment", "widget": "pair/a", "segment": 0},
                           {"action": "tapSegment", "widget": "pair/b", "segment": 0}]}
                """#.utf8), catalog: .builtIn)
        var registry = ReplayTests.registry
        registry.register("defaults", summary: "implements nothing") { DefaultsOnly() }
        registry.register("remover", summary: "removes control b when asked about a") { RemovesB() }
        let session = try ScenarioRunner.record(
            scenario, delegate: "defaults", registry: registry, databasePath: database
        ).session
        let replayer = Replayer(databasePath: database, registry: registry, catalog: .builtIn)
        let report = try replayer.replay(session: session, delegate: "remover", mode: .isolated)
        let left = try #require(report.leftCourse)
        let recorded = try rows(session).count
        expectEqual(left.uncompared, recorded - Int(left.event))
        #expect(left.uncompared > 0)
        #expect(!report.identical)
        // Following the recording to the end, nothing is left uncompared.
        #expect(try replayer.replay(session: session, delegate: "defaults", mode: .isolated).leftCourse == nil)
    }

    @Test func theCandidatesSessionStoresOnlyTheEventsItChanged() throws {
        let session = try record(try ReplayTests.randomCheckout(seed: 3, count: 2_000))
        let report = try replay(session, "checkout.v2")
        let connection = try Connection(path: database, mode: .readOnly)
        func count(_ sql: String) throws -> Int64 {
            try connection.prepare(sql).rows([.integer(report.candidate.id)]) { $0.int64(0) }.first ?? -1
        }
        #expect(report.diff.differences.count > 100)
        try expectEqual(count("SELECT count(*) FROM events WHERE session = ?"), Int64(report.diff.differences.count))
        try expectEqual(count("SELECT count(*) FROM timeline WHERE session = ?"), Int64(report.diff.eventsA))
        // Read like any session, through the engine of `auditctl query`.
        let vetoes = try ReadOnlyQuery.run(
            "SELECT count(*) FROM timeline WHERE session = \(report.candidate.id) AND vetoed", databasePath: database)
        expectEqual(vetoes.rows, [[.integer(Int64(report.candidate.vetoes))]])
    }

    @Test func aDatabaseOfTheSchemaBeforeSharedEventsIsReadThenMigratedByTheReplay() throws {
        // A session recorded by this build, copied into a database at schema version 2.
        let recorded = try record(try Examples.checkout())
        let old = folder.path("old.sqlite")
        do {
            let connection = try Connection(path: old, mode: .readWrite(create: true))
            try Migrator.migrate(connection, migrations: Array(Migration.all.prefix(2)))
            try connection.execute(
                """
                ATTACH '\(database)' AS source;
                INSERT INTO callbacks SELECT id, kind, protocol, name, labels FROM source.callbacks;
                INSERT INTO sessions SELECT id, name, scenario, scenario_source, delegate, started_at, ended_at, status,
                    replay_of, replay_mode, event_count, input_count, callback_count, veto_count, failure_count,
                    owner_pid, owner_token FROM source.sessions;
                INSERT INTO widgets SELECT * FROM source.widgets;
                INSERT INTO events SELECT session, seq, t_ns, widget, callback, args, result,
                    coalesce(vetoed, overridden), implemented, duration_ns, parent_seq FROM source.events;
                DETACH source;
                """)
        }
        let before = try AuditStore(path: old, access: .read)
        #expect(!before.hasSharedEvents)
        #expect(try SessionDiffer(before).diff(recorded, recorded).identical)
        let source = try AuditStore(path: database, access: .read).scenarioSource(of: recorded)
        try expectEqual(before.scenarioSource(of: recorded), source)
        let report = try Replayer(databasePath: old, registry: ReplayTests.registry, catalog: .builtIn).replay(
            session: recorded, delegate: "checkout.v2", mode: .isolated)
        expectEqual(report.diff.differences.map(ReplayTests.describe), ReplayTests.planted)
        let after = try AuditStore(path: old, access: .read)
        #expect(after.hasSharedEvents)
        try expectEqual(SessionDiffer(after).diff(recorded, report.candidate.id).differences, report.diff.differences)
    }

    @Test func aFailedWriteStoresNothingAndThrows() throws {
        let session = try record(try Examples.checkout())
        let before = try AuditStore(path: database, access: .read).sessions()
        StoreFaults.inject(SQLITE_FULL, at: database, after: 1)
        defer { StoreFaults.clear(database) }
        #expect(throws: StoreError.self) { try replay(session, "checkout.v2") }
        StoreFaults.clear(database)
        try expectEqual(AuditStore(path: database, access: .read).sessions(), before)
    }
}

/// A text delegate that keeps the text at most 3 characters, reading the view's text.
final class MaxThree: TextViewDelegate {
    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        textView.text.count - range.length + text.count <= 3
    }
}

extension IsolatedReplayTests {
    /// ReplayModes: isolated mode shows a delegate its text view's text and selection as the recording saw them.
    @Test func isolatedReplayOfSameTextDelegateIsIdentical() throws {
        let s = try inlineScenario(
            #"{"kind":"View","id":"r","children":[{"kind":"TextView","id":"t"}]}"#,
            #"{"action":"typeText","widget":"r/t","text":"ab"},{"action":"typeText","widget":"r/t","text":"cd"}"#)
        let session = try ScenarioRunner.record(s, delegate: { MaxThree() }, named: "max3", databasePath: database)
            .session
        let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
        let interaction = try replayer.replay(
            session: session, candidate: { MaxThree() }, named: "max3", mode: .interaction)
        #expect(interaction.identical)
        let isolated = try replayer.replay(session: session, candidate: { MaxThree() }, named: "max3", mode: .isolated)
        #expect(isolated.identical, "\(isolated.diff.differences.map { "\($0.kind) \($0.event.callback)" })")
    }
}

/// Removes control "b" from the tree when asked about control "a": a change to the widgets that no
/// answer carries.
final class RemovesB: SegmentedControlDelegate {
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        if segmentedControl.identifier == "a" {
            segmentedControl.superview?.subviews.first { $0.identifier == "b" }?.removeFromSuperview()
        }
        return true
    }
}
