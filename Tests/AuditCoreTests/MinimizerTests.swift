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

/// Implements nothing: every callback answered by its default.
final class DefaultsOnly: SegmentedControlDelegate, TextViewDelegate, TableViewDelegate, GestureRecognizerDelegate {}

/// Like `DefaultsOnly`, but quick pay (the double tap) may not begin.
final class NoQuickPay: GestureRecognizerDelegate {
    func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
        gestureRecognizer.identifier != "quickPay"
    }
}

/// Refuses any text that holds a "Z": the change a shrunk value must still show.
final class NoZ: TextViewDelegate {
    func textView(_ textView: TextView, shouldChangeTextIn range: TextRange, replacementText text: String) -> Bool {
        !text.contains("Z")
    }
}

/// Vetoes the segments from the fourth on: the change a value shrunk toward a boundary must show.
final class NoHighSegments: SegmentedControlDelegate {
    func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
        index < 3
    }
}

@Suite("Minimizing a divergence (ddmin)")
struct MinimizerTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    static var registry: DelegateRegistry {
        var registry = DelegateRegistry.examples
        registry.register("defaults", summary: "implements nothing") { DefaultsOnly() }
        registry.register("no-quick-pay", summary: "quick pay may not begin") { NoQuickPay() }
        registry.register("no-z", summary: "refuses a Z") { NoZ() }
        registry.register("no-high-segments", summary: "vetoes segments 3 and on") { NoHighSegments() }
        return registry
    }

    func recordExample(_ delegate: String) throws -> Int64 {
        try ScenarioRunner.record(
            try Examples.checkout(), delegate: delegate, registry: Self.registry, databasePath: database
        ).session
    }

    /// Once the inputs are minimal, their values shrink while the divergence holds: the typed
    /// text to the one character the candidate refuses, and the scenario still reads back.
    @Test func valuesShrinkOnceTheInputsAreMinimal() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"format": 1, "name": "coupon", "root": {"kind": "TextView", "id": "coupon", "frame": [0, 0, 300, 40]},
                 "steps": [{"action": "beginEditing", "widget": "coupon"},
                           {"action": "typeText", "widget": "coupon", "text": "SAVE10 Z7"},
                           {"action": "endEditing", "widget": "coupon"}]}
                """#.utf8), catalog: .builtIn)
        let session = try ScenarioRunner.record(
            scenario, delegate: "defaults", registry: Self.registry, databasePath: database
        ).session
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "no-z")
        let typed = try #require(result.steps.first { $0.action == "typeText" })
        expectEqual(typed.arguments, [.string("Z")])
        #expect(result.shrunkValues > 0)
        try expectEqual(Scenario(data: Data(result.scenario.utf8), catalog: .builtIn).steps, result.steps)
        expectEqual(Minimizer.simpler(.int(-7)), [.int(0), .int(-4), .int(-6)])
        expectEqual(Minimizer.simpler(.int(100)), [0, 50, 75, 88, 94, 97, 99].map { AuditValue.int($0) })
        expectEqual(Minimizer.simpler(.string("ab")), [.string(""), .string("a"), .string("b")])
        #expect(Minimizer.simpler(.double(0)) == [] && Minimizer.simpler(.bool(true)) == [])
    }

    /// A value shrinks toward its widget's nearest boundary when zero does not show the change,
    /// and stays there: segment 3 of five, which the candidate vetoes, ends as the last segment.
    @Test func aValueShrinksToTheNearestBoundary() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"format": 1, "name": "segments",
                 "root": {"kind": "SegmentedControl", "id": "s", "segments": ["a", "b", "c", "d", "e"]},
                 "steps": [{"action": "tapSegment", "widget": "s", "segment": 3}]}
                """#.utf8), catalog: .builtIn)
        let session = try ScenarioRunner.record(
            scenario, delegate: "defaults", registry: Self.registry, databasePath: database
        ).session
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "no-high-segments")
        expectEqual(result.steps, [.tapSegment(widget: "s", segment: 4)])
        expectEqual(result.shrunkValues, 1)
        #expect(Minimizer.magnitude(.int(-4)) == 4 && Minimizer.magnitude(.string("ab")) == 2)
        // Zero, then boundaries (smaller first), then the rest: each step is simpler, so it ends.
        let boundaries: [AuditValue] = [.int(4), .int(-1)]
        expectEqual(Minimizer.simpler(.int(2), boundaries: boundaries), [.int(0), .int(4), .int(1)])
        expectEqual(Minimizer.simpler(.int(4), boundaries: boundaries), [.int(0), .int(-1)])
        expectEqual(Minimizer.simpler(.int(-1), boundaries: boundaries), [.int(0)])
        expectEqual(Minimizer.simpler(.int(0), boundaries: boundaries), [])
        // A boundary at zero is zero, tried first; one at the extremes of Int is no overflow.
        expectEqual(Minimizer.simpler(.int(2), boundaries: [.int(0), .int(4)]), [.int(0), .int(1)])
        expectEqual(
            Minimizer.simpler(.double(0.3), boundaries: [.double(0), .double(1)]).prefix(2),
            [
                .double(0), .double(0.15),
            ])
        #expect(Minimizer.distance(.int(.min), .int(.max)) > 0)
    }

    @Test func theV2RegressionShrinksToTheOneTapThatShowsIt() throws {
        let session = try recordExample("checkout.v1")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "checkout.v2")
        expectEqual(result.steps, [.tapSegment(widget: "checkout/shipping", segment: 2)])
        expectEqual(result.originalCount, 37)
        #expect(result.tests <= 20)
        expectEqual(
            result.divergence,
            "veto_changed at checkout/shipping SegmentedControlDelegate.segmentedControl(_:shouldSelectSegmentAt:)")

        // The scenario it writes is accepted by record, and replaying it shows the same divergence.
        let minimal = try Scenario(data: Data(result.scenario.utf8), catalog: .builtIn)
        let again = try ScenarioRunner.record(
            minimal, delegate: "checkout.v1", registry: Self.registry, databasePath: database)
        let report = try Replayer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .replay(session: again.session, delegate: "checkout.v2", mode: .interaction)
        expectEqual(report.firstDivergence?.difference.kind, .vetoChanged)
        expectEqual(report.firstDivergence?.difference.event.widget, "checkout/shipping")
    }

    @Test func subsequencesThatCannotRunAreUnresolvedNotPassing() throws {
        let session = try recordExample("defaults")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "no-quick-pay")
        // The candidate implements shouldBegin where the recording used the default: the first
        // touch sequence on pay shows it, and needs its finger to begin and to end. Halves that
        // split a touch sequence cannot run: unresolved, not passing.
        expectEqual(result.steps.map(\.action), ["touch", "touch"])
        #expect(result.unresolved > 0)
        expectEqual(
            result.divergence,
            "implemented_changed at checkout/pay#confirm GestureRecognizerDelegate.gestureRecognizerShouldBegin(_:)")
        #expect(!result.stoppedAtBound)
    }

    @Test func theNumberOfTestsIsBounded() throws {
        let session = try recordExample("defaults")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "no-quick-pay", maximumTests: 3)
        expectEqual(result.tests, 3)
        #expect(result.stoppedAtBound)
    }

    @Test func aDelegateThatDoesNotDivergeHasNothingToMinimize() throws {
        let session = try recordExample("checkout.v1")
        #expect {
            try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn).minimize(
                session: session, delegate: "checkout.v1")
        } throws: { error in
            "\(error)" == "checkout.v1 behaves like the recording on session \(session): there is nothing to minimize"
        }
    }
}
