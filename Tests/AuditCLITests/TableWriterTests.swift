import AuditCore
import SharedTestSupport
import Testing

@testable import AuditCLI

/// CSV and JSON tables go out in chunks as their rows come (`search` of millions of events does
/// not hold them); text waits for every row to align its columns.
@Suite("Table writer")
struct TableWriterTests {
    /// Everything written, one string per write.
    final class Capture {
        var writes: [String] = []
        var output: Output { Output(out: { self.writes.append($0) }, error: { _ in }) }
    }

    static let rows: [[AuditValue]] = (0..<5_000).map { index in
        [.int(index), .string("checkout/payment, \"row\" \(index)"), index % 2 == 0 ? .bool(true) : .null]
    }

    @Test func csvAndJSONAreWrittenInChunksWhileRowsCome() throws {
        for format in [Format.csv, .json] {
            let capture = Capture()
            var writer = TableWriter(columns: ["n", "text", "flag"], format: format, output: capture.output)
            for row in Self.rows { writer.add(row) }
            let beforeFinish = capture.writes.count
            writer.finish()
            #expect(beforeFinish >= 2, "\(format): \(beforeFinish) writes before the end")
            #expect(capture.writes.dropLast().allSatisfy { $0.utf8.count < 65_536 + 200 })
            let text = capture.writes.joined()
            if format == .csv {
                let records = parseCSV(text)
                expectEqual(records.count, Self.rows.count + 1)
                expectEqual(records[0], ["n", "text", "flag"])
                expectEqual(records[4_001], ["4000", "checkout/payment, \"row\" 4000", "true"])
            } else {
                guard case .array(let objects) = try decodeJSON(text) else {
                    Issue.record("not a JSON array")
                    continue
                }
                expectEqual(objects.count, Self.rows.count)
                #expect(objects[4_001]["flag"] == .null && objects[4_001]["n"] == .int(4_001))
            }
        }
    }

    @Test func noRowsIsAHeaderOrAnEmptyArray() {
        for (format, expected) in [(Format.csv, "n,text\n"), (.json, "[]\n")] {
            let capture = Capture()
            var writer = TableWriter(columns: ["n", "text"], format: format, output: capture.output)
            writer.finish()
            expectEqual(capture.writes.joined(), expected)
        }
    }

    @Test func textAlignsItsColumnsOnceEveryRowIsIn() {
        let capture = Capture()
        var writer = TableWriter(columns: ["n", "name"], format: .text, output: capture.output)
        writer.add([.int(1), .string("a")])
        writer.add([.int(200), .string("bb")])
        #expect(capture.writes.isEmpty)
        writer.finish()
        expectEqual(capture.writes.joined(), "n    name\n1    a\n200  bb\n")
    }
}
