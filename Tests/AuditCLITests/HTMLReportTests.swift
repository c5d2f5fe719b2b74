import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `--html FILE` of `report`, `diff` and `replay`, end to end through the built binary.
@Suite("HTML report")
struct HTMLReportTests {
    let sandbox: Sandbox

    /// Session 1 recorded with checkout.v1 (one veto), session 2 with checkout.v2 (two vetoes).
    init() throws {
        sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.recordExample(delegate: "checkout.v2")
    }

    func page(_ name: String) throws -> String {
        String(decoding: try #require(sandbox.bytes(name)), as: UTF8.self)
    }

    /// How often `needle` occurs in `text`.
    func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The number of events of a session, from `sessions --format json`.
    func events(of session: Int) throws -> Int {
        guard case .array(let rows) = try decodeJSON(try sandbox.run(["sessions", "--format", "json"]).stdout),
            case .object(let fields) = rows[session - 1], case .int(let count) = fields["events"]
        else { throw SandboxError(description: "no session \(session)") }
        return count
    }

    /// Nothing in the page may reach outside it: no address, no outside source, no style sheet
    /// link, no import, no font or image by URL.
    func expectSelfContained(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for needle in ["http://", "https://", "<link", "src=", "@import", "url(", "<iframe", "<object", "<embed"] {
            #expect(!html.contains(needle), "the page holds \(needle)", sourceLocation: sourceLocation)
        }
        #expect(html.hasPrefix("<!DOCTYPE html>"), sourceLocation: sourceLocation)
        expectEqual(occurrences(of: "<script", in: html), 1, sourceLocation: sourceLocation)
    }

    @Test func reportDrawsOneMarkPerEventAndMarksVetoes() throws {
        let plain = try sandbox.run(["report", "--session", "1"])
        let run = try sandbox.run(["report", "--session", "1", "--html", "page.html"])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.stdout, plain.stdout)
        expectEqual(run.stderr, "")
        let html = try page("page.html")
        expectSelfContained(html)
        expectEqual(occurrences(of: "class=\"m ", in: html), (try events(of: 1)))
        expectEqual(occurrences(of: "class=\"m veto", in: html), 1)
        #expect(html.contains("all \(try events(of: 1)) events drawn"))
        #expect(html.contains("<h2>Veto rates</h2>"))
        #expect(html.contains("<h2>Slowest delegate calls (microseconds)</h2>"))
        #expect(html.contains("segmentedControl(_:shouldSelectSegmentAt:)"))
    }

