import AuditCore
import Foundation
import SliderKit

/// A fresh temporary directory, removed when released: each test's own SQLite file lives here.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "slider-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appending(path: name).path }
}

/// The example package's root, found from this file's path (`Tests/SliderKitTests/TestSupport.swift`).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The shipped scenario, `volume.json`.
let scenarioPath = packageRoot.appending(path: "volume.json").path

func volumeScenario() throws -> Scenario { try Scenario(contentsOf: scenarioPath, catalog: catalog) }

/// The screen of the in-code sessions: a slider at 0.3 under a root view.
func buildScreen() -> View {
    let screen = View(identifier: "screen", frame: Rect(x: 0, y: 0, width: 390, height: 844))
    screen.addSubview(Slider(identifier: "volume", frame: Rect(x: 16, y: 100, width: 358, height: 32), value: 0.3))
    return screen
}

/// What the user does in the in-code sessions: a drag that is snapped, one that is refused (a jump
/// of more than 0.5), another that is snapped, and a reset to 0; then the app reads the slider's
/// label, which asks the delegate outside any input.
func driveScreen(_ root: View) throws {
    let slider = try require(root.view(atPath: "screen/volume") as? Slider, "slider")
    slider.drag(to: 0.37)
    slider.drag(to: 0.95)
    slider.drag(to: 0.62)
    slider.reset()
    _ = slider.accessibilityLabel
}

struct Missing: Error, CustomStringConvertible {
    let description: String
}

/// `#require` for a plain function.
func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw Missing(description: "no \(what)") }
    return value
}

/// Records the in-code session: the tree `buildScreen` makes, with `delegate`, driven by `driveScreen`.
func recordInCode(database: String, delegate: String = "volume.v1") throws -> RecordingSummary {
    let root = buildScreen()
    let slider = try require(root.view(atPath: "screen/volume") as? Slider, "slider")
    let controller = try DelegateRegistry.volume.entry(named: delegate).make()
    slider.delegate = try require(controller as? any SliderDelegate, "slider delegate")
    let recorder = try Recorder(
        databasePath: database, session: NewSession(recordedInCode: "volume-in-code", delegate: delegate),
        catalog: catalog)
    try recorder.attach(to: root)
    try withExtendedLifetime(controller) { try driveScreen(root) }
    recorder.detach(from: root)
    return recorder.finish()
}

/// Records `volume.json` with `volume.v1`.
func recordScenario(database: String) throws -> RecordingSummary {
    try ScenarioRunner.record(try volumeScenario(), delegate: "volume.v1", registry: .volume, databasePath: database)
}

/// A difference as `kind callback`, for comparing sets.
func describe(_ difference: EventDifference) -> String {
    "\(difference.kind.rawValue) \(difference.event.callback)"
}
