import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A coin each new delegate flips once: the stand-in for a delegate that reads the clock or a
/// random number. Counting instead of drawing keeps the test exact: odd instances come up heads.
final class Coin: Sendable {
    private let flips = Atomic<Int>(0)

    func flip() -> Bool { flips.add(1, ordering: .relaxed).oldValue % 2 == 1 }
}

/// Vetoes the shipping control when its coin came up heads (noise); with `strictPayment`, also
/// always vetoes the invoice segment of the payment control (a real regression).
final class FlakyDelegate: SegmentedControlDelegate {
    private let heads: Bool
    private let strictPayment: Bool

    init(coin: Coin, strictPayment: Bool) {
        heads = coin.flip()
        self.strictPayment = strictPayment
    }

    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        switch segmentedControl.identifier {
        case "shipping": !heads
        case "payment": !(strictPayment && index == 2)
        default: true
        }
    }
}

@Suite("Replay noise")
struct NoiseTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }
    let registry: DelegateRegistry

    init() {
        let coin = Coin()
        var registry = DelegateRegistry()
        registry.register("flaky", summary: "vetoes shipping when its coin says so") {
            FlakyDelegate(coin: coin, strictPayment: false)
        }
        registry.register("flaky.strict", summary: "flaky, and vetoes the invoice segment") {
            FlakyDelegate(coin: coin, strictPayment: true)
        }
        self.registry = registry
    }

    static let scenario = """
        {"format": 1, "name": "flaky", "delegate": "flaky",
         "root": {"kind": "View", "id": "checkout", "frame": [0, 0, 390, 844], "children": [
           {"kind": "SegmentedControl", "id": "shipping", "frame": [16, 120, 358, 32],
            "segments": ["Standard", "Express", "Pickup"], "selected": 0},
           {"kind": "SegmentedControl", "id": "payment", "frame": [16, 180, 358, 32],
            "segments": ["Card", "PayPal", "Invoice"], "selected": 0}]},
         "steps": [
           {"action": "tapSegment", "widget": "checkout/shipping", "segment": 1},
           {"action": "tapSegment", "widget": "checkout/payment", "segment": 2}]}
        """

    /// Records with instance 0 (tails: shipping allowed).
    func record() throws -> Int64 {
        let scenario = try Scenario(data: Data(Self.scenario.utf8), catalog: .builtIn)
        return try ScenarioRunner.record(scenario, delegate: "flaky", registry: registry, databasePath: database)
            .session
    }

    @Test func differencesTheRecordingDelegateAlsoShowsAreNoise() throws {
        let id = try record()
        // The candidate is instance 1 (heads), the baselines 2 (tails) and 3 (heads).
        let result = try Replayer(databasePath: database, registry: registry, catalog: .builtIn)
            .replay(session: id, delegate: "flaky", mode: .interaction, noiseRuns: 2)
        let noise = try #require(result.noise)
        #expect(!noise.differences.isEmpty)
        try expectEqual(everyDifference(of: result).count, noise.differences.count)
        #expect(result.identical)
        #expect(result.firstDivergence == nil)
        #expect(noise.differences.allSatisfy { $0.event.widget == "checkout/shipping" })
        #expect(noise.sessions.count == 2 && noise.runs == 2)
    }

    /// Every difference between the recording and the candidate the replay stored, noise or not.
    func everyDifference(of report: ReplayReport) throws -> [EventDifference] {
        try SessionDiffer(AuditStore(path: database, access: .read)).diff(report.recorded.id, report.candidate.id)
            .differences
    }

    @Test func aRealRegressionIsKeptApartFromTheNoise() throws {
        let id = try record()
        let result = try Replayer(databasePath: database, registry: registry, catalog: .builtIn)
            .replay(session: id, delegate: "flaky.strict", mode: .interaction, noiseRuns: 2)
        let noise = try #require(result.noise)
        #expect(!noise.differences.isEmpty)
        #expect(noise.differences.allSatisfy { $0.event.widget == "checkout/shipping" })
        #expect(!result.identical)
        #expect(result.diff.differences.allSatisfy { $0.event.widget == "checkout/payment" })
        let every = try everyDifference(of: result)
        expectEqual(result.diff.differences.count + noise.differences.count, every.count)
        let first = try #require(result.firstDivergence)
        expectEqual(first.difference.kind, .vetoChanged)
        expectEqual(first.input?.widget, "checkout/payment")
    }

    @Test func withoutBaselineRunsEverythingIsARegression() throws {
        let id = try record()
        let result = try Replayer(databasePath: database, registry: registry, catalog: .builtIn)
            .replay(session: id, delegate: "flaky", mode: .interaction, noiseRuns: 0)
        expectEqual(result.noise?.differences.isEmpty, true)
        #expect(!result.identical)
        expectEqual(result.diff.differences, (try everyDifference(of: result)))
    }
}
