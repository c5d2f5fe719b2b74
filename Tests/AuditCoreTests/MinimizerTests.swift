import Foundation
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

@Suite("Minimizing a divergence (ddmin)")
struct MinimizerTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    static var registry: DelegateRegistry {
        var registry = DelegateRegistry.examples
        registry.register("defaults", summary: "implements nothing") { DefaultsOnly() }
        registry.register("no-quick-pay", summary: "quick pay may not begin") { NoQuickPay() }
        return registry
    }

    func recordExample(_ delegate: String) throws -> Int64 {
        try ScenarioRunner.record(
            try Examples.checkout(), delegate: delegate, registry: Self.registry, databasePath: database
        ).session
    }

    @Test func theV2RegressionShrinksToTheOneTapThatShowsIt() throws {
        let session = try recordExample("checkout.v1")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "checkout.v2")
        #expect(result.steps == [.tapSegment(widget: "checkout/shipping", segment: 2)])
        #expect(result.originalCount == 37)
        #expect(result.tests <= 20)
        #expect(
            result.divergence
                == "veto_changed at checkout/shipping SegmentedControlDelegate.segmentedControl(_:shouldSelectSegmentAt:)"
        )

        // The scenario it writes is accepted by record, and replaying it shows the same divergence.
        let minimal = try Scenario(data: Data(result.scenario.utf8), catalog: .builtIn)
        let again = try ScenarioRunner.record(
            minimal, delegate: "checkout.v1", registry: Self.registry, databasePath: database)
        let report = try Replayer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .replay(session: again.session, delegate: "checkout.v2", mode: .interaction)
        #expect(report.firstDivergence?.difference.kind == .vetoChanged)
        #expect(report.firstDivergence?.difference.event.widget == "checkout/shipping")
    }

    @Test func subsequencesThatCannotRunAreUnresolvedNotPassing() throws {
        let session = try recordExample("defaults")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "no-quick-pay")
        // The candidate implements shouldBegin where the recording used the default: the first
        // touch sequence on pay shows it, and needs its finger to begin and to end. Halves that
        // split a touch sequence cannot run: unresolved, not passing.
        #expect(result.steps.map(\.action) == ["touch", "touch"])
        #expect(result.unresolved > 0)
        #expect(
            result.divergence
                == "implemented_changed at checkout/pay#confirm GestureRecognizerDelegate.gestureRecognizerShouldBegin(_:)"
        )
        #expect(!result.stoppedAtBound)
    }

    @Test func theNumberOfTestsIsBounded() throws {
        let session = try recordExample("defaults")
        let result = try Minimizer(databasePath: database, registry: Self.registry, catalog: .builtIn)
            .minimize(session: session, delegate: "no-quick-pay", maximumTests: 3)
        #expect(result.tests == 3)
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
