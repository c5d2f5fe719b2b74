import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("AuditValue: JSON text in and out")
struct AuditValueTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> AuditValue { try AuditValue.parse(json: Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": "x\"\\\/\n\t\u00e9\ud83d\udc4d"} "#)
        expectEqual(
            value,
            .object([
                "a": .array([.int(1), .int(-2), .double(3.5), .double(1000), .bool(true), .bool(false), .null]),
                "b": .string("x\"\\/\n\té👍"),
            ]))
    }

    @Test func integersAndDoublesStayApart() throws {
        try expectEqual(parse("1"), .int(1))
        try expectEqual(parse("1.0"), .double(1))
        try expectEqual(parse("99999999999999999999"), .double(1e20))
    }

    @Test(arguments: [
        ("[1, 2,, 3]", 6, "unexpected character ','"),
        ("{\"a\": 1,}", 8, "expected a field name in quotes"),
        ("{\"a\": 1, \"a\": 2}", 9, "duplicate field 'a'"),
        ("[1] x", 4, "unexpected text after the JSON value"),
        ("\"abc", 4, "unterminated string"),
        ("01", 1, "unexpected text after the JSON value"),
        ("-", 1, "invalid number"),
        ("tru", 0, "invalid literal"),
        ("\"\\ud800\"", 7, "unpaired surrogate in \\u escape"),
        ("\"a\u{01}\"", 2, "control character in a string (escape it)"),
        ("1e999", 0, "number out of range"),
    ])
    func syntaxErrorsCarryTheirOffset(text: String, offset: Int, message: String) {
        #expect {
            try parse(text)
        } throws: { error in
            guard let error = error as? JSONSyntaxError else { return false }
            return error.offset == offset && error.message == message
        }
    }

    @Test func nestingIsBounded() {
        let deep =
            String(repeating: "[", count: AuditValue.maximumDepth + 1)
            + String(repeating: "]", count: AuditValue.maximumDepth + 1)
        #expect(throws: JSONSyntaxError.self) { try parse(deep) }
        let fine =
            String(repeating: "[", count: AuditValue.maximumDepth)
            + String(repeating: "]", count: AuditValue.maximumDepth)
        #expect(throws: Never.self) { try parse(fine) }
    }

    /// Numbers are written digit by digit into the text's bytes: as `String(_:)` writes an
    /// integer, and a double as its `description`, but a whole one below 10¹⁵ with one decimal.
    @Test func numbersAreWrittenAsSwiftWritesThem() throws {
        for integer in [0, 7, -7, 10, -10, 90_210, Int.max, Int.min, Int.min + 1] {
            expectEqual(AuditValue.int(integer).json, String(integer))
            try expectEqual(parse(AuditValue.int(integer).json), .int(integer))
        }
        let whole: [(Double, String)] = [
            (0, "0.0"), (-0.0, "0.0"), (3, "3.0"), (-3, "-3.0"), (999_999_999_999_999, "999999999999999.0"),
            (-999_999_999_999_999, "-999999999999999.0"),
        ]
        for (double, text) in whole { expectEqual(AuditValue.double(double).json, text) }
        for double in [1e15, -1e15, 0.4, -2.5, 1.0 / 3, 1e-7, .greatestFiniteMagnitude] {
            expectEqual(AuditValue.double(double).json, double.description)
            try expectEqual(parse(AuditValue.double(double).json), .double(double))
        }
    }

    @Test func encodingIsCompactSortedAndRoundTrips() throws {
        let value: AuditValue = .object([
            "z": .int(1), "a": .array([.double(2.5), .double(3), .string("q\"\u{1}"), .null, .bool(true)]),
        ])
        expectEqual(value.json, #"{"a":[2.5,3.0,"q\"\u0001",null,true],"z":1}"#)
        try expectEqual(parse(value.json), value)
    }

}
