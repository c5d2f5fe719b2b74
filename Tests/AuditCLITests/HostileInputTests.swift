import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// Hostile input, each case a test: exit status 2, one clear line on stderr, and the database left
/// exactly as it was. The three tables below (scenarios, databases, queries) and the permission and
/// memory tests are the figure "hostile inputs tried and handled"; `BadInputTests` and
/// `QueryTests` hold the everyday mistakes and the escapes of the query guard.
@Suite("Hostile input: exit 2, one line, nothing changed", .tags(.slow))
struct HostileInputTests {
    // MARK: scenarios

    struct HostileScenario: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// The expected error line after `auditctl: error: s.json: ` (a prefix when `exact` is false).
        let message: String
        var exact = true
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ message: String, exact: Bool = true) {
            self.name = name
            bytes = Array(text.utf8)
            self.message = message
            self.exact = exact
        }

        init(_ name: String, bytes: [UInt8], _ message: String, exact: Bool = true) {
            self.name = name
            self.bytes = bytes
            self.message = message
            self.exact = exact
        }
    }

    static let widgets = """
        {"kind": "SegmentedControl", "id": "shipping", "segments": ["a", "b", "c"], "selected": 0},
        {"kind": "TableView", "id": "items", "rows": [2]},
        {"kind": "TextView", "id": "note"},
        {"kind": "View", "id": "pay", "gestures": [{"kind": "TapGestureRecognizer", "id": "tap"}]}
        """
    static let tap = #"{"action": "tapSegment", "widget": "checkout/shipping", "segment": 1}"#

    /// A scenario of the checkout tree above, one line, with `steps` and `children` as given.
    static func scenario(steps: String = tap, children: String = widgets, extra: String = "") -> String {
        #"{"name": "hostile", "delegate": "checkout.v1", "root": {"kind": "View", "id": "checkout", "children": ["#
            + children.replacingOccurrences(of: "\n", with: " ") + #"]}, "steps": ["# + steps + "]" + extra + "}"
    }

    static func step(_ fields: String) -> String { "{" + fields + "}" }

    /// Ends with the number: `…"segment": 1e999}]}`.
    static let outOfRange = scenario(
        steps: step(#""action": "tapSegment", "widget": "checkout/shipping", "segment": 1e999"#))

    static let scenarios: [HostileScenario] = [
        HostileScenario(
            "malformed JSON", #"{"name": "x",, "steps": []}"#,
            "line 1, column 14: invalid JSON: "
                + "expected a field name in quotes"),
        HostileScenario(
            "truncated JSON", String(scenario().prefix(90)),
            "line 1, column 91: invalid JSON: "
                + "unexpected end of input in an object"),
        HostileScenario("an empty file", "", "line 1, column 1: invalid JSON: unexpected end of input"),
        // A leading byte-order mark is skipped (ScenarioFormat): columns count from after it.
        HostileScenario(
            "a byte-order mark before malformed JSON", "\u{FEFF}{,}",
            "line 1, column 2: invalid JSON: expected a field name in quotes"),
        HostileScenario(
            "a byte-order mark after the start", " \u{FEFF}" + scenario(),
            "line 1, column 2: invalid JSON: unexpected character U+FEFF"),
        HostileScenario("the top level is an array", "[" + scenario() + "]", "top level: expected an object"),
        HostileScenario(
            "a duplicate field", #"{"name": "a", "name": "b"}"#,
            "line 1, column 15: invalid JSON: duplicate field 'name'"),
        HostileScenario(
            "JSON nested 300 deep", #"{"name": "x", "junk": "# + String(repeating: "[", count: 300),
            "line 1, column 278: invalid JSON: nested deeper than 256 levels"),
        HostileScenario(
            "a number out of range", outOfRange,
            "line 1, column \(outOfRange.utf8.count - 7): invalid JSON: number out of range"),
        // Wrong types.
        HostileScenario(
            "a string for an integer",
            scenario(steps: step(#""action": "tapSegment", "widget": "checkout/shipping", "segment": "one""#)),
            "steps[0].segment: expected an integer"),
        HostileScenario(
            "a huge integer",
            scenario(
                steps: step(
                    #""action": "tapSegment", "widget": "checkout/shipping", "segment": 99999999999999999999999"#)),
            "steps[0].segment: expected an integer"),
        HostileScenario(
            "a number for the name", #"{"name": 7, "root": {"kind": "View", "id": "r"}, "steps": []}"#,
            "name: expected a string"),
        HostileScenario(
            "an object for the steps",
            scenario().replacingOccurrences(of: #""steps": ["#, with: #""steps": {"x": ["#) + "}",
            "steps: expected an array"),
        HostileScenario(
            "a string for a frame",
            scenario(children: #"{"kind": "View", "id": "pay", "frame": "0 0 10 10"}"#, extra: "").replacingOccurrences(
                of: tap, with: ""),
            "root.children[0].frame: expected [x, y, width, height]"),
        HostileScenario(
            "a negative width",
            scenario(children: #"{"kind": "View", "id": "pay", "frame": [0, 0, -1, 10]}"#)
                .replacingOccurrences(of: tap, with: ""),
            "root.children[0].frame: width and height must not be negative"),
        // Unknown names.
        HostileScenario(
            "an unknown widget kind", scenario(children: #"{"kind": "Slider", "id": "volume"}"#),
            "root.children[0].kind: unknown widget kind 'Slider' (registered: NoteTextView, ScrollView, SegmentedControl, "
                + "TableView, TextView, View, WebView)"),
        HostileScenario(
            "an unknown gesture kind",
            scenario(children: #"{"kind": "View", "id": "pay", "gestures": [{"kind": "Swipe", "id": "s"}]}"#),
            "root.children[0].gestures[0].kind: unknown gesture kind 'Swipe'", exact: false),
        HostileScenario(
            "an unknown action", scenario(steps: step(#""action": "swipe", "widget": "checkout/shipping""#)),
            "steps[0].action: unknown action 'swipe'", exact: false),
        HostileScenario("an unknown field", scenario(extra: #", "stepz": []"#), "stepz: unknown field"),
        HostileScenario(
            "a newer format", #"{"format": 99, "name": "x", "root": {"kind": "View", "id": "r"}, "steps": []}"#,
            "format: format 99 is not supported (this build reads 1 to 1)"),
        // References to what is not there, and steps out of range.
        HostileScenario(
            "a step on a missing widget", scenario(steps: step(#""action": "beginEditing", "widget": "checkout/tip""#)),
            "steps[0].widget: no widget at 'checkout/tip'"),
        HostileScenario(
            "a step on a widget of another kind",
            scenario(
                steps: step(
                    #""action": "tapRow", "widget": "checkout/shipping", "indexPath": {"section": 0, "row": 0}"#)),
            "steps[0].widget: 'checkout/shipping' is a SegmentedControl, not a TableView"),
        HostileScenario(
            "a failure requirement on a missing recognizer",
            scenario(
                children: #"{"kind": "View", "id": "pay", "gestures": [{"kind": "TapGestureRecognizer", "id": "t", "#
                    + #""requireToFail": ["checkout/pay#nope"]}]}"#
            ).replacingOccurrences(of: tap, with: ""),
            "root.children[0].gestures[0].requireToFail[0]: no gesture recognizer at 'checkout/pay#nope'"),
        HostileScenario(
            "a segment out of range",
            scenario(steps: step(#""action": "tapSegment", "widget": "checkout/shipping", "segment": 7"#)),
            "steps[0].segment: segment 7 is out of range 0..<3"),
        HostileScenario(
            "a negative segment",
            scenario(steps: step(#""action": "tapSegment", "widget": "checkout/shipping", "segment": -5"#)),
            "steps[0].segment: segment -5 is out of range 0..<3"),
        HostileScenario(
            "a row out of range",
            scenario(
                steps: step(#""action": "tapRow", "widget": "checkout/items", "indexPath": {"section": 0, "row": 9}"#)),
            "steps[0].indexPath: ", exact: false),
        HostileScenario(
            "a text range past the end",
            scenario(
                steps: step(
                    #""action": "replaceText", "widget": "checkout/note", "range": {"location": 0, "length": 99}, "text": "x""#
                )),
            "steps[0].range: range {0, 99} lies outside the text, which is 0 UTF-16 units long"),
        HostileScenario(
            "a duplicate id",
            scenario(children: #"{"kind": "View", "id": "pay"}, {"kind": "View", "id": "pay"}"#)
                .replacingOccurrences(of: tap, with: ""),
            "root.children[1].id: duplicate id 'pay' under root"),
        // Bytes that are not text.
        HostileScenario(
            "invalid UTF-8", bytes: Array(#"{"name": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            "line 1, column 11: invalid UTF-8"),
        HostileScenario(
            "an overlong UTF-8 NUL", bytes: Array(#"{"name": ""#.utf8) + [0xC0, 0x80] + Array(#""}"#.utf8),
            "line 1, column 11: invalid UTF-8"),
        HostileScenario(
            "a NUL byte in a string", bytes: Array(#"{"name": "a"#.utf8) + [0] + Array(#"b"}"#.utf8),
            "line 1, column 12: invalid JSON: control character in a string (escape it)"),
        HostileScenario(
            "a NUL byte between values", bytes: Array(#"{"name": "a","#.utf8) + [0] + Array(#"}"#.utf8),
            "line 1, column 14: invalid JSON: expected a field name in quotes"),
        HostileScenario(
            "a NUL byte at the start", bytes: [0] + Array(scenario().utf8),
            "line 1, column 1: invalid JSON: unexpected character U+0000"),
        HostileScenario(
            "an escaped NUL in an id",
            scenario(children: #"{"kind": "View", "id": "pa\u0000y"}"#).replacingOccurrences(
                of: tap, with: ""),
            "root.children[0].id: an id is non-empty and has no '/', '#' or control characters"),
        HostileScenario(
            "a newline in an id",
            scenario(children: #"{"kind": "View", "id": "pa\ny"}"#).replacingOccurrences(
                of: tap, with: ""),
            "root.children[0].id: an id is non-empty and has no '/', '#' or control characters"),
        HostileScenario(
            "an unpaired surrogate", #"{"name": "\ud800"}"#,
            "line 1, column 17: invalid JSON: "
                + "unpaired surrogate in \\u escape"),
        // Absurd sizes.
        HostileScenario(
            "a 10 MB text step",
            scenario(
                steps: step(
                    #""action": "typeText", "widget": "checkout/note", "text": ""#
                        + String(repeating: "x", count: 10_000_000)
                        + #"""#)),
            "the file is 10000", exact: false),
        HostileScenario(
            "a 100 KB text step",
            scenario(
                steps: step(
                    #""action": "typeText", "widget": "checkout/note", "text": ""#
                        + String(repeating: "é", count: 50_000) + #"""#)),
            "steps[0].text: a string of 100000 bytes; strings are limited to 65536 bytes"),
        HostileScenario(
            "100,001 steps",
            scenario(
                steps: Array(repeating: #"{"action":"endEditing","widget":"checkout/note"}"#, count: 100_001).joined(
                    separator: ",")),
            "steps: 100001 steps; a scenario is limited to 100000 (split it into several)"),
    ]

    @Test("a hostile scenario is refused in one line and changes nothing", arguments: scenarios)
    func hostileScenario(_ scenario: HostileScenario) throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        try sandbox.write("s.json", bytes: scenario.bytes)
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let run = try sandbox.run(["record", "--scenario", "s.json"])
        if scenario.exact {
            expectError(run, "s.json: \(scenario.message)")
        } else {
            expectError(run, startingWith: "s.json: \(scenario.message)")
        }
        #expect(!run.stderr.contains("\u{0}"), "a NUL byte on stderr")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(sandbox.listing(), ["audit.sqlite", "checkout.json", "s.json"])
    }

    @Test func aDirectoryGivenAsTheScenario() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.path("s.json"), withIntermediateDirectories: false)
        expectError(
            try sandbox.run(["record", "--scenario", "s.json"]), "cannot read scenario s.json: it is a directory")
        try expectEqual(sandbox.listing(), ["s.json"])
    }

    // MARK: memory

    /// The peak resident memory of one run, in KiB, as `/usr/bin/time` measures it. `timeout` only
    /// keeps a test from hanging.
    static func peakMemory(
        _ sandbox: Sandbox, _ arguments: [String], timeout: Duration = .seconds(120)
    ) throws -> (Run, Int) {
        let report = sandbox.path("../time.txt")
        let run = try sandbox.run(
            arguments, timeout: timeout, wrapper: ["/usr/bin/time", "-o", report, "-f", "%M"])
        let text = try String(contentsOfFile: report, encoding: .utf8)
        return (run, Int(text.split(separator: "\n").last ?? "") ?? .max)
    }

    @Test(
        "a million steps are refused before the file is read, in little memory",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"))
    func aMillionSteps() throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        let steps = Array(repeating: Self.tap, count: 1_000_000).joined(separator: ",")
        try sandbox.write("s.json", Self.scenario(steps: steps))
        let size = try #require(sandbox.bytes("s.json")).count
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let (run, kilobytes) = try Self.peakMemory(sandbox, ["record", "--scenario", "s.json"])
        expectError(run, "s.json: the file is \(size) bytes; scenarios are limited to 8388608 bytes (8 MiB)")
        #expect(kilobytes < 64 * 1024, "peak RSS \(kilobytes) KiB for a \(size)-byte file")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test(
        "the costliest file the size limit lets through stays under 300 MB",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"))
    func theCostliestFileAllowed() throws {
        // One-field objects are the most memory per byte the parser holds: a dictionary each.
        let sandbox = try Sandbox()
        let count = (Scenario.maximumFileSize - Self.scenario(extra: #", "junk": []"#).utf8.count) / 8
        let junk = Array(repeating: #"{"a":1}"#, count: count).joined(separator: ",")
        try sandbox.write("s.json", Self.scenario(extra: #", "junk": ["# + junk + "]"))
        #expect(try #require(sandbox.bytes("s.json")).count <= Scenario.maximumFileSize)
        let (run, kilobytes) = try Self.peakMemory(sandbox, ["record", "--scenario", "s.json"])
        expectError(run, "s.json: junk: unknown field")
        #expect(kilobytes < 300 * 1024, "peak RSS \(kilobytes) KiB")
    }

    // MARK: databases

    struct HostileDatabase: Sendable, CustomTestStringConvertible {
        let name: String
        /// Makes `audit.sqlite` in the sandbox (the recorded example is copied in first).
        let make: @Sendable (Sandbox) throws -> Void
        let message: String
        var testDescription: String { name }
    }

    static func truncate(_ sandbox: Sandbox, to size: (Int) -> Int) throws {
        let bytes = try #require(sandbox.bytes("audit.sqlite"))
        try sandbox.write("audit.sqlite", bytes: Array(bytes.prefix(size(bytes.count))))
    }

    static let databases: [HostileDatabase] = [
        HostileDatabase(
            name: "truncated to half", make: { try truncate($0) { $0 / 2 } },
            message: "cannot open audit.sqlite: database disk image is malformed"),
        HostileDatabase(
            name: "truncated to its first page", make: { try truncate($0) { _ in 4096 } },
            message: "cannot open audit.sqlite: database disk image is malformed"),
        HostileDatabase(
            name: "truncated inside the header", make: { try truncate($0) { _ in 50 } },
            message: "cannot open audit.sqlite: file is not a database (50 bytes, shorter than a SQLite header)"),
        HostileDatabase(
            // SQLite takes it for an empty database: it was replaced by a new one.
            name: "a one-byte file", make: { try $0.write("audit.sqlite", bytes: [0x0A]) },
            message: "cannot open audit.sqlite: file is not a database (1 byte, shorter than a SQLite header)"),
        HostileDatabase(
            name: "truncated to a page and a half", make: { try truncate($0) { _ in 6144 } },
            message: "cannot open audit.sqlite: database disk image is malformed"),
        HostileDatabase(
            name: "a zero-byte file", make: { try truncate($0) { _ in 0 } },
            message: "audit.sqlite is not an auditctl database: it is an empty file (auditctl never leaves one, "
                + "so it may be a damaged copy); remove it to start a new database"),
        HostileDatabase(
            name: "SQLite's header then noise",
            make: { try $0.write("audit.sqlite", bytes: Array("SQLite format 3\u{0}".utf8) + noise(8_000)) },
            message: "cannot open audit.sqlite: file is not a database"),
        HostileDatabase(
            name: "noise", make: { try $0.write("audit.sqlite", bytes: noise(4_096)) },
            message: "cannot open audit.sqlite: file is not a database"),
        HostileDatabase(
            name: "a newer migration",
            make: {
                try $0.sqlite3("audit.sqlite", "insert into schema_migrations values (9999, 'future', 'x', 'now')")
            },
            message: "audit.sqlite was written by a newer auditctl (migration 9999 'future' is unknown to this build); "
                + "nothing was changed"),
        HostileDatabase(
            name: "a directory",
            make: { sandbox in
                try FileManager.default.removeItem(atPath: sandbox.path("audit.sqlite"))
                try FileManager.default.createDirectory(
                    atPath: sandbox.path("audit.sqlite"), withIntermediateDirectories: false)
            },
            message: "cannot open audit.sqlite: it is a directory"),
        HostileDatabase(
            name: "a FIFO",
            make: { sandbox in
                try FileManager.default.removeItem(atPath: sandbox.path("audit.sqlite"))
                guard mkfifo(sandbox.path("audit.sqlite"), 0o600) == 0 else {
                    throw SandboxError(description: "mkfifo")
                }
            },
            message: "cannot open audit.sqlite: it is not a regular file"),
    ]

    /// Deterministic bytes that are no file format.
    static func noise(_ count: Int) -> [UInt8] {
        var state: UInt32 = 2_463_534_242
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static let everyCommand: [[String]] = [
        ["record", "--scenario", "checkout.json"], ["sessions"], ["show", "--session", "1"],
        ["query", "select count(*) from events"], ["diff", "1", "1"],
        ["replay", "--session", "1", "--delegate", "checkout.v1"],
    ]

    /// What a file is, for comparing before and after: its bytes, or its kind when it has none.
    static func snapshot(_ sandbox: Sandbox) throws -> String {
        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.path("audit.sqlite"))
        let type = attributes[.type] as? FileAttributeType
        guard type == .typeRegular else { return "\(type?.rawValue ?? "?")" }
        return try #require(sandbox.bytes("audit.sqlite")).base64EncodedString()
    }

    @Test("a hostile database is refused by every command in one line and left as it was", arguments: databases)
    func hostileDatabase(_ database: HostileDatabase) throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        try database.make(sandbox)
        let before = try Self.snapshot(sandbox)
        for command in Self.everyCommand {
            expectError(try sandbox.run(command), database.message)
            try expectEqual(Self.snapshot(sandbox), before, "\(command) changed the file")
            // A read-only SQLite open may leave an empty -wal and -shm; nothing else appears.
            #expect((sandbox.bytes("audit.sqlite-wal") ?? Data()).isEmpty, "\(command)")
            try expectEqual(
                sandbox.listing().subtracting(["audit.sqlite-wal", "audit.sqlite-shm"]),
                ["audit.sqlite", "checkout.json"], "\(command)")
        }
    }
}
