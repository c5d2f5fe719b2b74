import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// The browser example end to end: the built `auditctl` records a web view whose delegate decides
/// later, and replay finds the planted difference.
@Suite("auditctl and the browser example")
struct WebViewCLITests {
    /// A sandbox holding the shipped browser scenario as `browser.json`.
    static func browserSandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(
            at: Sandbox.packageRoot.appendingPathComponent("Examples/browser.json"),
            to: sandbox.directory.appendingPathComponent("browser.json"))
        return sandbox
    }

    @Test func isolatedReplayAgainstV2FindsThePlantedDifferenceAndExitsOne() throws {
        let sandbox = try Self.browserSandbox()
        let record = try sandbox.run(["record", "--scenario", "browser.json", "--delegate", "browser.v1"])
        expectEqual(record.status, 0, "\(record)")
        #expect(
            record.stderr.hasPrefix("recorded session 1: 62 events (18 inputs, 44 callbacks, 2 vetoes)"), "\(record)")

        let same = try sandbox.run(["replay", "--session", "1", "--delegate", "browser.v1", "--isolated"])
        expectEqual(same.status, 0, "\(same)")

        let run = try sandbox.run(["replay", "--session", "1", "--delegate", "browser.v2", "--isolated"])
        expectEqual(run.status, 1, "\(run)")
        expectEqual(run.stderr, "")
        expectEqual(run.stdoutLines.first?.hasSuffix("against browser.v2, isolated mode; stored as session 3"), true)
        expectEqual(
            run.stdoutLines.dropFirst().first,
            "REGRESSION: 1 difference between the recorded session (62 events) and the candidate (62 events)")
        #expect(run.stdout.contains("first divergence: veto changed\n"), "\(run)")
        #expect(run.stdout.contains(#"browser/page click {"url":"http://example.com/archive"}"#), "\(run)")

        // The divergence is an answer event, whose own row has no arguments: the report shows its
        // ask's (the URL), which say which navigation was vetoed.
        #expect(
            run.stdoutLines.contains {
                $0.hasPrefix("  callback   NavigationDelegate.") && $0.contains("example.com/archive")
            }, "\(run)")

        let json = try sandbox.run([
            "replay", "--session", "1", "--delegate", "browser.v2", "--isolated", "--format", "json",
        ])
        expectEqual(json.status, 1)
        let report = try decodeJSON(json.stdout)
        expectEqual(report["summary"]?["differences"], .int(1))
        expectEqual(report["summary"]?["veto_changed"], .int(1))

        let callbacks = try sandbox.run(["callbacks", "--format", "csv"])
        #expect(
            callbacks.stdout.contains(
                "AsyncNavigationDelegate,webView(_:decidePolicyForNavigationAction:),action,veto,true"))
        #expect(callbacks.stdout.contains("input,WebView,respond,\"statusCode, mimeType\""), "\(callbacks)")
    }

    /// `show` marks each ask answered later, and each answer with the ask it answers.
    @Test func showMarksEachAskAndTheAnswerThatNamesIt() throws {
        let sandbox = try Self.browserSandbox()
        try sandbox.run(["record", "--scenario", "browser.json", "--delegate", "browser.v1"]).expectSuccess()
        let show = try sandbox.run(["show", "--session", "1"])
        expectEqual(show.status, 0, "\(show)")
        let asks = show.stdoutLines.filter { $0.hasSuffix("  (answer comes later)") }
        #expect(!asks.isEmpty, "\(show)")
        for ask in asks {
            let seq = try #require(Int(ask.prefix(5).trimmingCharacters(in: .whitespaces)), "\(ask)")
            expectEqual(show.stdoutLines.filter { $0.hasSuffix("  (answers #\(seq))") }.count, 1, "\(show)")
        }
    }

    /// Sessions whose answers come later travel through `export` and `import` (format 2) and through
    /// `merge`, isolated replays with them: each copy shows and diffs as its original.
    @Test func exportImportAndMergeCarryAnswersThatComeLater() throws {
        let sandbox = try Self.browserSandbox()
        try sandbox.run(["record", "--scenario", "browser.json", "--delegate", "browser.v1"]).expectSuccess()
        try expectEqual(sandbox.run(["replay", "--session", "1", "--delegate", "browser.v2", "--isolated"]).status, 1)
        let exported = try sandbox.run(["export"])
        expectEqual(exported.status, 0, "\(exported)")
        #expect(exported.stdout.contains(#""later":"asked""#))
        try sandbox.write("browser.jsonl", exported.stdout)
        try sandbox.run(["import", "browser.jsonl", "--db", "imported.sqlite"]).expectSuccess()
        try sandbox.run(["merge", "audit.sqlite", "--into", "merged.sqlite"]).expectSuccess()
        for copy in ["imported.sqlite", "merged.sqlite"] {
            for command in [["show", "--session", "1"], ["show", "--session", "2"], ["diff", "1", "2"]] {
                let original = try sandbox.run(command)
                try expectEqual(sandbox.run(command + ["--db", copy]).stdout, original.stdout, "\(copy): \(command)")
            }
            try expectEqual(sandbox.run(["export", "--db", copy]).stdout, exported.stdout, "\(copy)")
        }
    }
}
