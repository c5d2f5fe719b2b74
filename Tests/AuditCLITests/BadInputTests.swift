import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// Bad input of every kind: exit status 2, one line on stderr, and nothing changed on disk.
@Suite("auditctl bad input")
struct BadInputTests {
    // MARK: scenarios

    struct BadScenario: Sendable, CustomTestStringConvertible {
        let name: String
        /// The file's bytes, or nil for a file that does not exist.
        let bytes: [UInt8]?
        let arguments: [String]
        let message: String
        var testDescription: String { name }

        init(_ name: String, _ text: String?, arguments: [String] = [], _ message: String) {
            self.name = name
            bytes = text.map { Array($0.utf8) }
            self.arguments = arguments
            self.message = message
        }

        init(_ name: String, bytes: [UInt8], _ message: String) {
            self.name = name
            self.bytes = bytes
            arguments = []
            self.message = message
        }
    }

    /// The example with one field replaced.
    static func example(replacing old: String = "", with new: String = "") -> String {
        let url = Sandbox.packageRoot.appendingPathComponent("Examples/checkout.json")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        guard !old.isEmpty else { return text }
        precondition(text.contains(old), "Examples/checkout.json no longer contains \(old)")
        return text.replacingOccurrences(of: old, with: new)
    }

    static let secondStep = #"{ "action": "tapSegment", "widget": "checkout/payment", "segment": 2 }"#

    static let scenarios: [BadScenario] = [
        BadScenario("missing file", nil, "cannot read scenario s.json: "),
        BadScenario(
            "JSON syntax", "{\n  \"name\": \"x\",\n  \"root\": {,\n}", "s.json: line 3, column 12: invalid JSON"),
        // Columns count characters, not bytes.
        BadScenario(
            "JSON syntax after non-ASCII text", "{\"name\": \"ééé\", x}", "s.json: line 1, column 17: invalid JSON"),
        BadScenario("invalid UTF-8", bytes: [0x7B, 0x0A, 0x20, 0xFF, 0x7D], "s.json: line 2, column 2: invalid UTF-8"),
        BadScenario(
            "wrong field type",
            example(replacing: secondStep, with: secondStep.replacingOccurrences(of: "2 }", with: "\"two\" }")),
            "s.json: steps[1].segment: expected an integer"),
        BadScenario(
            "segment out of range",
            example(replacing: secondStep, with: secondStep.replacingOccurrences(of: "2 }", with: "7 }")),
            "s.json: steps[1].segment: segment 7 is out of range 0..<3"),
        BadScenario(
            "unknown action",
            example(replacing: secondStep, with: secondStep.replacingOccurrences(of: "tapSegment", with: "swipe")),
            "s.json: steps[1].action: unknown action 'swipe' for a SegmentedControl (it takes: ask, "
                + "selectSegment, tapSegment, touch, touches)"),
        BadScenario(
            "widget that does not exist",
            example(
                replacing: secondStep,
                with: secondStep.replacingOccurrences(of: "checkout/payment", with: "checkout/tip")),
            "s.json: steps[1].widget: no widget at 'checkout/tip'"),
        BadScenario(
            "misspelt field", example(replacing: "\"steps\"", with: "\"stepz\""),
            "s.json: steps: missing required field"),
        BadScenario("not an object", "[1, 2]", "s.json: top level: expected an object"),
        BadScenario(
            "unknown delegate", example(), arguments: ["--delegate", "nope"],
            "unknown delegate 'nope' (registered: checkout.v1, checkout.v2, browser.v1, browser.v2)"),
        BadScenario(
            "unknown delegate named in the file", example(replacing: "\"checkout.v1\"", with: "\"checkout.v9\""),
            "s.json: delegate: unknown delegate 'checkout.v9' "
                + "(registered: checkout.v1, checkout.v2, browser.v1, browser.v2)"),
    ]

    @Test("a bad scenario records nothing and creates no database", arguments: scenarios)
    func badScenarioWithoutDatabase(_ scenario: BadScenario) throws {
        let sandbox = try Sandbox()
        if let bytes = scenario.bytes { try sandbox.write("s.json", bytes: bytes) }
        let run = try sandbox.run(["record", "--scenario", "s.json"] + scenario.arguments)
        expectError(run, startingWith: scenario.message)
        #expect(!sandbox.exists("audit.sqlite"), "the database was created")
        try expectEqual(sandbox.listing(), (scenario.bytes == nil ? [] : ["s.json"]))
    }

    @Test("a bad scenario leaves an existing database byte-identical", arguments: scenarios)
    func badScenarioWithDatabase(_ scenario: BadScenario) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        if let bytes = scenario.bytes { try sandbox.write("s.json", bytes: bytes) }
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let run = try sandbox.run(["record", "--scenario", "s.json", "--format", "json"] + scenario.arguments)
        expectError(run, startingWith: scenario.message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        #expect(!sandbox.exists("audit.sqlite-wal"))
        try expectEqual(AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions().count, 1)
    }

