import Foundation
import Testing

/// What one run of a built runner (`parser-audit`, `fetch-audit`) printed and returned.
struct Run: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---" }
}

/// The runner `name` SwiftPM built beside the test bundle: on Linux the bundle is the test
/// executable itself (`.build/debug/NAME.xctest`), on macOS a directory
/// (`.build/debug/NAME.xctest/Contents/MacOS/NAME`). `swift test` builds it too.
func builtExecutable(_ name: String) throws -> URL {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var bundle = executable
    while bundle.pathExtension != "xctest", bundle.pathComponents.count > 1 {
        bundle = bundle.deletingLastPathComponent()
    }
    let directory = (bundle.pathExtension == "xctest" ? bundle : executable).deletingLastPathComponent()
    let binary = directory.appending(path: name)
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw Missing(description: "\(name) is not built next to the tests (no \(binary.path)); run `swift build`")
    }
    return binary
}

/// Runs `executable arguments` in `directory` and waits for it to exit; its output goes through files.
func run(_ arguments: [String], in directory: TemporaryDirectory, executable: String = "parser-audit") throws -> Run {
    let id = UUID().uuidString
    let outURL = directory.url.appending(path: "stdout-\(id)")
    let errURL = directory.url.appending(path: "stderr-\(id)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    let process = Process()
    process.executableURL = try builtExecutable(executable)
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

@Suite("parser-audit, the feed's runner, as a process")
struct RunnerTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    func parserAudit(_ arguments: String...) throws -> Run {
        try run(arguments + ["--db", database], in: folder)
    }

    @Test func recordShowReplayDiffAndQuery() throws {
        let record = try parserAudit("record", "--scenario", scenarioPath, "--delegate", "feed.v1")
        #expect(record.status == 0 && record.stdout == "1\n", "\(record)")
        #expect(record.stderr.contains("35 events (2 inputs, 33 callbacks, 1 veto)"), "\(record)")

        let show = try parserAudit("show", "--session", "1")
        #expect(show.status == 0, "\(show)")
        #expect(show.lines.first == "session 1 · scenario feed · delegate feed.v1 · complete · 35 events, 1 veto")
        let vetoes = show.lines.filter { $0.hasSuffix("VETOED") }
        #expect(vetoes.count == 1 && vetoes.allSatisfy { $0.contains(#"{"elementName":"script","attributes":{}}"#) })
        #expect(
            show.lines.contains {
                $0.hasSuffix(#"parser(_:resolveExternalEntityName:systemID:) {"name":"copy","systemID":null} → "©""#)
            })
        #expect(
            show.lines.contains {
                $0.contains("▶ screen/feed parse")
                    && $0.hasSuffix(#"→ {"aborted":true,"completed":false,"errorCode":111}"#)
            })

        let interaction = try parserAudit("replay", "--session", "1", "--delegate", "feed.v2")
        #expect(interaction.status == 1, "\(interaction)")
        #expect(interaction.lines.contains { $0.hasPrefix("REGRESSION: 12 differences") }, "\(interaction)")

        let isolated = try parserAudit("replay", "--session", "1", "--delegate", "feed.v2", "--isolated")
        #expect(isolated.status == 1, "\(isolated)")
        #expect(isolated.lines.contains { $0.hasPrefix("REGRESSION: 2 differences") }, "\(isolated)")
        #expect(
            isolated.lines.contains(
                "  screen/feed  XMLParserDelegate.parser(_:didStartElement:namespaceURI:qualifiedName:attributes:): "
                    + "1 veto changed"), "\(isolated)")

        let diff = try parserAudit("diff", "1", "2")
        #expect(diff.status == 1, "\(diff)")
        #expect(diff.lines.contains { $0.hasPrefix("12 differences:") }, "\(diff)")

        let same = try parserAudit("replay", "--session", "1", "--delegate", "feed.v1", "--isolated")
        #expect(same.status == 0, "\(same)")

        let query = try parserAudit(
            "query",
            "select session, json_extract(args, '$.elementName') from timeline where vetoed order by session, seq",
            "--format", "csv")
        #expect(query.status == 0, "\(query)")
        #expect(
            query.lines.dropFirst() == ["1,script", "2,enclosure", "2,script", "3,enclosure", "3,script", "4,script"],
            "\(query)")
    }

    @Test func theCallbacksAreListedWithTheirAnswers() throws {
        let callbacks = try parserAudit("callbacks")
        #expect(callbacks.status == 0, "\(callbacks)")
        let parser = callbacks.lines.filter { $0.contains(" XMLParserDelegate ") }
        #expect(parser.count == 18)
        func row(_ name: String) -> [Substring]? { parser.first { $0.contains(" \(name) ") }?.split(separator: " ") }
        // The answer's kind, its default, and how it comes: the parser's delegate returns each.
        #expect(
            row("parser(_:didStartElement:namespaceURI:qualifiedName:attributes:)")?.suffix(3)
                == ["veto", "true", "returned"])
        #expect(row("parser(_:resolveExternalEntityName:systemID:)")?.suffix(3) == ["value", "null", "returned"])
    }
}
