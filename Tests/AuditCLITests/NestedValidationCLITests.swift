import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `record` of a file with a problem inside a nested object or in its touch phases: exit status 2,
/// one line naming the field by its path and saying why, and the database as it was. A file that
/// starts with a UTF-8 byte order mark records.
@Suite("auditctl record: nested fields and touch phases")
struct NestedValidationCLITests {
    static let seed = Sandbox.packageRoot.appendingPathComponent("scripts/fuzz/seeds/scenario/signup.json")

    /// The signup seed (every widget kind and action) with `old` replaced by `new`.
    static func signup(replacing old: String = "", with new: String = "") -> String {
        let text = (try? String(contentsOf: seed, encoding: .utf8)) ?? ""
        guard !old.isEmpty else { return text }
        precondition(text.contains(old), "the signup seed no longer contains \(old)")
        return text.replacingOccurrences(of: old, with: new)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let message: String
        var testDescription: String { name }
    }

    static let lastStep =
        #"{ "action": "touch", "widget": "root", "touch": { "id": 2, "phase": "cancelled", "x": 50, "y": 725, "t": 2.1 } }"#

    static let cases = [
        Case(
            name: "an unknown member of a velocity",
            text: signup(replacing: #"{ "x": 0, "y": 0.5 }"#, with: #"{ "x": 0, "y": 0.5, "z": 0 }"#),
            message: "s.json: steps[12].velocity.z: unknown field"),
        Case(
            name: "an unknown member of a touch event",
            text: signup(
                replacing: #""phase": "moved", "x": 130, "y": 720, "t": 0.2 }"#,
                with: #""phase": "moved", "x": 130, "y": 720, "t": 0.2, "pressure": 1 }"#),
            message: "s.json: steps[16].events[1].pressure: unknown field"),
        Case(
            name: "a negative location",
            text: signup(
                replacing: #""range": { "location": 0, "length": 4 }"#,
                with: #""range": { "location": -2, "length": 4 }"#),
            message: "s.json: steps[3].range.location: a negative location (-2): ranges count UTF-16 units from 0"),
        Case(
            name: "a phase out of order",
            text: signup(replacing: #""id": 1, "phase": "began""#, with: #""id": 1, "phase": "ended""#),
            message: "s.json: steps[16].events[0].phase: touch 1 is not down: expected 'began', not 'ended'"),
        Case(
            name: "a touch that begins where no view is",
            text: signup(
                replacing: #""phase": "began", "x": 100, "y": 720"#, with: #""phase": "began", "x": 5000.5, "y": 720.5"#
            ),
            message: "s.json: steps[16].events[0]: touch 1 at (5000.5, 720.5) hits no view"),
        Case(
            name: "a finger left down by a touch step",
            text: signup(replacing: ",\n    " + lastStep, with: ""),
            message: "s.json: steps[17].touch: touch 2 began here and is still down at the end of the scenario; "
                + "end it with a later touch whose phase is 'ended' or 'cancelled' (every finger must be lifted, "
                + "as in a touches sequence)"),
        Case(
            name: "an unknown delegate named by the file",
            text: signup(replacing: #""delegate": "checkout.v1""#, with: #""delegate": "checkout.v7""#),
            message: "s.json: delegate: unknown delegate 'checkout.v7' "
                + "(registered: checkout.v1, checkout.v2, browser.v1, browser.v2)"),
    ]

    @Test("refused in one line naming the field, no database created", arguments: cases)
    func refusedWithoutDatabase(_ bad: Case) throws {
        let sandbox = try Sandbox()
        try sandbox.write("s.json", bad.text)
        expectError(try sandbox.run(["record", "--scenario", "s.json"]), bad.message)
        try expectEqual(sandbox.listing(), ["s.json"])
    }

    @Test("refused in one line naming the field, the database byte-identical", arguments: cases)
    func refusedWithDatabase(_ bad: Case) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        try sandbox.write("s.json", bad.text)
        expectError(try sandbox.run(["record", "--scenario", "s.json", "--format", "json"]), bad.message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions().count, 1)
    }

    @Test func theSeedRecords() throws {
        let sandbox = try Sandbox()
        try sandbox.write("s.json", Self.signup())
        let run = try sandbox.run(["record", "--scenario", "s.json"])
        #expect(run.status == 0 && run.stdout == "1\n", "\(run)")
    }

    @Test func aFileThatStartsWithAByteOrderMarkRecords() throws {
        let sandbox = try Sandbox()
        try sandbox.write("s.json", bytes: [0xEF, 0xBB, 0xBF] + Array(Self.signup().utf8))
        let run = try sandbox.run(["record", "--scenario", "s.json"])
        #expect(run.status == 0 && run.stdout == "1\n", "\(run)")
        // Replay reads the stored source, which has no mark (the signup seed has a secure text view,
        // which cannot be replayed, so the small checkout is used here).
        let checkout = try #require(sandbox.bytes(try sandbox.copyExample()))
        try sandbox.write("checkout.json", bytes: [0xEF, 0xBB, 0xBF] + Array(checkout))
        try expectEqual(sandbox.recordExample(), 2)
        let replay = try sandbox.run(["replay", "--session", "2", "--delegate", "checkout.v1"])
        expectEqual(replay.status, 0, "\(replay)")
    }
}