    @Test(
        "a truncated or empty scenario is reported with its line and column",
        arguments: [("{\"name\": \"a\"", "line 1, column 13"), ("", "line 1, column 1"), ("{\n", "line 2, column 1")])
    func truncatedScenario(text: String, position: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write("s.json", text)
        let run = try sandbox.run(["record", "--scenario", "s.json"])
        #expect(!sandbox.exists("audit.sqlite"))
        expectError(run, startingWith: "s.json: \(position): invalid JSON")
    }

    // MARK: databases

    @Test func unknownSession() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        for format in ["text", "json", "csv"] {
            expectError(
                try sandbox.run(["show", "--session", "2", "--format", format]),
                "no session 2 in the database (auditctl sessions lists them)")
        }
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    /// The stall test hook misspelt: refused before anything runs, not ignored (a test would then
    /// race the recording it means to stall).
    @Test(arguments: ["soon", "-5", "1e5"])
    func aStallHookThatIsNoEventNumberIsRefused(value: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(
            try sandbox.run(["sessions"], environment: ["AUDITCTL_TEST_STALL_AFTER_EVENT": value]),
            "AUDITCTL_TEST_STALL_AFTER_EVENT takes an event number, not '\(value)'")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    /// The queue test hook misspelt or zero: refused before anything runs, not ignored (a test
    /// would then record with the default queue, and its stall could come before any commit).
    @Test(arguments: ["small", "0", "-512"])
    func aQueueHookThatIsNoPositiveNumberIsRefused(value: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(
            try sandbox.run(
                ["record", "--scenario", "checkout.json"], environment: ["AUDITCTL_TEST_QUEUE_CAPACITY": value]),
            "AUDITCTL_TEST_QUEUE_CAPACITY takes a number of events, not '\(value)'")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    static let everyCommand: [[String]] = [
        ["record", "--scenario", "checkout.json"], ["sessions"], ["show", "--session", "1"], ["query", "select 1"],
        ["demo"], ["explore", "--scenario", "checkout.json", "--candidate", "checkout.v2"],
    ]

    @Test("a file that is not a database is refused and left alone", arguments: everyCommand)
    func notADatabase(command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        let text = "these are my notes, not a database\n" + String(repeating: "x", count: 5000)
        try sandbox.write("notes.txt", text)
        expectError(try sandbox.run(command + ["--db", "notes.txt"]), "cannot open notes.txt: file is not a database")
        expectEqual(sandbox.bytes("notes.txt"), Data(text.utf8))
        try expectEqual(sandbox.listing(), ["checkout.json", "notes.txt"])
    }

    @Test("another application's SQLite database is refused and left alone", arguments: everyCommand)
    func foreignDatabase(command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        try sandbox.sqlite3("other.sqlite", "create table notes (text); insert into notes values ('keep me');")
        let before = try #require(sandbox.bytes("other.sqlite"))
        expectError(
            try sandbox.run(command + ["--db", "other.sqlite"]),
            "other.sqlite is not an auditctl database: it has tables but no schema_migrations")
        expectEqual(sandbox.bytes("other.sqlite"), before)
        try expectEqual(sandbox.listing(), ["checkout.json", "other.sqlite"])
    }

    struct Tampering: Sendable, CustomTestStringConvertible {
        let name: String
        let sql: String
        let message: String
        var testDescription: String { name }
    }

    static let tamperings: [Tampering] = [
        Tampering(
            name: "newer build", sql: "insert into schema_migrations values (9999, 'future', 'abc', 'now')",
            message: "audit.sqlite was written by a newer auditctl (migration 9999 'future' is unknown to this build); "
                + "nothing was changed"),
        Tampering(
            name: "edited migration", sql: "update schema_migrations set sha256 = 'edited' where version = 1",
            message:
                "audit.sqlite holds migration 1 'initial' with a different checksum than this build's; nothing was changed"
        ),
    ]

    @Test("a database this build does not know is refused by every command, byte for byte", arguments: tamperings)
    func unknownMigrations(_ tampering: Tampering) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.sqlite3("audit.sqlite", tampering.sql)
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let listing = try sandbox.listing()
        for command in Self.everyCommand + [
            ["show", "--session", "1", "--format", "json"], ["sessions", "--format", "csv"],
        ] {
            expectError(try sandbox.run(command), tampering.message)
            expectEqual(sandbox.bytes("audit.sqlite"), before, "\(command) changed the database")
            #expect((sandbox.bytes("audit.sqlite-wal") ?? Data()).isEmpty, "\(command) wrote to the WAL")
            #expect(try sandbox.listing().subtracting(listing).isSubset(of: ["audit.sqlite-wal", "audit.sqlite-shm"]))
        }
    }

    @Test func unwritableDatabaseLocation() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        let run = try sandbox.run(["record", "--scenario", "checkout.json", "--db", "no/such/dir/audit.sqlite"])
        expectError(run, "cannot open no/such/dir/audit.sqlite: its directory does not exist")
        try expectEqual(sandbox.listing(), ["checkout.json"])
    }
}
