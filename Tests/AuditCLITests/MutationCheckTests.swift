import AuditCore
import AuditExamples
import AuditKit
import Foundation
import SharedTestSupport
import Testing

/// The mutation check of `explore`: every non-equivalent mutant of `checkout.v1` is found from the
/// shipped scenario's tree alone, with a fixed seed and a fixed number of runs, and the reproducer
/// written for it diverges when recorded with `checkout.v1` and with the mutant and diffed.
/// Equivalent mutants are never reported. No test here depends on time.
@Suite("explore finds every non-equivalent mutant of checkout.v1", .tags(.slow))
struct MutationCheckTests {
    static let budget: Explorer.Options = {
        var options = Explorer.Options()
        options.seed = 16
        options.stepsPerRun = 20
        options.runs = 300
        return options
    }()

    @Test(arguments: CheckoutMutant.Mutation.allCases.filter { !$0.isEquivalent })
    func findsMutant(_ mutation: CheckoutMutant.Mutation) throws {
        let result = try Explorer(
            scenario: try Examples.checkout(), registry: CheckoutMutant.registry, options: Self.budget
        ).explore(delegate: "checkout.v1", candidate: mutation.delegateName)
        let found = try #require(result.finding, "\(mutation) not found in \(result.runs) runs")
        #expect(
            found.minimized.steps.count <= 8,
            "\(mutation): \(found.minimized.steps.count) inputs\n\(found.minimized.scenario)")
        // The reproducer, recorded with each delegate into a fresh database, diverges.
        let directory = try Sandbox()
        let database = directory.path("reproducer.sqlite")
        let sessions = try found.record(
            delegate: "checkout.v1", candidate: mutation.delegateName, registry: CheckoutMutant.registry,
            catalog: .builtIn, databasePath: database)
        let diff = try SessionDiffer(AuditStore(path: database, access: .read)).diff(
            sessions.delegate.session, sessions.candidate.session)
        #expect(!diff.identical, "\(mutation): the reproducer does not diverge\n\(found.minimized.scenario)")
    }

    @Test(arguments: CheckoutMutant.Mutation.allCases.filter(\.isEquivalent))
    func equivalentMutantIsNotReported(_ mutation: CheckoutMutant.Mutation) throws {
        var options = Self.budget
        options.runs = 40
        let result = try Explorer(
            scenario: try Examples.checkout(), registry: CheckoutMutant.registry, options: options
        )
        .explore(delegate: "checkout.v1", candidate: mutation.delegateName)
        #expect(result.finding == nil)
        expectEqual(result.runs, 40)
    }

    /// What replaying only the shipped session catches, for comparison: the mutants whose
    /// behaviour differs on the shipped checkout's own steps.
    @Test func shippedSessionMissesFour() throws {
        let directory = try Sandbox()
        let database = directory.path("shipped.sqlite")
        let scenario = try Examples.checkout()
        let recording = try ScenarioRunner.record(
            scenario, delegate: "checkout.v1", registry: CheckoutMutant.registry, databasePath: database)
        var caught: [CheckoutMutant.Mutation] = []
        for mutation in CheckoutMutant.Mutation.allCases where !mutation.isEquivalent {
            let candidate = try ScenarioRunner.record(
                scenario, delegate: { CheckoutMutant(mutation) }, named: mutation.delegateName,
                databasePath: database, invalid: .skip)
            if !(try SessionDiffer(AuditStore(path: database, access: .read)).diff(recording.session, candidate.session)
                .identical)
            {
                caught.append(mutation)
            }
        }
        // 14 of the 18: the shipped steps never pick pickup with PayPal, tap the first row, type a
        // line break in the note, or end a drag where snapping to 50 and to 100 differ.
        let missed = CheckoutMutant.Mutation.allCases.filter { !$0.isEquivalent && !caught.contains($0) }
        expectEqual(missed, [.pickupTreatedAsExpress, .firstRowVetoed, .noteRefusesNewlines, .snapToFifty])
    }

    /// A pan's moves, drawn at random, shrink toward the thresholds of the tree's recognizers (or
    /// to none) once the inputs are minimal, while the divergence holds.
    @Test func aPansMovesShrinkToThresholds() throws {
        let directory = try Sandbox()
        let database = directory.path("pan.sqlite")
        let shipped = try Examples.checkout()
        let pan = try Scenario(
            data: Data(
                try shipped.text(name: "pan", delegate: "checkout.v1", steps: []).replacingOccurrences(
                    of: #""steps":[]"#,
                    with: #"""
                        "steps":[{"action":"touches","widget":"checkout","events":[
                          {"id":1,"phase":"began","x":20,"y":700,"t":0},
                          {"id":1,"phase":"moved","x":33,"y":702,"t":0.05},
                          {"id":1,"phase":"moved","x":51,"y":703,"t":0.1},
                          {"id":1,"phase":"moved","x":74,"y":701,"t":0.15},
                          {"id":1,"phase":"ended","x":74,"y":701,"t":0.2}]}]
                        """#
                ).utf8), catalog: .builtIn)
        expectEqual(pan.steps.count, 1)
        let session = try ScenarioRunner.record(
            pan, delegate: "checkout.v1", registry: CheckoutMutant.registry, databasePath: database
        ).session
        let result = try Minimizer(databasePath: database, registry: CheckoutMutant.registry, catalog: .builtIn)
            .minimize(session: session, delegate: CheckoutMutant.Mutation.backPanDisabled.delegateName)
        let touches = result.steps.compactMap { step in
            step.arguments.first.flatMap { ValueCoding<Touch>.touch.decode($0) }
        }
        let thresholds = GestureThresholds(tree: pan.root.build())
        let allowed = Set([0] + thresholds.distances.flatMap { [-$0, $0] })
        for (before, after) in zip(touches, touches.dropFirst()) {
            #expect(allowed.contains(after.location.x - before.location.x), "\(touches)")
            #expect(allowed.contains(after.location.y - before.location.y), "\(touches)")
        }
        // Moves of 13, 18 and 23 points, and 2, 1 and -2 across, become the pan's 10 and none.
        #expect(touches.map(\.location.x) == [20, 30, 40, 50, 50] && touches.allSatisfy { $0.location.y == 700 })
        #expect(result.shrunkValues > 0, "\(result.scenario)")
    }
}
