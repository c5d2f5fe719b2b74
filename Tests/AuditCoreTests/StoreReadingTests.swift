import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// The small pieces replay reads with: ids looked up in arrays, repeated JSON parsed once, and a
/// stored scenario's steps stepped over.
@Suite("Store reading helpers")
struct StoreReadingTests {
    @Test func idTableKeepsSmallLargeAndNegativeIds() {
        var table = IDTable<String>()
        for id: Int64 in [0, 1, 7, 65_535, 65_536, 1 << 40, -3] { table[id] = "v\(id)" }
        for id: Int64 in [0, 1, 7, 65_535, 65_536, 1 << 40, -3] { expectEqual(table[id], "v\(id)") }
        for id: Int64 in [2, 65_534, 65_537, -1] { #expect(table[id] == nil) }
        table[7] = nil
        #expect(table[7] == nil && table[1] == "v1")
    }

    @Test func parsedJSONCacheAnswersLikeTheParserBeyondItsCapacity() {
        var cache = ParsedJSONCache()
        // More distinct texts than it keeps, each asked twice, and one that is not JSON.
        let texts = (0..<5_000).map { "[\($0),\"s\\u00e9\($0)\"]" } + ["[1,"]
        for text in texts + texts {
            let bytes = Array(text.utf8)
            let (value, echoed) = bytes.withUnsafeBytes { cache.value(of: $0) }
            expectEqual(echoed, text)
            expectEqual(value, (try? AuditValue(json: text)))
        }
    }

    @Test func aSkippedMemberIsSteppedOverWhateverItHolds() throws {
        let text = #"""
            {"name": "x", "steps": [{"a": "x\"]}[,"}, [1, {"b": "\\"}], -2.5e3, true, null], "root": {"id": 1}}
            """#
        let value = try AuditValue.parse(json: Array(text.utf8), skipping: "steps")
        expectEqual(value["steps"], .array([]))
        expectEqual(value["name"], .string("x"))
        expectEqual(value["root"]?["id"], .int(1))
        // Only a top-level member is skipped; a nested one of the same name is parsed.
        let nested = try AuditValue.parse(json: Array(#"{"a": {"steps": [1]}}"#.utf8), skipping: "steps")
        expectEqual(nested["a"]?["steps"], .array([.int(1)]))
        // A skipped value that never ends is still an error.
        #expect(throws: JSONSyntaxError.self) {
            try AuditValue.parse(json: Array(#"{"steps": [{"a": "unterminated]}"#.utf8), skipping: "steps")
        }
    }
}
