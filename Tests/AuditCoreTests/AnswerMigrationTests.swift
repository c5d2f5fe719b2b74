import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A database of the release before migration 0008, `Tests/Fixtures/schema-0007.db`, recorded by
/// that release's own `auditctl` (commit a688d26): `demo --db FILE` (session 1, the checkout example
/// with checkout.v1, and session 2, its replay against checkout.v2), then `replay --session 1
/// --delegate checkout.v2 --isolated` (session 3, which shares session 1's events) and `record
/// --scenario Examples/checkout.json --delegate checkout.v2 --label branch=main` (session 4). Its
/// `vetoed` holds an override's outcome as well as a veto's; only `callbacks.answer` tells them apart.
@Suite("A database of the previous release migrates to one answer model")
struct AnswerMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/schema-0007.db")
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    init() throws {
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: database)
    }

    func rows(_ sql: String) throws -> [[SQLValue]] { try ReadOnlyQuery.run(sql, databasePath: database).rows }

    /// Every `timeline` row but its answer columns, with the kind its callback's name has.
    static let eventsBefore = """
        SELECT t.session, t.seq, t.t_ms, t.kind, t.widget, t.widget_kind, t.protocol, t.callback, t.args, t.result,
               t.implemented, t.duration_us, t.parent_seq,
               (SELECT c.answer FROM callbacks AS c
                WHERE c.kind = 'callback' AND c.protocol = t.protocol AND c.name = t.callback) AS answer,
               t.vetoed
        FROM timeline AS t ORDER BY t.session, t.seq
        """

    static let eventsAfter = """
        SELECT session, seq, t_ms, kind, widget, widget_kind, protocol, callback, args, result, implemented,
               duration_us, parent_seq, answer_kind, vetoed, overridden
        FROM timeline ORDER BY session, seq
        """

    /// What else the file holds, which the migration leaves as it was.
    static let unchanged = [
        "SELECT * FROM sessions ORDER BY id", "SELECT * FROM widgets ORDER BY session, id",
        "SELECT * FROM session_labels ORDER BY session, key",
        "SELECT id, kind, protocol, name, labels, answer FROM callbacks ORDER BY id",
        "SELECT version, name, sha256, applied_at FROM schema_migrations WHERE version < 8 ORDER BY version",
    ]

    @Test func theFixtureIsTheSchemaOfThePreviousRelease() throws {
        try expectEqual(rows("SELECT max(version) FROM schema_migrations"), [[.integer(7)]])
        let overriddenColumn = "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'overridden'"
        try expectEqual(rows(overriddenColumn), [[.integer(0)]])
        // Overrides that overrode are there, in `vetoed`.
        let overrides = try rows(
            """
            SELECT count(*) FROM events AS e JOIN callbacks AS c ON c.id = e.callback
            WHERE c.answer = 'override' AND e.vetoed
            """)
        expectEqual(overrides, [[.integer(4)]])
        try expectEqual(rows("SELECT id FROM sessions WHERE events_from IS NOT NULL"), [[.integer(3)]])
    }

    @Test func overridesMoveToOverriddenAndEverythingElseStays() throws {
        let before = try rows(Self.eventsBefore)
        let others = try Self.unchanged.map(rows)
        _ = try AuditStore(path: database, access: .write)
        let after = try rows(Self.eventsAfter)
        try expectEqual(rows("SELECT max(version) FROM schema_migrations"), [[.integer(9)]])
        try expectEqual(Self.unchanged.map(rows), others)
        try #require(after.count == before.count)
        expectEqual(before.count, 640)
        var kinds: [String: Int] = [:]
        for (old, new) in zip(before, after) {
            expectEqual(Array(old.prefix(13)), Array(new.prefix(13)))
            let (answer, vetoed) = (old[13], old[14])
            let (kind, nowVetoed, overridden) = (new[13], new[14], new[15])
            switch answer {
            case .text("override"):
                #expect(kind == .text("override") && nowVetoed == .null && overridden == vetoed, "\(new)")
            case .text("veto"):
                #expect(kind == .text("veto") && nowVetoed == vetoed && overridden == .null, "\(new)")
            default:
                #expect(vetoed == .null && nowVetoed == .null && overridden == .null, "\(new)")
                let answered = new[3] == .text("callback") && new[9] != .null
                expectEqual(kind, (answered ? .text("value") : .null), "\(new)")
            }
            if case .text(let name) = kind { kinds[name, default: 0] += 1 }
        }
        expectEqual(kinds, ["veto": 152, "override": 198])
        // `vetoed` means vetoed: the sessions' veto counts, recorded by the previous release, agree.
        let vetoes = try rows(
            """
            SELECT s.id, s.veto_count, (SELECT count(*) FROM timeline AS t WHERE t.session = s.id AND t.vetoed)
            FROM sessions AS s ORDER BY s.id
            """)
        #expect(vetoes.allSatisfy { $0[1] == $0[2] }, "\(vetoes)")
        try expectEqual(rows("SELECT count(*) FROM timeline WHERE overridden"), [[.integer(4)]])
    }

    @Test func theMigratedDatabaseReadsAsTheUnmigratedOneIsRead() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        let read = try (1...4).map { try AuditStore(path: database, access: .read).timeline(of: $0) }
        try expectEqual(Data(contentsOf: URL(fileURLWithPath: database)), bytes)
        _ = try AuditStore(path: database, access: .write)
        let migrated = try (1...4).map { try AuditStore(path: database, access: .read).timeline(of: $0) }
        expectEqual(read, migrated)
        let willSelect = migrated[0].filter { $0.callback == "tableView(_:willSelectRowAt:)" }
        expectEqual(willSelect.map(\.overridden), [false, true, false])
        expectEqual(willSelect.map(\.vetoed), [nil, nil, nil])
    }

    @Test func aChangedOverrideIsAnOverrideChangeBeforeAndAfterMigrating() throws {
        func differences() throws -> [String] {
            try SessionDiffer(AuditStore(path: database, access: .read)).diff(1, 2).differences
                .filter { [.vetoChanged, .overrideChanged].contains($0.kind) }
                .map { "\($0.kind.rawValue) \($0.event.callback)" }
        }
        let unmigrated = try differences()
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(differences(), unmigrated)
        #expect(unmigrated.contains("override_changed tableView(_:willSelectRowAt:)"))
        #expect(unmigrated.contains("veto_changed segmentedControl(_:shouldSelectSegmentAt:)"))
        #expect(!unmigrated.contains { $0.hasPrefix("veto_changed tableView(_:willSelectRowAt:)") })
    }

    @Test func searchFindsVetoesAndOverridesApartBeforeAndAfterMigrating() throws {
        func found(_ search: EventSearch) throws -> Set<String> {
            Set(
                try search.matches(in: AuditStore(path: database, access: .read)).map {
                    "\($0.session)#\($0.event.seq)"
                })
        }
        func overrides(_ overridden: Bool, vetoed: Bool? = nil) -> EventSearch {
            var search = EventSearch(vetoed: vetoed)
            search.overridden = overridden
            return search
        }
        let searches = [EventSearch(vetoed: true), EventSearch(vetoed: false), overrides(true), overrides(false)]
        let unmigrated = try searches.map(found)
        _ = try AuditStore(path: database, access: .write)
        let migrated = try searches.map(found)
        expectEqual(migrated, unmigrated)
        expectEqual(migrated.map(\.count), [11, 141, 4, 194])
        #expect(try found(overrides(true, vetoed: true)).isEmpty)
    }

    /// Exports keep their form (an override's `vetoed` says whether it overrode, its `answer` that
    /// it is an override): the file is the same before and after migrating, and imports as the
    /// migrated database reads. Also for names whose kind is unknown (as before migration 0005).
    @Test(arguments: [false, true])
    func anExportIsTheSameBeforeAndAfterMigratingAndImportsAsMigrated(kindsUnknown: Bool) throws {
        if kindsUnknown { try sqlite(database, "UPDATE callbacks SET answer = NULL WHERE kind = 'callback'") }
        func export() throws -> [String] {
            var lines: [String] = []
            try AuditStore(path: database, access: .read).export { lines.append($0) }
            return lines
        }
        let before = try export()
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(export(), before)
        let copy = folder.path("imported.sqlite")
        try expectEqual(AuditStore(path: copy, access: .write).importSessions(before).sessions, [1, 2, 3, 4])
        for id: Int64 in 1...4 {
            try expectEqual(
                AuditStore(path: copy, access: .read).timeline(of: id),
                AuditStore(path: database, access: .read).timeline(of: id))
        }
    }

    /// A database from before migration 0005, made of the fixture: no answer kind for its callbacks,
    /// and veto counts that counted overrides (0005 applied after its sessions). 0008 finds each
    /// kind from the events, the one a recorder gives, and counts those sessions' vetoes again.
    @Test func kindsAndVetoCountsFromBeforeMigration0005AreMadeRight() throws {
        let kinds = "SELECT id, answer FROM callbacks ORDER BY id"
        let counts = "SELECT id, veto_count FROM sessions ORDER BY id"
        let (recordedKinds, recordedCounts) = (try rows(kinds), try rows(counts))
        try sqlite(
            database,
            """
            UPDATE callbacks SET answer = NULL WHERE kind = 'callback';
            UPDATE sessions SET veto_count = (SELECT count(*) FROM timeline AS t WHERE t.session = sessions.id AND t.vetoed);
            UPDATE schema_migrations SET applied_at = '2999-01-01T00:00:00.000Z' WHERE version = 5;
            """)
        #expect(try rows(counts) != recordedCounts)
        _ = try AuditStore(path: database, access: .write)
        try expectEqual(rows(kinds), recordedKinds)
        try expectEqual(rows(counts), recordedCounts)
        try expectEqual(rows("SELECT count(*) FROM timeline WHERE overridden"), [[.integer(4)]])
        try expectEqual(rows("SELECT count(*) FROM timeline WHERE vetoed"), [[.integer(11)]])
    }
}
