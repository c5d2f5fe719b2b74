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

@Suite("Investigation: time bounds, percentiles")
struct InvestigateCoreTests {
    static let now = TimeBound.parse("2026-11-30T05:30", as: .since)!

    @Test(arguments: [
        ("today", TimeBound.Side.since, "2026-11-30T00:00:00.000Z"),
        ("today", .until, "2026-12-01T00:00:00.000Z"),
        ("recent", .since, "2026-11-29T05:30:00.000Z"),
        ("2026-11-02", .since, "2026-11-02T00:00:00.000Z"),
        ("2026-11-02", .until, "2026-11-03T00:00:00.000Z"),
        ("2026-11-02T10:20", .since, "2026-11-02T10:20:00.000Z"),
        ("2026-11-02 10:20:30", .since, "2026-11-02T10:20:30.000Z"),
        ("2026-11-02T10:20:30.250Z", .since, "2026-11-02T10:20:30.250Z"),
        ("2026-11-02T10:20:30+02:00", .until, "2026-11-02T08:20:30.000Z"),
    ])
    func timeBoundsParse(text: String, side: TimeBound.Side, expected: String) throws {
        let date = try #require(TimeBound.parse(text, as: side, now: Self.now))
        expectEqual(AuditStore.storedTimestamp(date), expected)
    }

    @Test(arguments: ["yesterday", "2026-13-01", "2026-11-02T25:00", "", "11/02/2026"])
    func badTimeBoundsAreNil(text: String) {
        #expect(TimeBound.parse(text, as: .since, now: Self.now) == nil)
    }

    @Test func percentilesAreNearestRank() {
        let values = (1...100).map(Double.init)
        expectEqual(SessionReport.percentile(50, of: values), 50)
        expectEqual(SessionReport.percentile(99, of: values), 99)
        expectEqual(SessionReport.percentile(99, of: [3]), 3)
        expectEqual(SessionReport.percentile(50, of: [1, 2, 3]), 2)
        expectEqual(SessionReport.percentile(50, of: []), 0)
    }

    @Test func searchConditionsBindEveryValue() {
        let search = EventSearch(session: 3, widget: "a'b", callback: "*x*", vetoed: true, kind: .callback)
        let (sql, values) = search.conditions
        #expect(!sql.joined().contains("a'b"))
        #expect(!sql.joined().contains("*x*"))
        expectEqual(sql.joined().filter { $0 == "?" }.count, values.count)
    }

    /// The checkout example's `willSelectRowAt` answers nil for the gift card: an override, which
    /// `search --vetoed yes` does not count as a veto (and `--vetoed no` does not list either).
    @Test func searchForVetoesLeavesOverridesOut() throws {
        let folder = TemporaryDirectory()
        let database = folder.path("audit.sqlite")
        let session = try ScenarioRunner.record(
            try Examples.checkout(), delegate: "checkout.v1", registry: .examples, databasePath: database
        ).session
        let store = try AuditStore(path: database, access: .read)
        let vetoes = try EventSearch(session: session, vetoed: true).matches(in: store).map(\.event)
        #expect(!vetoes.isEmpty)
        #expect(vetoes.allSatisfy { $0.overridden == nil })
        expectEqual(vetoes.count, (try store.session(session)).vetoes)
        let overridden = try store.timeline(of: session).filter { $0.overridden == true }
        #expect(!overridden.isEmpty)
        let kept = try EventSearch(session: session, vetoed: false).matches(in: store).map(\.event)
        #expect(kept.allSatisfy { $0.overridden == nil })
    }
}
