import Foundation
import Testing

/// What one run of the built `slider-audit` printed and returned.
struct Run: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---" }
}

/// The `slider-audit` executable SwiftPM built beside the test bundle: on Linux the bundle is the
/// test executable itself (`.build/debug/NAME.xctest`), on macOS a directory
/// (`.build/debug/NAME.xctest/Contents/MacOS/NAME`). `swift test` builds it too.
func sliderAudit() throws -> URL {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var bundle = executable
    while bundle.pathExtension != "xctest", bundle.pathComponents.count > 1 {
        bundle = bundle.deletingLastPathComponent()
    }
    let directory = (bundle.pathExtension == "xctest" ? bundle : executable).deletingLastPathComponent()
    let binary = directory.appending(path: "slider-audit")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw Missing(description: "slider-audit is not built next to the tests (no \(binary.path)); run `swift build`")
    }
    return binary
}

/// Runs `slider-audit arguments` in `directory` and waits for it to exit; its output goes through files.
func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> Run {
    let id = UUID().uuidString
    let outURL = directory.url.appending(path: "stdout-\(id)")
    let errURL = directory.url.appending(path: "stderr-\(id)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    let process = Process()
    process.executableURL = try sliderAudit()
    process.arguments = arguments
    process.currentDirectoryURL = directory.url
    var environment = ProcessInfo.processInfo.environment
    environment["AUDITCTL_DB"] = nil
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return Run(
        status: process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus,
        stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
}

@Suite("slider-audit, the user's own runner, as a process")
struct RunnerTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    func slider(_ arguments: String...) throws -> Run { try run(arguments + ["--db", database], in: folder) }

    @Test func helpNamesTheProgram() throws {
        let help = try run(["--help"], in: folder)
        #expect(help.status == 0, "\(help)")
        #expect(help.stdout.hasPrefix("usage: slider-audit COMMAND"), "\(help)")
        let record = try run(["record", "--help"], in: folder)
        #expect(record.status == 0 && record.stdout.hasPrefix("usage: slider-audit record --scenario FILE"))
        // Its own delegates in the examples, and nothing of auditctl's: no checkout, no demo.
        #expect(record.stdout.contains("\n  slider-audit record --scenario screen.json --delegate volume.v2 "))
        for text in [help.stdout, record.stdout] { #expect(!text.contains("checkout") && !text.contains("demo")) }
        let demo = try run(["demo"], in: folder)
        #expect(demo.status == 2 && demo.stdout == "", "\(demo)")
        #expect(demo.stderr == "slider-audit: error: unknown command 'demo'; run 'slider-audit --help' for the list\n")
    }

    @Test func theSliderIsListedWithItsAnswerKinds() throws {
        let callbacks = try run(["callbacks"], in: folder)
        #expect(callbacks.status == 0, "\(callbacks)")
        func row(_ name: String) -> [String]? {
            callbacks.lines.first { $0.contains(" \(name) ") }?.split(separator: " ").map(String.init)
        }
        #expect(row("slider(_:shouldBeginTrackingTo:)")?.contains("veto") == true)
        #expect(row("slider(_:proposedValue:)")?.contains("override") == true)
        #expect(row("slider(_:accessibilityLabelFor:)")?.contains("value") == true)
        #expect(callbacks.lines.contains { $0.hasPrefix("input") && $0.contains("Slider") && $0.contains(" reset ") })
    }

    @Test func recordReplayDiffAndShow() throws {
        let record = try slider("record", "--scenario", scenarioPath, "--delegate", "volume.v1")
        #expect(record.status == 0, "\(record)")
        #expect(record.stdout == "1\n")
        #expect(record.stderr.contains("27 events (8 inputs, 19 callbacks, 1 veto)"), "\(record)")

        let interaction = try slider("replay", "--session", "1", "--delegate", "volume.v2")
        #expect(interaction.status == 1, "\(interaction)")
        #expect(interaction.lines.contains { $0.hasPrefix("REGRESSION: 11 differences") }, "\(interaction)")
        #expect(interaction.lines.contains(#"  callback   SliderDelegate.slider(_:proposedValue:) {"value":0.37}"#))
        #expect(interaction.lines.contains(#"  candidate  #3 {"value":0.37} → 0.25  OVERRIDDEN"#))

        let isolated = try slider("replay", "--session", "1", "--delegate", "volume.v2", "--isolated")
        #expect(isolated.status == 1, "\(isolated)")
        #expect(isolated.lines.contains { $0.hasPrefix("REGRESSION: 3 differences") }, "\(isolated)")
        #expect(
            isolated.lines.contains("  screen/volume  SliderDelegate.slider(_:proposedValue:): 2 result changed"),
            "\(isolated)")
        #expect(
            isolated.lines.contains(
                "  screen/volume  SliderDelegate.slider(_:accessibilityLabelFor:): 1 result changed"),
            "\(isolated)")

        let diff = try slider("diff", "1", "2")
        #expect(diff.status == 1, "\(diff)")
        #expect(diff.lines.contains("11 differences: 6 result changed, 4 arguments changed, 1 only in A"), "\(diff)")

        let same = try slider("replay", "--session", "1", "--delegate", "volume.v1")
        #expect(same.status == 0, "\(same)")
        #expect(same.lines.contains { $0.hasPrefix("replay of session 1") && $0.hasSuffix("stored as session 4") })

        let show = try slider("show", "--session", "1")
        #expect(show.status == 0, "\(show)")
        let overrides = show.lines.filter { $0.contains("slider(_:proposedValue:)") }
        #expect(overrides.count == 3)
        #expect(overrides.filter { $0.hasSuffix("OVERRIDDEN") }.count == 2, "\(show)")
        #expect(!overrides.contains { $0.contains("VETOED") })
        let vetoes = show.lines.filter { $0.hasSuffix("VETOED") }
        #expect(
            vetoes.count == 1 && vetoes.allSatisfy { $0.contains(#"slider(_:shouldBeginTrackingTo:) {"value":0.95}"#) })
    }

    /// The corpus commands work on the slider as on the built-in widgets: sessions replayed two at
    /// a time into a database of their own (the recordings' file left as it was), merged, and their
    /// coverage drawn as a page.
    @Test func corpusCommandsWorkOnTheSlider() throws {
        for delegate in ["volume.v1", "volume.v1", "volume.v2"] {
            #expect(try slider("record", "--scenario", scenarioPath, "--delegate", delegate).status == 0)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let replayed = try slider(
            "replay", "--all", "--delegate", "volume.v2", "--jobs", "2", "--output-db", folder.path("shard.sqlite"))
        #expect(replayed.status == 1, "\(replayed)")
        #expect(
            replayed.lines.map { $0.replacing(/; stored as session \d+$/, with: "") } == [
                "session 1 (volume, recorded with volume.v1): REGRESSION, 11 differences",
                "session 2 (volume, recorded with volume.v1): REGRESSION, 11 differences",
                "session 3 (volume, recorded with volume.v2): identical (26 events)",
                "total: 3 sessions replayed against volume.v2: 1 identical, 2 with regressions (22 differences)",
            ], "\(replayed)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        let merged = try run(
            ["merge", folder.path("shard.sqlite"), "--into", folder.path("merged.sqlite")], in: folder)
        #expect(merged.status == 0 && merged.stdout.contains("merged 6 sessions"), "\(merged)")
        let coverage = try run(
            ["coverage", "--db", folder.path("merged.sqlite"), "--html", folder.path("coverage.html")], in: folder)
        #expect(coverage.status == 0, "\(coverage)")
        let page = try String(contentsOfFile: folder.path("coverage.html"), encoding: .utf8)
        #expect(page.contains("screen/volume") && page.contains("SliderDelegate.slider(_:proposedValue:)"))

        // Exported as text and imported into a new database, the slider's sessions come back whole:
        // exported again byte for byte, and replayed there as they were in the original.
        let (exported, again) = (folder.path("slider.jsonl"), folder.path("again.jsonl"))
        let imported = folder.path("imported.sqlite")
        for arguments in [
            ["export", "--db", folder.path("merged.sqlite"), "--output", exported],
            ["import", exported, "--db", imported], ["export", "--db", imported, "--output", again],
        ] {
            let step = try run(arguments, in: folder)
            #expect(step.status == 0, "\(arguments): \(step)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == Data(contentsOf: URL(fileURLWithPath: exported)))
        // One job alone: its sessions committed a batch at a time, compared from memory.
        let replayedImport = try run(
            ["replay", "--all", "--delegate", "volume.v2", "--jobs", "1", "--db", imported], in: folder)
        #expect(
            replayedImport.lines.last
                == "total: 3 sessions replayed against volume.v2: 1 identical, 2 with regressions (22 differences)",
            "\(replayedImport)")
    }

    @Test func anUnknownDelegateIsAnError() throws {
        let record = try slider("record", "--scenario", scenarioPath, "--delegate", "volume.v3")
        #expect(record.status == 2)
        #expect(record.stdout == "")
        #expect(record.stderr.hasPrefix("slider-audit: error: unknown delegate 'volume.v3'"), "\(record)")
    }
}
