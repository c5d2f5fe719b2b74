import AuditCore
import SliderKit
import Testing

/// `explore` drives the slider, a widget kind declared in this package, with the generators its
/// registration adds, and follows the weights a user gives.
@Suite("Exploring the volume screen")
struct ExploreTests {
    func explore(weights: [String: Double] = [:], runs: Int = 30) throws -> Explorer.Result {
        var options = Explorer.Options()
        options.seed = 3
        options.runs = runs
        options.stepsPerRun = 10
        options.weights = weights
        return try Explorer(scenario: try volumeScenario(), registry: .volume, options: options)
            .explore(delegate: "volume.v1", candidate: "volume.v2")
    }

    @Test("explore finds volume.v2's changes by dragging the slider, from the tree alone")
    func findsTheRegression() throws {
        let found = try #require(try explore().finding)
        #expect(found.signature.contains("screen/volume SliderDelegate."), "\(found.signature)")
        #expect(found.minimized.steps.allSatisfy { $0.widget == "screen/volume" }, "\(found.minimized.steps)")
        #expect((1...3).contains(found.minimized.steps.count))
    }

    @Test("weights bias generation: without drags, the reset's missing label is what differs")
    func weightsBias() throws {
        let found = try #require(try explore(weights: ["drag": 0]).finding)
        #expect(found.minimized.steps.map(\.action) == ["reset"], "\(found.minimized.steps)")
        #expect(found.signature.contains("accessibilityLabel"), "\(found.signature)")
    }

    @Test("with neither slider input generated, only the scroll view is explored and nothing differs")
    func weightZeroNeverGenerates() throws {
        let result = try explore(weights: ["drag": 0, "reset": 0], runs: 10)
        #expect(result.finding == nil)
        #expect(result.runs == 10 && result.steps == 100)
    }
}
