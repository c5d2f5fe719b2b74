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

/// Explore compares each run in memory and stores only one that differs. It must never call a
/// run the same where recording both sessions and diffing them would not: for generated runs
/// against every mutant of the checkout (and its equivalent ones), and for a secure text view,
/// the in-memory verdict is the stored one.
@Suite("Explore's in-memory verdict is the stored diff's", .tags(.slow))
struct ExploreVerdictTests {
    let folder = TemporaryDirectory()

    /// Checks `runs` generated runs of `scenario` with `delegate` against `candidate` both ways;
    /// returns how many differed.
    @discardableResult
    func expectSameVerdicts(
        _ scenario: Scenario, delegate: String, candidate: String, registry: DelegateRegistry, runs: Int,
        weights: [String: Double] = [:]
    ) throws -> Int {
        var options = Explorer.Options()
        options.weights = weights
        let generator = RunGenerator(scenario: scenario, options: options)
        let reference = try registry.entry(named: delegate)
        let other = try registry.entry(named: candidate)
        let lanes = folder.url.appending(path: "lanes-\(candidate)")
        try FileManager.default.createDirectory(at: lanes, withIntermediateDirectories: true)
        let check = try RunCheck(scenario: scenario, delegate: reference, candidate: other, lanes: 1, in: lanes)
        let database = folder.path("stored-\(candidate).sqlite")
        var differed = 0
        for run in 1...runs {
            var random = ExplorationRandom(seed: 11, run: run)
            let steps = generator.steps(delegate: reference.make, corpus: [], &random)
            let outcome = try #require(try check.check([steps])[0], "run \(run) was dropped")
            var stored = scenario
            stored.steps = steps
            let a = try ScenarioRunner.record(stored, delegate: reference.make, named: delegate, databasePath: database)
            let b = try ScenarioRunner.record(
                stored, delegate: other.make, named: candidate, databasePath: database, invalid: .skip)
            let identical = try SessionDiffer(AuditStore(path: database, access: .read)).diff(a.session, b.session)
                .identical
            expectEqual((outcome.divergence == nil), identical, "\(candidate), run \(run): \(steps)")
            if !identical { differed += 1 }
        }
        return differed
    }

    @Test(arguments: CheckoutMutant.Mutation.allCases)
    func everyMutantOfTheCheckout(_ mutation: CheckoutMutant.Mutation) throws {
        try expectSameVerdicts(
            try Examples.checkout(), delegate: "checkout.v1", candidate: mutation.delegateName,
            registry: CheckoutMutant.registry, runs: 6)
    }

    /// A delegate or candidate the tree would ask nothing is refused before any run, in one
    /// message naming it, rather than explored into "no divergence".
    @Test func aCandidateThatAdoptsNothingIsRefused() throws {
        var registry = DelegateRegistry.examples
        registry.register("unrelated", summary: "adopts no delegate protocol") { Unrelated() }
        let explorer = Explorer(scenario: try Examples.checkout(), registry: registry)
        let error = try #require(throws: ScenarioError.self) {
            try explorer.explore(delegate: "checkout.v1", candidate: "unrelated")
        }
        expectEqual(error.location, "candidate")
        #expect(
            error.message.hasPrefix("unrelated: Unrelated conforms to no delegate protocol of the scenario's widgets"))
    }

    /// Secure text is hashed on both sides with the lane's one key, as in one database: a change
    /// the candidate makes to what is typed shows, one it does not make does not.
    @Test func aSecureTextView() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"format": 1, "name": "login",
                 "root": {"kind": "View", "id": "login", "frame": [0, 0, 320, 200], "children": [
                   {"kind": "TextView", "id": "password", "secure": true, "frame": [0, 0, 320, 40]}]},
                 "steps": []}
                """#.utf8), catalog: .builtIn)
        var registry = DelegateRegistry.examples
        registry.register("defaults", summary: "implements nothing") { DefaultsOnly() }
        registry.register("no-z", summary: "refuses a Z") { NoZ() }
        let textOnly = ["beginEditing": 1.0, "typeText": 4, "replaceText": 2, "selectText": 1, "endEditing": 1]
        let differed = try expectSameVerdicts(
            scenario, delegate: "defaults", candidate: "no-z", registry: registry, runs: 6, weights: textOnly)
        #expect(differed > 0, "no run typed a Z: the check saw no difference to agree on")
        try expectEqual(
            expectSameVerdicts(
                scenario, delegate: "defaults", candidate: "defaults", registry: registry, runs: 3, weights: textOnly),
            0)
    }
}

/// Conforms to no delegate protocol: a delegate from another screen, given by mistake.
final class Unrelated {}
