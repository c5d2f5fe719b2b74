import AuditCore
import Foundation
import Testing

@Suite("auditctl coverage")
struct CoverageCommandTests {
    @Test func everyFormatAgreesOnTheTotals() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let text = try sandbox.run(["coverage"])
        #expect(text.status == 0, "\(text)")
        let json = try decodeJSON(try sandbox.run(["coverage", "--format", "json"]).stdout)
        guard case .int(let callbacks)? = json["total"]?["callbacks"], case .int(let called)? = json["total"]?["called"]
        else { throw SandboxError(description: "\(json)") }
        #expect(
            text.stdoutLines[0].hasPrefix("coverage of 1 session: \(called) of \(callbacks) widget callbacks called"))
        #expect(text.stdout.contains("  SegmentedControlDelegate: "))
        let csv = try sandbox.run(["coverage", "--format", "csv"]).stdoutLines.filter { !$0.isEmpty }
        #expect(csv.count == callbacks + 1)
        expectError(
            try sandbox.run(["coverage", "--session", "9"]),
            "no session 9 in the database (auditctl sessions lists them)")
    }

    /// `--html FILE`: the same report as one page, every row of it, the text from the database
    /// escaped; written as every output file is (0600, never through a link); stdout unchanged.
    @Test func theHTMLPageHoldsEveryRowEscaped() throws {
        let sandbox = try Sandbox()
        // The shipped checkout, whose session leaves callbacks never called.
        try FileManager.default.copyItem(
            at: Sandbox.packageRoot.appendingPathComponent("Examples/checkout.json"),
            to: sandbox.directory.appendingPathComponent("shipped.json"))
        try sandbox.run(["record", "--scenario", "shipped.json"]).expectSuccess()
        let plain = try sandbox.run(["coverage"])
        let run = try sandbox.run(["coverage", "--html", "coverage.html"])
        #expect(run.status == 0 && run.stdout == plain.stdout, "\(run)")
        let page = try String(contentsOfFile: sandbox.path("coverage.html"), encoding: .utf8)
        let csv = try sandbox.run(["coverage", "--format", "csv"]).stdoutLines.dropFirst().filter { !$0.isEmpty }
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<h1>Coverage of session 1</h1>"))
        #expect(page.components(separatedBy: "<tr>").count - 1 >= csv.count, "every callback is a row")
        // Every callback never called, as the text lists it, is in the page's first table of them.
        let never = plain.stdoutLines.drop { !$0.hasPrefix("never called") }.dropFirst().prefix { $0.hasPrefix("  ") }
        #expect(!never.isEmpty)
        for line in never {
            let callback = line.split(separator: " ").last.map(String.init) ?? ""
            #expect(page.contains(callback.replacingOccurrences(of: "&", with: "&amp;")), "\(callback)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: sandbox.path("coverage.html"))[.posixPermissions]
        #expect(mode as? Int == 0o600)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("link.html"), withDestinationPath: sandbox.path("elsewhere.html"))
        expectError(try sandbox.run(["coverage", "--html", "link.html"]), startingWith: "cannot write the HTML page")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("elsewhere.html")))
    }
}
