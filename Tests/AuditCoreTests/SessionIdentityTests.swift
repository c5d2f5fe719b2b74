import Foundation
import Testing

@testable import AuditCore
@testable import AuditExamples

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

    @Test func everySessionGetsItsOwnUUIDAndKeepsItsLabels() throws {
        let labels = ["device": "pixel 8", "branch": "feature/a=b"]
        let first = try Recorder(
            databasePath: database,
            session: NewSession(scenario: "s", scenarioSource: "{}", delegate: "d", labels: labels), catalog: .builtIn)
        first.finish()
        let second = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        second.finish()
        let sessions = try AuditStore(path: database, access: .read).sessions()
        #expect(sessions.allSatisfy { Self.isVersion4($0.uuid) }, "\(sessions.map(\.uuid))")
        #expect(Set(sessions.map(\.uuid)).count == 2)
        #expect(sessions[0].labels == labels)
        #expect(sessions[1].labels == [:])
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
        #expect(try AuditStore(path: database, access: .read).sessions().map(\.uuid) == [nil, nil, nil])
        _ = try AuditStore(path: database, access: .write)
        let sessions = try AuditStore(path: database, access: .read).sessions()
        #expect(sessions.allSatisfy { Self.isVersion4($0.uuid) }, "\(sessions.map(\.uuid))")
        #expect(Set(sessions.map(\.uuid)).count == 3)
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
        #expect(Set(try store.search(search).map(\.session)) == [2])
        search.labels = ["device": "iphone", "build": "41"]
        #expect(try store.search(search).isEmpty)
        #expect(try store.report(session: nil, labels: ["device": "pixel"]).sessions == [1])
        #expect(try store.report(session: nil, labels: ["build": "42"]).sessions == [1, 2])
    }

    static let scenario = """
        {"name": "labels", "delegate": "checkout.v1",
         "root": {"kind": "View", "id": "checkout", "children": [
           {"kind": "SegmentedControl", "id": "shipping", "segments": ["a", "b", "c"], "selected": 0}]},
         "steps": [{"action": "tapSegment", "widget": "checkout/shipping", "segment": 1}]}
        """
}
