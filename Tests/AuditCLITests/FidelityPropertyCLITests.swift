import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCLI

/// Seeded random tests for the items of issue #12 ("Fidelity") that touch the command's output:
/// streamed JSON (item 4) and one spelling for each time (item 13). Fixed seeds, so a run repeats.
@Suite("Fidelity: seeded random properties of the output", .tags(.slow))
struct FidelityPropertyCLITests {
    // MARK: Item 4: streamed JSON is the whole value's JSON

    /// The shipped checkout scenario with `count` random steps on its widgets: taps and selections
    /// on both segmented controls, taps and selections in code on the table, text typed into the
    /// coupon and the note (control, bidi and wide characters among it), and scroll offsets on the
    /// terms. As scenario file text.
    static func randomSource(seed: UInt64, count: Int) -> String {
        var random = SeededGenerator(seed: seed)
        let texts = ["SAVE10", "a\u{1}b", "\u{202E}x", "价格", "👍🏽", "\"q\"\\", "line\nnext", "", "\u{2028}"]
        let steps = (0..<count).map { _ -> String in
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                let widget = Bool.random(using: &random) ? "checkout/shipping" : "checkout/payment"
                let segment = Int.random(in: 0..<3, using: &random)
                guard Bool.random(using: &random) else {
                    return #"{"action":"tapSegment","widget":"\#(widget)","segment":\#(segment)}"#
                }
                let notify = Bool.random(using: &random)
                return #"{"action":"selectSegment","widget":"\#(widget)","segment":\#(segment),"notify":\#(notify)}"#
            case 2:
                let section = Int.random(in: 0..<2, using: &random)
                let row = Int.random(in: 0..<(section == 0 ? 3 : 1), using: &random)
                let action = ["tapRow", "tapRow", "selectRow", "deselectRow"].randomElement(using: &random)!
                return
                    #"{"action":"\#(action)","widget":"checkout/items","indexPath":{"section":\#(section),"row":\#(row)}}"#
            case 3, 4:
                let widget = Bool.random(using: &random) ? "checkout/coupon" : "checkout/note"
                let text = AuditValue.string(texts.randomElement(using: &random)!).json
                return #"""
                    {"action":"beginEditing","widget":"\#(widget)"},
                    {"action":"typeText","widget":"\#(widget)","text":\#(text)},
                    {"action":"endEditing","widget":"\#(widget)"}
                    """#
            default:
                let y = Int.random(in: -50...600, using: &random)
                return #"{"action":"setContentOffset","widget":"checkout/terms","contentOffset":{"x":0,"y":\#(y)}}"#
            }
        }
        let example = String(decoding: Examples.scenarios["checkout"]!, as: UTF8.self)
        let start = example.range(of: "\"steps\": [")!
        return example[..<start.upperBound] + steps.joined(separator: ",\n") + "]\n}\n"
    }

    /// For random sessions of 0 to 60 steps, recorded with checkout.v1 and checkout.v2: `show` and
    /// `diff` write, chunk by chunk, exactly the JSON of the whole value (built as the commands
    /// built it before they streamed; see `StreamedJSONTests`).
    @Test func streamedShowAndDiffAreTheWholeValuesJSON() throws {
        var random = SeededGenerator(seed: 0x57_0004)
        for _ in 0..<12 {
            let seed = random.next()
            let count = Int.random(in: 0...60, using: &random)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "fidelity-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appendingPathComponent("audit.sqlite").path
            let scenario = try Scenario(data: Data(Self.randomSource(seed: seed, count: count).utf8), catalog: .builtIn)
            for delegate in ["checkout.v1", "checkout.v2"] {
                _ = try ScenarioRunner.record(scenario, delegate: delegate, registry: .examples, databasePath: database)
            }
            let store = try AuditStore(path: database, access: .read)
            for session in [Int64(1), 2] {
                let capture = StreamedJSONTests.Capture()
                try Command.showSession(session, database, .json, capture.output)
                let whole = AuditValue.object([
                    "session": Command.sessionValue(try store.session(session)),
                    "events": .array(try store.timeline(of: session).map(Command.eventValue)),
                ])
                expectEqual(
                    capture.writes.joined(), whole.json + "\n", "seed \(seed), \(count) steps, session \(session)")
            }
            for (a, b) in [(Int64(1), Int64(2)), (2, 1), (1, 1)] {
                let diff = try SessionDiffer(store).diff(a, b)
                let comparison = try SessionDiffer(store).compare(a, b)
                let capture = StreamedJSONTests.Capture()
                try Command.writeJSON(
                    identical: comparison.identical, DifferenceOutput.summary(comparison), to: capture.output
                ) { body throws(StoreError) in try SessionDiffer(store).forEachDifference(in: comparison, body) }
                let whole = orderedJSON([
                    ("identical", .bool(diff.identical)),
                    ("differences", .array(diff.differences.map(DifferenceOutput.json))),
                    ("summary", DifferenceOutput.summary(diff)),
                ])
                expectEqual(capture.writes.joined(), whole + "\n", "seed \(seed), \(count) steps, diff \(a) \(b)")
            }
        }
    }

    /// The same through the real process: `auditctl show --format json` and `diff --format json`
    /// print the whole value's JSON and exit as they should.
    @Test func theCommandPrintsTheWholeValuesJSON() throws {
        var random = SeededGenerator(seed: 0x57_1004)
        for _ in 0..<3 {
            let sandbox = try Sandbox()
            let count = Int.random(in: 1...40, using: &random)
            try sandbox.write("random.json", Self.randomSource(seed: random.next(), count: count))
            for delegate in ["checkout.v1", "checkout.v2"] {
                let run = try sandbox.run(["record", "--scenario", "random.json", "--delegate", delegate])
                expectEqual(run.status, 0, "\(run)")
            }
            let database = sandbox.path("audit.sqlite")
            let store = try AuditStore(path: database, access: .read)
            let show = try sandbox.run(["show", "--session", "2", "--format", "json"])
            let whole = AuditValue.object([
                "session": Command.sessionValue(try store.session(2)),
                "events": .array(try store.timeline(of: 2).map(Command.eventValue)),
            ])
            #expect(show.status == 0 && show.stderr.isEmpty && show.stdout == whole.json + "\n", "\(show)")
            let diff = try SessionDiffer(store).diff(1, 2)
            let run = try sandbox.run(["diff", "1", "2", "--format", "json"])
            let expected = orderedJSON([
                ("identical", .bool(diff.identical)),
                ("differences", .array(diff.differences.map(DifferenceOutput.json))),
                ("summary", DifferenceOutput.summary(diff)),
            ])
            #expect(run.status == (diff.identical ? 0 : 1) && run.stdout == expected + "\n", "\(run)")
        }
    }

    // MARK: Item 13: one spelling for each time

    /// A count of microseconds as text output writes milliseconds: three decimals, by integer
    /// arithmetic (the model).
    static func spelling(microseconds: Int) -> String {
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// However a time in milliseconds was reached in floating point — divided once, added up from
    /// two parts, from nanoseconds — text output spells it one way, the model's.
    @Test func aTimeHasOneSpellingHoweverItsDoubleWasReached() throws {
        var random = SeededGenerator(seed: 0x71_0013)
        for _ in 0..<20_000 {
            let microseconds = Int.random(
                in: 0...(Bool.random(using: &random) ? 10_000 : 1_000_000_000_000), using: &random)
            let part = Int.random(in: 0...microseconds, using: &random)
            let expected = Self.spelling(microseconds: microseconds)
            let ways = [
                Double(microseconds) / 1000, Double(part) / 1000 + Double(microseconds - part) / 1000,
                Double(microseconds * 1000) / 1_000_000, Double(microseconds) * 0.001,
            ]
            for value in ways {
                expectEqual(Table.time(value), expected, "\(microseconds) µs as \(value)")
                expectEqual(Table.terminalText(.double(value), column: "t_ms"), expected)
            }
        }
        for special in [Double.nan, .infinity, -.infinity] {
            let text = Table.time(special)
            try expectEqual(AuditValue(json: text), .double(special))
        }
    }

    /// Through the real process: a recorded session whose events are given random times in
    /// nanoseconds (none half a microsecond from a rounding step) prints each, in `show`, as the
    /// model rounds it to the microsecond.
    @Test func showPrintsEachRandomTimeAsTheModelRoundsIt() throws {
        var random = SeededGenerator(seed: 0x71_1013)
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let store = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read)
        let events = try store.timeline(of: 1).count
        var times: [Int] = []
        for _ in 0..<events {
            var nanoseconds = Int.random(in: 0...(1 << 48), using: &random) >> Int.random(in: 0...40, using: &random)
            if nanoseconds % 1000 == 500 { nanoseconds += 1 }
            times.append(nanoseconds)
        }
        let updates = times.enumerated().map { "UPDATE events SET t_ns = \($1) WHERE seq = \($0 + 1);" }
        try sandbox.sqlite3("audit.sqlite", updates.joined(separator: "\n"))
        let show = try sandbox.run(["show", "--session", "1"])
        expectEqual(show.status, 0, "\(show)")
        let lines = show.stdoutLines.dropFirst().filter { !$0.isEmpty }
        expectEqual(lines.count, events)
        for line in lines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 2, let seq = Int(fields[0]), times.indices.contains(seq - 1) else {
                Issue.record("unexpected line \(line)")
                continue
            }
            let nanoseconds = times[seq - 1]
            let microseconds = nanoseconds / 1000 + (nanoseconds % 1000 > 500 ? 1 : 0)
            expectEqual(fields[1], Self.spelling(microseconds: microseconds)[...], "\(nanoseconds) ns: \(line)")
            expectEqual(fields[2], "ms")
        }
    }
}