    @Test func thePageIsReadableByItsOwnerOnlyLikeTheDatabase() throws {
        try expectEqual(sandbox.run(["report", "--session", "1", "--html", "page.html"]).status, 0)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: sandbox.directory.appendingPathComponent("page.html").path)
        expectEqual((attributes[.posixPermissions] as? Int), 0o600)
    }

    @Test func diffMarksEveryDifferenceAndKeepsItsOutputAndExitStatus() throws {
        let plain = try sandbox.run(["diff", "1", "2", "--format", "json"])
        let run = try sandbox.run(["diff", "1", "2", "--format", "json", "--html", "diff.html"])
        expectEqual(plain.status, 1)
        expectEqual(run.status, 1, "\(run)")
        expectEqual(run.stdout, plain.stdout)
        expectEqual(run.stderr, "")
        guard case .object(let fields) = try decodeJSON(run.stdout),
            case .array(let differences) = fields["differences"]
        else { throw SandboxError(description: "no differences in \(run.stdout)") }
        let html = try page("diff.html")
        expectSelfContained(html)
        expectEqual(occurrences(of: "class=\"m ", in: html), (try events(of: 1)) + (try events(of: 2)))
        expectEqual(occurrences(of: "class=\"band d", in: html), differences.count)
        expectEqual(occurrences(of: "class=\"m veto", in: html), 3)
        for case .object(let difference) in differences {
            guard case .string(let kind) = difference["kind"] else { continue }
            let name = kind.replacingOccurrences(of: "_", with: " ").replacingOccurrences(
                of: "only in a", with: "only in A"
            )
            .replacingOccurrences(of: "only in b", with: "only in B")
            #expect(html.contains("</i>\(name)</span>"), "no legend entry for \(kind)")
        }
        #expect(html.contains("<h2>Every difference</h2>"))
    }

    @Test func identicalDiffStillExitsZero() throws {
        let run = try sandbox.run(["diff", "1", "1", "--html", "same.html"])
        expectEqual(run.status, 0, "\(run)")
        let html = try page("same.html")
        #expect(html.contains("identical: no differences"))
        expectEqual(occurrences(of: "class=\"band", in: html), 0)
    }

    @Test func replayWritesTheSameStdoutAndExitStatusWithAPage() throws {
        let original = try #require(sandbox.bytes("audit.sqlite"))
        try original.write(to: URL(fileURLWithPath: sandbox.path("copy.sqlite")))
        let plain = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"])
        let run = try sandbox.run(
            ["replay", "--session", "1", "--delegate", "checkout.v2", "--db", "copy.sqlite", "--html", "replay.html"])
        expectEqual(plain.status, 1)
        expectEqual(run.status, 1, "\(run)")
        expectEqual(run.stdout, plain.stdout)
        let html = try page("replay.html")
        expectSelfContained(html)
        #expect(html.contains("<h1>Replay of session 1 against checkout.v2</h1>"))
        #expect(html.contains(">recorded</text>") && html.contains(">candidate</text>"))
        #expect(html.contains("</i>veto changed</span>"))
        let listing = try sandbox.listing()
        #expect(!listing.contains { $0.hasSuffix(".tmp") }, "\(listing)")
    }

    @Test(arguments: [
        ["report", "--session", "1"], ["diff", "1", "2"], ["replay", "--session", "1", "--delegate", "checkout.v2"],
    ])
    func aPageThatCannotBeWrittenFailsBeforeAnythingRuns(command: [String]) throws {
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let listing = try sandbox.listing()
        let run = try sandbox.run(command + ["--html", "missing/page.html"])
        expectError(run, "cannot write the HTML page to missing/page.html: directory missing does not exist")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(sandbox.listing(), listing)
        try FileManager.default.createDirectory(atPath: sandbox.path("folder"), withIntermediateDirectories: false)
        expectError(
            try sandbox.run(command + ["--html", "folder"]), "cannot write the HTML page to folder: it is a directory")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test func anExistingPageIsReplacedWhole() throws {
        try sandbox.write("page.html", "old page")
        let run = try sandbox.run(["report", "--session", "2", "--html", "page.html"])
        expectEqual(run.status, 0, "\(run)")
        let html = try page("page.html")
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</body></html>\n"))
        let leftovers = try sandbox.listing().filter { $0.hasPrefix(".") || $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test(arguments: [
        (["report", "--html", "page.html"], "--html draws one session's timeline: give --session N"),
        (
            ["replay", "--all", "--delegate", "checkout.v2", "--html", "page.html"],
            "--html draws one replay: give --session N, not --all"
        ),
        (["report", "--session", "1", "--html", ""], "--html needs a file name"),
    ])
    func htmlNeedsOneSessionAndAName(arguments: [String], message: String) throws {
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(try sandbox.run(arguments), message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        #expect(!sandbox.exists("page.html"))
    }

    /// Widget ids, typed text and session names are the recording's, so anyone who could shape a
    /// recording could put markup in them: the page shows it as text.
    @Test func hostileTextIsEscaped() throws {
        let widget = "<img src=x onerror=alert(1)>"
        let typed = "</title></rect></svg><script>alert(2)</script>\"'&"
        let scenario: AuditValue = .object([
            "name": .string("<script>alert('name')</script>"), "delegate": .string("checkout.v1"),
            "root": .object([
                "kind": .string("View"), "id": .string("root"),
                "children": .array([.object(["kind": .string("TextView"), "id": .string(widget)])]),
            ]),
            "steps": .array(
                [("beginEditing", nil), ("typeText", typed), ("endEditing", nil)].map { action, text in
                    var step: [String: AuditValue] = ["action": .string(action), "widget": .string("root/\(widget)")]
                    if let text { step["text"] = .string(text) }
                    return .object(step)
                }),
        ])
        try sandbox.write("hostile.json", scenario.json)
        let record = try sandbox.run([
            "record", "--scenario", "hostile.json", "--db", "hostile.sqlite", "--name", "<b onclick=alert(3)>",
        ])
        expectEqual(record.status, 0, "\(record)")
        let run = try sandbox.run(["report", "--session", "1", "--db", "hostile.sqlite", "--html", "hostile.html"])
        expectEqual(run.status, 0, "\(run)")
        let html = try page("hostile.html")
        expectEqual(occurrences(of: "<script", in: html), 1)
        for raw in ["<img", "<b onclick", "</svg><script", "alert('name')"] {
            #expect(!html.contains(raw), "unescaped: \(raw)")
        }
        #expect(html.contains("root/&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("&lt;/title&gt;&lt;/rect&gt;&lt;/svg&gt;&lt;script&gt;alert(2)&lt;/script&gt;"))
        try expectNothingRunsInABrowser(sandbox.path("hostile.html"))
    }

    /// When Chromium is installed, loads the page and checks that the DOM holds only the page's
    /// own script and no element made from the recording's text.
    func expectNothingRunsInABrowser(_ path: String) throws {
        guard
            let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(sandbox.path("chromium-profile"))",
            "--dump-dom", "file://\(path)",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        expectEqual(occurrences(of: "<script", in: dom), 1, "\(dom.prefix(2000))")
        #expect(!dom.contains("<img") && !dom.contains("<b onclick"))
        #expect(dom.contains("data-tip="), "the page's own script did not run")
    }
}
