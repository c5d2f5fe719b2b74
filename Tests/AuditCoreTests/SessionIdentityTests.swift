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

/// Every session has a UUID that travels with it, and the labels it was recorded with.
@Suite("Session identity: UUIDs and labels")
struct SessionIdentityTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    static func isVersion4(_ uuid: String?) -> Bool {
        guard let uuid, let parsed = UUID(uuidString: uuid), parsed.uuidString.lowercased() == uuid else {
            return false
        }
        let characters = Array(uuid)
        return characters[14] == "4" && "89ab".contains(characters[19])
    }

    /// The UUIDs the store makes are version 4, lowercase, and each new: every bit that is not
    /// the version's or the variant's varies.
    @Test func theStoreMakesRandomVersion4UUIDs() {
        let made = (0..<2_000).map { _ in AuditStore.newSessionUUID() }
        #expect(made.allSatisfy { Self.isVersion4($0) }, "\(made.filter { !Self.isVersion4($0) })")
        expectEqual(Set(made).count, made.count)
        // Each hex digit takes every value it may: all 16, but the version's (4) and the
        // variant's (8, 9, a, b). A value missing from 2,000 draws has odds below 1e-50.
        let digits = made.map(Array.init)
        for position in digits[0].indices where digits[0][position] != "-" {
            let taken = Set(digits.map { $0[position] })
            let expected = position == 14 ? 1 : position == 19 ? 4 : 16
            expectEqual(taken.count, expected, "digit \(position): \(taken.sorted())")
        }
    }

    @Test func everySessionGetsItsOwnUUIDAndKeepsItsLabels() throws {
        let labels = ["device": "pixel 8", "branch": "feature/a=b"]
        let first = try Recorder(
            databasePath: database,
            session: NewSession(scenario: "s", source: "{}", delegate: "d", labels: labels), catalog: .builtIn)
        try first.attach(to: View(identifier: "root"))  // a recorder attached to nothing stores no session
        first.finish()
        let second = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try second.attach(to: View(identifier: "root"))
        second.finish()
        let sessions = try AuditStore(path: database, access: .read).sessions()
        try #require(sessions.count == 2)
        #expect(sessions.allSatisfy { Self.isVersion4($0.uuid) }, "\(sessions.map(\.uuid))")
        expectEqual(Set(sessions.map(\.uuid)).count, 2)
        expectEqual(sessions[0].labels, labels)
        expectEqual(sessions[1].labels, [:])
        #expect(sessions[0].has(["device": "pixel 8"]) && !sessions[1].has(["device": "pixel 8"]))
    }

    @Test func sessionsFromBeforeTheMigrationGetAUUIDEach() throws {
        let before = Array(Migration.all.filter { $0.version < 7 })
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try Migrator.migrate(connection, migrations: before)
        for name in ["a", "b", "c"] {
            try connection.execute(
                "INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at) "
                    + "VALUES ('\(name)', 's', '{}', 'd', 'now')")
        }
        // Read as it is, the old database has neither UUIDs nor labels, and is not changed.
        try expectEqual(AuditStore(path: database, access: .read).sessions().map(\.uuid), [nil, nil, nil])
        _ = try AuditStore(path: database, access: .write)
        let sessions = try AuditStore(path: database, access: .read).sessions()
        #expect(sessions.allSatisfy { Self.isVersion4($0.uuid) }, "\(sessions.map(\.uuid))")
        expectEqual(Set(sessions.map(\.uuid)).count, 3)
    }

    @Test func anOldDatabaseIsExportedWithUUIDsDerivedTheSameEachTime() throws {
        let connection = try Connection(path: database, mode: .readWrite(create: true))
        try Migrator.migrate(connection, migrations: Migration.all.filter { $0.version < 7 })
        for name in ["a", "b"] {
            try connection.execute(
                "INSERT INTO sessions (name, scenario, scenario_source, delegate, started_at) "
                    + "VALUES ('\(name)', 's', '{\"name\": \"\(name)\"}', 'd', 'now')")
        }
        func exported() throws -> [String] {
            var lines: [String] = []
            try AuditStore(path: database, access: .read).export { lines.append($0) }
            return lines.compactMap { line in
                guard case .string(let uuid)? = try? AuditValue(json: line)["uuid"] else { return nil }
                return uuid
            }
        }
        let first = try exported()
        #expect(first.count == 2 && Set(first).count == 2)
        #expect(first.allSatisfy { UUID(uuidString: $0) != nil })
        try expectEqual(exported(), first)
    }

    @Test func searchAndReportKeepOnlySessionsWithEveryLabel() throws {
        for device in ["pixel", "iphone"] {
            _ = try ScenarioRunner.record(
                try Scenario(data: Data(Self.scenario.utf8), catalog: .builtIn), delegate: nil, registry: .examples,
                databasePath: database, labels: ["device": device, "build": "42"])
        }
        let store = try AuditStore(path: database, access: .read)
        var search = EventSearch()
        search.labels = ["device": "iphone", "build": "42"]
        expectEqual(Set(try search.matches(in: store).map(\.session)), [2])
        search.labels = ["device": "iphone", "build": "41"]
        #expect(try search.matches(in: store).isEmpty)
        try expectEqual(SessionReport(session: nil, labels: ["device": "pixel"], in: store).sessions, [1])
        try expectEqual(SessionReport(session: nil, labels: ["build": "42"], in: store).sessions, [1, 2])
    }

    static let scenario = """
        {"name": "labels", "delegate": "checkout.v1",
         "root": {"kind": "View", "id": "checkout", "children": [
           {"kind": "SegmentedControl", "id": "shipping", "segments": ["a", "b", "c"], "selected": 0}]},
         "steps": [{"action": "tapSegment", "widget": "checkout/shipping", "segment": 1}]}
        """
}
