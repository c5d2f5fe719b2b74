import AuditCLI
import AuditCore
import CSQLite
import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditExamples

/// Error lines a person can read (issue 32): what went wrong in words, never a type's debug
/// description or the store's own SQL; exit status 2 and the database unchanged.
@Suite("Error lines say what is wrong in words")
struct ErrorLineTests {
    // MARK: a truncated export

    /// `head -c N export.jsonl`: the line cut is named, in words, whichever line it is and
    /// wherever in it the cut falls (a session line, a widget's, an event's).
    @Test(arguments: [1_000, 3_000, 6_000, 9_000])
    func aTruncatedExportNamesTheLineCutShort(bytes: Int) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.recordExample(delegate: "checkout.v2")
        let exported = Data(try sandbox.run(["export"]).stdout.utf8)
        try #require(exported.count > bytes)
        let cut = exported.prefix(bytes)
        let line = cut.filter { $0 == UInt8(ascii: "\n") }.count + 1
        try #require(cut.last != UInt8(ascii: "\n"), "the cut falls between lines")
        try sandbox.write("cut.jsonl", bytes: Array(cut))
        try sandbox.run(["demo", "--db", "other.sqlite"]).expectSuccess()
        let before = try #require(sandbox.bytes("other.sqlite"))
        let run = try sandbox.run(["import", "cut.jsonl", "--db", "other.sqlite"])
        expectError(run, startingWith: "cut.jsonl: line \(line): not valid JSON: the line is cut short (")
        #expect(run.stderr.hasSuffix(" at its end); nothing was imported\n"), "\(run)")
        #expect(!run.stderr.contains("JSONSyntaxError"), "\(run)")
        if bytes == 1_000 {  // the example the reference gives: inside the session's scenario
            expectEqual(
                run.stderr,
                "auditctl: error: cut.jsonl: line 1: not valid JSON: the line is cut short (unterminated string at its end); nothing was imported\n"
            )
        }
        expectEqual(sandbox.bytes("other.sqlite"), before)
    }

    @Test func aLineThatIsNotJSONSaysWhereInWords() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        var lines = try sandbox.run(["export"]).stdout.split(separator: "\n").map(String.init)
        lines[2] = #"{"type":"widget","id":1,x}"#
        try sandbox.write("bad.jsonl", lines.joined(separator: "\n") + "\n")
        expectError(
            try sandbox.run(["import", "bad.jsonl", "--db", "new.sqlite"]),
            "bad.jsonl: line 3: not valid JSON: expected a field name in quotes at column 25; nothing was imported")
        #expect(!sandbox.exists("new.sqlite"))
    }

    // MARK: numbers out of range

    struct OutOfRange: Sendable, CustomTestStringConvertible {
        let name: String
        let gesture: String
        let message: String
        var testDescription: String { name }
    }

    /// The sign of a field that cannot be negative is judged before its size: -2e7 is told what -1
    /// is told.
    static let outOfRange: [OutOfRange] = [
        OutOfRange(
            name: "a press duration of -1",
            gesture: #""kind": "LongPressGestureRecognizer", "id": "g", "minimumPressDuration": -1"#,
            message: "root.gestures[0].minimumPressDuration: must not be negative"),
        OutOfRange(
            name: "a press duration of -2e7",
            gesture: #""kind": "LongPressGestureRecognizer", "id": "g", "minimumPressDuration": -2e7"#,
            message: "root.gestures[0].minimumPressDuration: must not be negative"),
        OutOfRange(
            name: "a press duration of 2e7",
            gesture: #""kind": "LongPressGestureRecognizer", "id": "g", "minimumPressDuration": 2e7"#,
            message: "root.gestures[0].minimumPressDuration: must be at most 10000000"),
        OutOfRange(
            name: "an allowable movement of -20000000",
            gesture: #""kind": "TapGestureRecognizer", "id": "g", "allowableMovement": -20000000"#,
            message: "root.gestures[0].allowableMovement: must not be negative"),
        OutOfRange(
            name: "a minimum translation of -1e300",
            gesture: #""kind": "PanGestureRecognizer", "id": "g", "minimumTranslation": -1e300"#,
            message: "root.gestures[0].minimumTranslation: must not be negative"),
    ]

    @Test(arguments: outOfRange)
    func aGestureFieldOutOfRangeIsToldWhy(_ field: OutOfRange) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.write(
            "s.json",
            #"{"name": "g", "delegate": "checkout.v1", "root": {"kind": "View", "id": "root", "gestures": [{"#
                + field.gesture + "}]}, \"steps\": []}")
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(try sandbox.run(["record", "--scenario", "s.json"]), "s.json: \(field.message)")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    /// The example ScenarioFormat gives of a velocity out of range.
    @Test func aVelocityOutOfRangeNamesItsMember() throws {
        let sandbox = try Sandbox()
        let steps = [
            #"{"action": "beginDrag", "widget": "s"}"#,
            #"{"action": "drag", "widget": "s", "translation": {"x": 0, "y": 5}}"#,
            #"{"action": "drag", "widget": "s", "translation": {"x": 0, "y": 5}}"#,
            #"{"action": "endDrag", "widget": "s", "velocity": {"x": 2e7, "y": 0}}"#,
        ]
        try sandbox.write(
            "s.json",
            #"{"name": "v", "delegate": "checkout.v1", "root": {"kind": "ScrollView", "id": "s", "contentSize": [100, 900]}, "#
                + #""steps": ["# + steps.joined(separator: ", ") + "]}")
        expectError(
            try sandbox.run(["record", "--scenario", "s.json"]),
            "s.json: steps[3].velocity.x: must be between -10000000 and 10000000")
        #expect(!sandbox.exists("audit.sqlite"))
    }

    // MARK: a full disk

    /// Runs `auditctl arguments` in this process, where a store fault can be injected.
    static func run(_ arguments: [String]) -> (status: Int32, out: String, error: String) {
        let lines = Mutex<(out: String, error: String)>(("", ""))
        let output = Output(
            out: { text in lines.withLock { $0.out += text } }, error: { text in lines.withLock { $0.error += text } })
        let status = AuditCommandLine(registry: .examples, catalog: .builtIn).run(arguments, output: output)
        return lines.withLock { (status, $0.out, $0.error) }
    }

    /// The commands that write a database, each meeting a full disk at its first write.
    static let writingCommands: [[String]] = [
        ["replay", "--session", "1", "--delegate", "checkout.v2", "--isolated"],
        ["prune", "--keep-last", "1", "--with-replays"],
        ["merge", "source.sqlite", "--into", "audit.sqlite"],
        ["import", "export.jsonl"],
    ]

    /// SQLite's message alone: the statement that met the full disk is the store's, not the
    /// person's (issue 32: an INSERT, with a run of 22 spaces, was printed in the error line).
    @Test(arguments: writingCommands)
    func aFullDiskIsOneLineWithoutTheStoresSQL(_ command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.recordExample()
        try sandbox.recordExample(database: "source.sqlite", delegate: "checkout.v2")
        try sandbox.write("export.jsonl", try sandbox.run(["export", "--db", "source.sqlite"]).stdout)
        let database = sandbox.path("audit.sqlite")
        let sessions = try sandbox.run(["sessions", "--format", "csv"]).stdout
        StoreFaults.inject(SQLITE_FULL, at: database)
        defer { StoreFaults.clear(database) }
        let run = Self.run(
            command.map { $0.hasSuffix(".sqlite") || $0.hasSuffix(".jsonl") ? sandbox.path($0) : $0 }
                + (command.contains("--into") ? [] : ["--db", database]))
        StoreFaults.clear(database)
        expectEqual(run.status, 2, "\(run)")
        expectEqual(run.out, "")
        #expect(run.error.hasPrefix("auditctl: error: ") && run.error.contains("database or disk is full"), "\(run)")
        expectEqual(run.error.filter { $0 == "\n" }.count, 1, "\(run)")
        #expect(!run.error.contains("(in:") && !run.error.contains("  "), "\(run)")
        #expect(StoreFaults.failures(at: database) > 0, "the command met no full disk")
        try expectEqual(sandbox.run(["sessions", "--format", "csv"]).stdout, sessions)
    }

    /// `query` quotes the statement it was given: that SQL is the person's own.
    @Test func aFailedQueryStillQuotesItsOwnStatement() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        expectError(
            try sandbox.run(["query", "select nosuchcolumn from sessions"]),
            "no such column: nosuchcolumn (in: select nosuchcolumn from sessions)")
    }
}
