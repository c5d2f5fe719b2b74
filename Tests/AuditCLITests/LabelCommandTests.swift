import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `--label KEY=VALUE` through the real binary: stored by `record`, shown by `sessions`, and a
/// filter of `sessions`, `search`, `report` and `replay --all`.
@Suite("Session labels on the command line")
struct LabelCommandTests {
    @Test func labelsAreStoredShownAndFilterEveryCommand() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        for labels in [["--label", "device=pixel", "--label", "branch=main"], ["--label", "device=iphone"]] {
            try sandbox.run(["record", "--scenario", "checkout.json"] + labels).expectSuccess()
        }
        let listed = try decodeJSON(try sandbox.run(["sessions", "--format", "json"]).stdout)
        guard case .array(let rows) = listed, rows.count == 2 else { throw SandboxError(description: "\(listed)") }
        expectEqual(rows[0]["labels"], .string("branch=main,device=pixel"))
        expectEqual(rows[1]["labels"], .string("device=iphone"))
        #expect(rows[0]["uuid"] != rows[1]["uuid"])
        try expectEqual(sandbox.run(["sessions", "--label", "device=iphone", "--format", "csv"]).stdoutLines.count, 3)

        let search = try sandbox.run(["search", "--label", "device=pixel", "--format", "csv"])
        expectEqual(search.status, 0)
        #expect(search.stdoutLines.dropFirst().filter { !$0.isEmpty }.allSatisfy { $0.hasPrefix("1,") })
        let report = try sandbox.run(["report", "--label", "branch=main"])
        expectEqual(report.stdoutLines.first?.hasPrefix("report of 1 recorded session"), true, "\(report)")

        let replay = try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--label", "device=iphone"])
        expectEqual(replay.status, 1, "\(replay)")
        #expect(replay.stdout.contains("session 2 (") && !replay.stdout.contains("session 1 ("), "\(replay)")
    }

    /// A filter that selects no recording is refused where a command checks or sums the sessions
    /// it selects: `replay --all` over none would pass CI having replayed nothing.
    @Test(arguments: [["replay", "--all", "--delegate", "checkout.v2"], ["coverage"], ["report"]])
    func aLabelFilterThatSelectsNothingIsRefused(_ command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        try sandbox.run(["record", "--scenario", "checkout.json", "--label", "device=pixel"]).expectSuccess()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(
            try sandbox.run(command + ["--label", "device=ipad", "--label", "branch=main"]),
            "no recording has the labels branch=main device=ipad (auditctl sessions lists them)")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test(arguments: [
        (["--label", "device"], "--label takes KEY=VALUE (a key of letters, digits, _ . -), not 'device'"),
        (["--label", "=pixel"], "--label takes KEY=VALUE (a key of letters, digits, _ . -), not '=pixel'"),
        (["--label", "a b=c"], "--label takes KEY=VALUE (a key of letters, digits, _ . -), not 'a b=c'"),
        (["--label", "a=1", "--label", "a=2"], "--label a is given twice"),
    ])
    func aMalformedLabelIsRefusedAndNothingIsWritten(_ label: [String], message: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(try sandbox.run(["record", "--scenario", "checkout.json"] + label), message)
        expectError(try sandbox.run(["search"] + label), message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }
}
