import Foundation
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// What `scripts/fuzz.sh` found, each kept as a test. The inputs are the fuzzer's, minimized.
@Suite("Fuzzing findings")
struct FuzzRegressionTests {
    /// Found by the `scenario` target (LeakSanitizer): a scenario that leaves a finger down on the
    /// root leaked its whole widget tree. The root owns its touch dispatcher, which held the view a
    /// touch is bound to strongly — the root itself here: a retain cycle.
    static let fingerLeftDownOnTheRoot = """
        {"name": "leak", "root": {"kind": "View", "id": "root", "frame": [0, 0, 390, 844],
         "gestures": [{"kind": "PanGestureRecognizer", "id": "back"}],
         "children": [{"kind": "View", "id": "ok", "frame": [16, 700, 358, 20]}]},
         "steps": [{"action": "touch", "widget": "root", "touch": {"id": 2, "phase": "began", "x": 50, "y": 725, "t": 2}}]}
        """

    /// A file that leaves a finger down is refused now (see the ScenarioFormat article); the same
    /// touch sent in code must still not leak the tree.
    @Test func aFingerLeftDownDoesNotLeakTheTree() throws {
        #expect(throws: ScenarioError.self) {
            try Scenario(data: Data(Self.fingerLeftDownOnTheRoot.utf8), catalog: .builtIn)
        }
        let step =
            #"{"action": "touch", "widget": "root", "touch": {"id": 2, "phase": "began", "x": 50, "y": 725, "t": 2}}"#
        let withoutSteps = Self.fingerLeftDownOnTheRoot.replacingOccurrences(of: step, with: "")
        let scenario = try Scenario(data: Data(withoutSteps.utf8), catalog: .builtIn)
        weak var root: View?
        weak var child: View?
        do {
            let tree = try ScenarioRunner.run(scenario, delegate: nil).root
            tree.touchDispatcher.send(Touch(id: 2, x: 50, y: 725, phase: .began, timestamp: 2))
            #expect(tree.touchDispatcherIfCreated != nil)
            root = tree
            child = tree.subviews.first
        }
        #expect(root == nil)
        #expect(child == nil)
    }

    @Test(arguments: [(50.0, 725.0), (20.0, 710.0)])
    func aTouchBoundToAnyViewOfTheTreeDoesNotKeepItAlive(x: Double, y: Double) {
        weak var root: View?
        do {
            let tree = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 390, height: 844))
            tree.addSubview(View(identifier: "ok", frame: Rect(x: 16, y: 700, width: 358, height: 20)))
            tree.touchDispatcher.send(Touch(id: 1, x: x, y: y, phase: .began, timestamp: 0))
            root = tree
        }
        #expect(root == nil)
    }
}
