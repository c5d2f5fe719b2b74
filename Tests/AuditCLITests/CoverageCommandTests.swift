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
}
