import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCLI

/// Every `--format csv` output reads back, with a strict RFC 4180 reader (`readCSV`), as the records
/// and fields that were written, whatever control characters a field holds: a field with CR LF
/// split its row into three.
@Suite("CSV output: every control character, read back")
struct CSVOutputTests {
    /// Each control character (general category Cc: U+0000–U+001F, U+007F–U+009F) alone.
    static let controls =
        (0x00...0x1F).map { Unicode.Scalar(UInt8($0)) } + (0x7F...0x9F).map { Unicode.Scalar(UInt8($0)) }

    /// Letters around every control character, then CR LF, a quote and a comma.
    static let hostile = "f" + String(String.UnicodeScalarView(controls)) + "\r\n\",g"
    /// `hostile`, as SQLite's SQL writes it.
    static let hostileSQL =
        "'f' || char(" + controls.map { String($0.value) }.joined(separator: ",") + ") || char(13, 10) || '\",g'"

    // MARK: the quoting function

    @Test("a field holding a control character reads back whole", arguments: controls.map { String($0) } + ["\r\n"])
    func aFieldWithAControlCharacter(_ control: String) throws {
        let field = "a\(control)b"
        let csvField = Table.csvField(field)
        #expect(csvField.hasPrefix("\"") && csvField.hasSuffix("\""), "\(field.debugDescription) is quoted")
        let records = try readCSV("x,y\n\(csvField),1\n")
        expectEqual(records, [["x", "y"], [field, "1"]])
    }

    @Test func quotesAreDoubledByCodePoint() throws {
        // A quote followed by a combining mark is one Character, not a quote: still doubled.
        for field in ["a\"\u{301}b", "\"\r\n\"", "\"", "a,b", "\u{0}"] {
            try expectEqual(readCSV(Table.csvField(field) + "\n"), [[field]], "\(field.debugDescription)")
        }
        // Anything else is written as it is.
        for field in ["plain", "e\u{301} 价格 👍", "tab-free", ""] { expectEqual(Table.csvField(field), field) }
    }

    @Test func theReaderIsStrict() throws {
        try expectEqual(readCSV("a,b\r\nc,d\ne\rf"), [["a", "b"], ["c", "d"], ["e"], ["f"]])
        try expectEqual(readCSV("\"a\r\nb\",\"\"\"\"\n"), [["a\r\nb", "\""]])
        for text in ["a\"b\n", "\"a\"b\n", "\"a\n"] {
            #expect(throws: CSVSyntaxError.self, "\(text.debugDescription)") { try readCSV(text) }
        }
    }

    // MARK: every command

    /// A recorded example whose session's name and scenario, and the widget `checkout/payment`,
    /// hold `hostile` (after the name, the scenario's name and the widget's id).
    static func hostileDatabase() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.sqlite3(
            "audit.sqlite",
            """
            UPDATE sessions SET name = 'n' || \(hostileSQL), scenario = 'checkout' || \(hostileSQL);
            UPDATE widgets SET path = path || \(hostileSQL) WHERE path = 'checkout/payment';
            """)
        return sandbox
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        /// A column of the output and a value one of its rows must hold.
        let column: String
        let value: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let widget = "checkout/payment" + hostile
    static let cases = [
        Case(arguments: ["sessions"], column: "name", value: "n" + hostile),
        Case(arguments: ["sessions"], column: "scenario", value: "checkout" + hostile),
        Case(arguments: ["show", "--session", "1"], column: "widget", value: widget),
        Case(arguments: ["search", "--session", "1"], column: "widget", value: widget),
        Case(arguments: ["report", "--session", "1"], column: "widget", value: widget),
        Case(arguments: ["coverage", "--session", "1"], column: "widget", value: widget),
        Case(arguments: ["query", "select \(hostileSQL) as v"], column: "v", value: hostile),
        // A column name: every control character but NUL, which an argument cannot hold.
        Case(
            arguments: [
                "query",
                "select 1 as \""
                    + hostile.replacingOccurrences(of: "\u{0}", with: "")
                    .replacingOccurrences(of: "\"", with: "\"\"") + "\"",
            ],
            column: hostile.replacingOccurrences(of: "\u{0}", with: ""), value: "1"),
        // Declared in Swift, so no control character: still records of one width.
        Case(arguments: ["callbacks"], column: "arguments", value: "range, replacementText"),
    ]

    @Test(arguments: cases)
    func everyCSVCommandReadsBack(_ test: Case) throws {
        let sandbox = try Self.hostileDatabase()
        let run = try sandbox.run(test.arguments + ["--format", "csv"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        try Self.expectRecords(run.stdout, test.column, test.value)
    }

    /// `delegates` lists a registry's names and summaries: one of the runner's own may hold anything.
    @Test func delegatesReadBack() throws {
        var registry = DelegateRegistry.examples
        registry.register("d" + Self.hostile, summary: "s" + Self.hostile) { NSObject() }
        var written = ""
        let output = Output(out: { written += $0 }, error: { Issue.record("stderr: \($0)") })
        let status = AuditCommandLine(registry: registry, catalog: .builtIn)
            .run(["delegates", "--format", "csv"], output: output)
        expectEqual(status, 0)
        try Self.expectRecords(written, "name", "d" + Self.hostile)
        try Self.expectRecords(written, "summary", "s" + Self.hostile)
    }

    /// `text` reads as records of the header's width, one of whose `column` is `value`.
    static func expectRecords(
        _ text: String, _ column: String, _ value: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let records = try readCSV(text)
        let header = try #require(records.first, sourceLocation: sourceLocation)
        #expect(records.count > 1, sourceLocation: sourceLocation)
        #expect(
            records.allSatisfy { $0.count == header.count }, "widths \(Set(records.map(\.count)))",
            sourceLocation: sourceLocation)
        let index = try #require(header.firstIndex(of: column), "\(header)", sourceLocation: sourceLocation)
        #expect(
            records.dropFirst().contains { $0[index] == value }, "no \(column) \(value.debugDescription)",
            sourceLocation: sourceLocation)
    }
}
