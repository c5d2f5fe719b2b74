import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `export` and `import`: JSON Lines that round-trip exactly, and refuse a damaged file whole.
@Suite("Export and import")
struct TransferTests {
    /// A database with a labelled recording, an interaction replay and an isolated replay of it.
    static func recorded() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        try sandbox.run(["record", "--scenario", "checkout.json", "--label", "device=pixel"]).expectSuccess()
        for mode in [[], ["--isolated"]] {
            try expectEqual(sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"] + mode).status, 1)
        }
        return sandbox
    }

    @Test func exportImportExportGivesTheSameBytes() throws {
        let sandbox = try Self.recorded()
        let exported = try sandbox.run(["export"])
        #expect(exported.status == 0 && exported.stderr == "", "\(exported)")
        try sandbox.write("all.jsonl", exported.stdout)
        let imported = try sandbox.run(["import", "all.jsonl", "--db", "copy.sqlite"])
        expectEqual(imported.stdout, "imported 3 sessions as 1, 2, 3\n", "\(imported)")
        try expectEqual(sandbox.run(["export", "--db", "copy.sqlite"]).stdout, exported.stdout)
        // The replays still name what they replayed; a second import changes nothing.
        let sessions = try sandbox.run(["sessions", "--db", "copy.sqlite", "--format", "csv"]).stdout
        #expect(sessions.contains("device=pixel"))
        let again = try sandbox.run(["import", "all.jsonl", "--db", "copy.sqlite"])
        expectEqual(again.stdout, "imported 0 sessions; skipped 3 already in the database\n", "\(again)")
        try expectEqual(sandbox.run(["export", "--db", "copy.sqlite"]).stdout, exported.stdout)
    }

    /// `import` reads its file a megabyte at a time: a line longer than that, and a last line
    /// without a line feed, are read whole.
    @Test func aLineLongerThanAReadAndALastLineWithoutALineFeedAreReadWhole() throws {
        let sandbox = try Self.recorded()
        let exported = try sandbox.run(["export"]).stdout
        let long = String(repeating: "0123456789abcdef", count: 200_000)  // 3.2 MB
        let edited = exported.replacingOccurrences(of: #""name":null"#, with: #""name":"\#(long)""#)
        expectEqual(edited.utf8.count, exported.utf8.count - "null".utf8.count + long.utf8.count + 2)
        try sandbox.write("long.jsonl", String(edited.dropLast()))  // no line feed at the end
        let imported = try sandbox.run(["import", "long.jsonl", "--db", "copy.sqlite"])
        expectEqual(imported.stdout, "imported 3 sessions as 1, 2, 3\n", "\(imported)")
        try expectEqual(sandbox.run(["export", "--db", "copy.sqlite"]).stdout, edited)
    }

    @Test func anImportedSessionDiffsAsIdenticalToItsOriginal() throws {
        let sandbox = try Self.recorded()
        try sandbox.run(["export", "--session", "3", "--output", "isolated.jsonl"]).expectSuccess()
        // The same database under another identity, so the import is not skipped.
        try sandbox.sqlite3("audit.sqlite", "UPDATE sessions SET uuid = lower(hex(randomblob(16))) WHERE id = 3")
        try sandbox.sqlite3(
            "audit.sqlite",
            "UPDATE sessions SET uuid = substr(uuid, 1, 8) || '-' || substr(uuid, 9, 4) || '-4' || substr(uuid, 14, 3) "
                + "|| '-a' || substr(uuid, 18, 3) || '-' || substr(uuid, 21, 12) WHERE id = 3")
        try expectEqual(sandbox.run(["import", "isolated.jsonl"]).stdout, "imported 1 session as 4\n")
        let diff = try sandbox.run(["diff", "3", "4"])
        expectEqual(diff.status, 0, "\(diff)")
        try expectEqual(sandbox.run(["diff", "1", "4"]).status, 1)
    }

    /// Ways an export gets damaged, each with what the refusal says.
    enum Damage: String, CaseIterable, Sendable {
        case cutBeforeItsEndLine, cutInsideASession, anEditedNumber, aLineOfGarbage, anUnknownField

        func apply(_ lines: [String]) -> [String] {
            switch self {
            case .cutBeforeItsEndLine: return Array(lines.dropLast())
            case .cutInsideASession: return Array(lines.prefix(40))
            case .anEditedNumber: return edit(lines, 20) { $0.replacingOccurrences(of: #""seq":"#, with: #""seq":"x"#) }
            case .aLineOfGarbage: return edit(lines, 5) { _ in "{{" }
            case .anUnknownField:
                return edit(lines, 0) {
                    $0.replacingOccurrences(of: #""type":"session","#, with: #""type":"session","extra":1,"#)
                }
            }
        }

        var message: String {
            switch self {
            case .cutBeforeItsEndLine: "the export ends before its end line"
            case .cutInsideASession: "the export ends before the last session's events"
            case .anEditedNumber: "line 21: "
            case .aLineOfGarbage: "line 6: not valid JSON: expected a field name in quotes at column 2"
            case .anUnknownField: "line 1: unknown field 'extra'"
            }
        }

        private func edit(_ lines: [String], _ index: Int, _ change: (String) -> String) -> [String] {
            lines.enumerated().map { $0.offset == index ? change($0.element) : $0.element }
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedExportIsRefusedWhole(_ damage: Damage) throws {
        let sandbox = try Self.recorded()
        let exported = try sandbox.run(["export"]).stdout
        let lines = exported.split(separator: "\n").map(String.init)
        try sandbox.write("damaged.jsonl", damage.apply(lines).joined(separator: "\n") + "\n")
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let into = try sandbox.run(["import", "damaged.jsonl"])
        expectError(into, startingWith: "damaged.jsonl: ")
        #expect(into.stderr.contains(damage.message), "\(into)")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        // Into a database that did not exist: none is left behind.
        expectError(
            try sandbox.run(["import", "damaged.jsonl", "--db", "new.sqlite"]), startingWith: "damaged.jsonl: ")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("new.sqlite")))
    }
}
