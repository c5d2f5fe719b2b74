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

/// `AuditStore.mergeSessions(from:)`: rows copied with SQL where the source allows it, and what
/// they become is what the export's records make of them, byte for byte.
@Suite("Merging sessions")
struct SessionMergeTests {
    let folder = TemporaryDirectory()

    /// A database of recordings with labels, interaction replays of some, and (when `isolated`)
    /// an isolated replay, which shares its recording's events.
    func source(isolated: Bool) throws -> String {
        let path = folder.path("source-\(isolated).sqlite")
        for (index, delegate) in ["checkout.v1", "checkout.v2", "tired"].enumerated() {
            _ = try ScenarioRunner.record(
                try ReplayTests.randomCheckout(seed: UInt64(index), count: 60), delegate: delegate,
                registry: ReplayTests.registry, databasePath: path, labels: ["device": "d\(index)"])
        }
        let replayer = Replayer(databasePath: path, registry: ReplayTests.registry, catalog: .builtIn)
        _ = try replayer.replay(session: 1, delegate: "checkout.v2", mode: .interaction)
        _ = try replayer.replay(session: 3, delegate: "checkout.v1", mode: .interaction)
        if isolated { _ = try replayer.replay(session: 2, delegate: "checkout.v1", mode: .isolated) }
        return path
    }

    func exported(_ path: String) throws -> [String] {
        var lines: [String] = []
        try AuditStore(path: path, access: .read).export { lines.append($0) }
        return lines
    }

    @Test(arguments: [false, true])
    func theRowsCopiedAreWhatTheRecordsMake(isolated: Bool) throws {
        let source = try AuditStore(path: try source(isolated: isolated), access: .read)
        // A target that already holds one of the sessions, which both ways skip.
        let targets = try (0..<2).map { index -> AuditStore in
            let target = try AuditStore(path: folder.path("target-\(isolated)-\(index).sqlite"), access: .write)
            _ = try target.importSessions { feed in
                var lines: [String] = []
                try source.export(sessions: [1]) { lines.append($0) }
                for line in lines { try feed(line) }
            }
            return target
        }
        // Sessions that share events go the records' way; the others, SQL's.
        let merged = try #require(
            isolated ? try targets[0].mergeSessions(from: source) : try targets[0].mergeRows(from: source))
        if isolated {
            #expect(try targets[0].mergeRows(from: source) == nil)
            // Chosen sessions that keep their own events still go SQL's way (replay --all --output-db).
            let fresh = try AuditStore(path: folder.path("chosen.sqlite"), access: .write)
            try expectEqual(fresh.mergeRows(from: source, sessions: [1, 3])?.sessions, [1, 2])
            try expectEqual(exported(fresh.path).filter { $0.contains(#""type":"session""#) }.count, 2)
        }
        let recorded = try targets[1].mergeRecords(from: source)
        expectEqual(merged, recorded)
        expectEqual(merged.skipped.count, 1)
        expectEqual(merged.sessions.count, (isolated ? 5 : 4))
        try expectEqual(exported(targets[0].path), exported(targets[1].path))
        #expect(try exported(targets[0].path).count > 100)
        // Merging again changes nothing.
        #expect(try targets[0].mergeSessions(from: source).sessions.isEmpty)
        try expectEqual(targets[0].sessions().count, (isolated ? 6 : 5))
    }

    /// Into a new database, every session of a source numbered 1…n goes across whole (SQLite's
    /// transfer of records), and the result is what the records make of them; a source with a gap
    /// in its numbering is renumbered the rows' way, with the same result as the records'.
    @Test(arguments: [false, true])
    func intoANewDatabaseTheTablesGoAcrossWhole(withAGap: Bool) throws {
        let path = try source(isolated: false)
        if withAGap {
            try sqlite(
                path,
                "DELETE FROM events WHERE session = 2; DELETE FROM widgets WHERE session = 2;"
                    + "DELETE FROM session_labels WHERE session = 2; DELETE FROM sessions WHERE id = 2")
        }
        let source = try AuditStore(path: path, access: .read)
        let whole = try AuditStore(path: folder.path("whole-\(withAGap).sqlite"), access: .write)
        let merged = try #require(try whole.mergeRows(from: source))
        let records = try AuditStore(path: folder.path("records-\(withAGap).sqlite"), access: .write)
        let recorded = try records.mergeRecords(from: source)
        expectEqual(merged, recorded)
        expectEqual(merged.sessions, Array(1...Int64(withAGap ? 4 : 5)))
        try expectEqual(exported(whole.path), exported(records.path))
        try expectEqual(whole.sessions().map(\.status), records.sessions().map(\.status))
        // A replay of the copy is identical, as of the source.
        let replay = try Replayer(databasePath: whole.path, registry: ReplayTests.registry, catalog: .builtIn)
            .replay(session: 1, delegate: "checkout.v1", mode: .isolated)
        #expect(replay.identical)
        // Merging again changes nothing.
        #expect(try whole.mergeSessions(from: source).sessions.isEmpty)
    }
}
