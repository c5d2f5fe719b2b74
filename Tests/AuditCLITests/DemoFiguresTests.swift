import Foundation
import SharedTestSupport
import Testing

/// What the README and the articles quote of the demo and of the shipped example is what they
/// print today (issue 32: the Replay modes article said v2's interaction replay gives "38
/// differences" when the demo printed 37). The quoted output, the transcripts of commands on
/// the shipped example and the figures in the prose are each checked against a fresh run.
@Suite("Articles quote the demo's own figures")
struct DemoFiguresTests {
    /// The plain fenced blocks (no language: output and transcripts) of every document.
    static func outputBlocks() throws -> [(document: String, lines: [String])] {
        var blocks: [(document: String, lines: [String])] = []
        for document in try ReadmeSampleTests.documents() {
            let text = try String(contentsOf: ReadmeSampleTests.root.appending(path: document), encoding: .utf8)
            var open: (plain: Bool, lines: [String])?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") {
                    if let block = open {
                        if block.plain { blocks.append((document, block.lines)) }
                        open = nil
                    } else {
                        open = (line == "```", [])
                    }
                } else {
                    open?.lines.append(String(line))
                }
            }
        }
        return blocks
    }

    /// Whether `line` stands for lines left out (`…`, `...`).
    static func isElision(_ line: String) -> Bool {
        ["…", "..."].contains(line.trimmingCharacters(in: .whitespaces))
    }

    /// A line as compared: a duration (`4.517 ms`, `0.032 s`), which differs from run to run,
    /// reads as `#`.
    static func masked(_ line: some StringProtocol) -> String {
        String(line).replacing(/\d+\.\d+ (ms|s)\b/, with: "#")
    }

    /// Checks that every quoted line (elisions aside) is a line of `output`, in the same order.
    static func expectQuoted(
        _ quoted: [String], in output: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var remaining = output.split(separator: "\n", omittingEmptySubsequences: false).map(masked)[...]
        for line in quoted where !isElision(line) {
            guard let found = remaining.firstIndex(of: masked(line)) else {
                Issue.record(
                    "\(what) quotes a line it does not print (or not in this order):\n\(line)\nit printed:\n\(output)",
                    sourceLocation: sourceLocation)
                return
            }
            remaining = remaining[(found + 1)...]
        }
    }

    /// The demo's report, `show`'s timeline of its recording, and the isolated replay of it.
    struct Demo {
        let report: String
        let timeline: String
        let isolated: String

        init() throws {
            let sandbox = try Sandbox()
            let demo = try sandbox.run(["demo"])
            expectEqual(demo.status, 0, "\(demo)")
            report = demo.stdout
            timeline = try sandbox.run(["show", "--session", "1"]).stdout
            isolated = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--isolated"]).stdout
        }

        /// The differences a report counts (`REGRESSION: 37 differences between …`).
        static func differences(in report: String) throws -> Int {
            let match = try #require(report.firstMatch(of: /REGRESSION: (\d+) differences? between/), "\(report)")
            return try #require(Int(match.1))
        }
    }

    @Test func everyQuotedLineOfTheDemoIsALineItPrints() throws {
        let demo = try Demo()
        var checked = 0
        for (document, lines) in try Self.outputBlocks() {
            guard let first = lines.first else { continue }
            if first.hasPrefix("recorded the checkout example ") {
                Self.expectQuoted(lines, in: demo.report, "\(document): the demo")
            } else if first.hasPrefix("session 1 'demo' ") {
                Self.expectQuoted(lines, in: demo.timeline, "\(document): show --session 1 after the demo")
            } else {
                continue
            }
            checked += 1
        }
        // The README and Getting started each quote the report and the timeline.
        #expect(checked >= 4)
    }

    /// Figures the prose gives of the demo's replays, in digits or in words.
    @Test func everyFigureInTheProseIsTheDemos() throws {
        let demo = try Demo()
        let interaction = try Demo.differences(in: demo.report)
        let isolated = try Demo.differences(in: demo.isolated)
        let words = [
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        ]
        func number(_ text: Substring) -> Int? { Int(text) ?? words.firstIndex(of: String(text)).map { $0 + 1 } }

        let article = try String(
            contentsOf: ReadmeSampleTests.root.appending(path: "\(ReadmeSampleTests.catalog)/ReplayModes.md"),
            encoding: .utf8
        ).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let quoted = try #require(
            article.firstMatch(
                of:
                    /Against `checkout.v2` isolated mode reports exactly the (\w+) changed answers planted in v2, where interaction mode also reports what those answers led to \((\d+) differences\)/
            ), "the Replay modes article no longer gives the figures of v2's replays: update this test")
        expectEqual(number(quoted.1), isolated, "isolated: the article says \(quoted.1), the replay prints \(isolated)")
        expectEqual(
            number(quoted.2), interaction, "interaction: the article says \(quoted.2), the demo prints \(interaction)"
        )
    }

    /// Transcripts (`$ auditctl …` and what it prints) of commands on the shipped example, run
    /// in order in a fresh directory holding it; each shown line must be a line the command
    /// printed on standard output.
    @Test func everyTranscriptPrintsWhatItShows() throws {
        var checked = 0
        for (document, lines) in try Self.outputBlocks() {
            let commands = lines.filter { $0.hasPrefix("$ ") }
            guard !commands.isEmpty, commands.allSatisfy({ $0.hasPrefix("$ auditctl ") }) else { continue }
            let sandbox = try Sandbox()
            let examples = sandbox.directory.appending(path: "Examples")
            try FileManager.default.createDirectory(at: examples, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Sandbox.packageRoot.appending(path: "Examples/checkout.json"),
                to: examples.appending(path: "checkout.json"))
            var index = 0
            while index < lines.count {
                let command = lines[index]
                index += 1
                guard command.hasPrefix("$ ") else { continue }
                var shown: [String] = []
                while index < lines.count, !lines[index].hasPrefix("$ ") {
                    shown.append(lines[index])
                    index += 1
                }
                var printed = ""
                for part in command.dropFirst(2).components(separatedBy: " && ") {
                    let words = part.split(separator: " ").map(String.init)
                    try #require(words.first == "auditctl", "\(document): \(command)")
                    printed += try sandbox.run(Array(words.dropFirst()), timeout: .seconds(300)).stdout
                }
                Self.expectQuoted(shown, in: printed, "\(document): \(command)")
            }
            checked += 1
        }
        // The reference's minimize and explore examples.
        #expect(checked >= 2)
    }
}
