import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// What recording text costs on the worst files the scenario limits admit: the database grows with
/// what was typed and memory stays bounded, where storing each input's whole text made both grow
/// with the square of the edits (a file just under 8 MiB made a 550 MB database); and the work of
/// hashing a secure text, counted in bytes rather than timed, grows with what was typed, where
/// hashing the whole text at each edit made it grow with the square of the edits.
@Suite("Recording text: storage and memory on the worst files", .tags(.slow))
struct TextGrowthTests {
    /// A scenario of one text view and `steps`, at most `Scenario.maximumFileSize` bytes.
    static func scenario(_ steps: [String], secure: Bool = false) -> String {
        #"{"name":"text","delegate":"checkout.v1","root":{"kind":"View","id":"r","children":["#
            + #"{"kind":"TextView","id":"t","secure":\#(secure)}]},"steps":["# + steps.joined(separator: ",") + "]}"
    }

    static func typing(_ text: String) -> String { #"{"action":"typeText","widget":"r/t","text":"\#(text)"}"# }

    /// The longest string a step may hold: 64 KiB of UTF-8 in three-byte characters, which are not
    /// ASCII, so no fast path of the string's UTF-16 view applies.
    static let longest = String(repeating: "请", count: Scenario.maximumStringBytes / 3 - 8)

    struct WorstFile: Sendable, CustomTestStringConvertible {
        let name: String
        /// How many of the longest typings come first; then single characters fill the file up.
        let longTypings: Int
        /// Whether the text view is secure (its text recorded as a keyed hash).
        var secure = false
        /// How many single characters follow; as many as fit when nil.
        var shortTypings: Int?
        var testDescription: String { name }

        var source: String {
            var steps = Array(repeating: TextGrowthTests.typing(TextGrowthTests.longest), count: longTypings)
            let short = TextGrowthTests.typing("请")
            let room = Scenario.maximumFileSize - TextGrowthTests.scenario(steps).utf8.count
            let count = min(shortTypings ?? .max, Scenario.maximumSteps - longTypings, room / (short.utf8.count + 1))
            steps += Array(repeating: short, count: max(0, count))
            return TextGrowthTests.scenario(steps, secure: secure)
        }
    }

    static let files = [
        // The longest text the limits admit: 127 typings of 64 KiB (and a thousand characters more).
        WorstFile(name: "the longest text, typed 64 KiB at a time", longTypings: 127),
        // A long text, then many single-character edits: each is an input over a 4 MB text. Storing
        // or holding the text at each edit would take 8,000 times 3.9 MB, 31 GB, where the bounds
        // below allow about 20 MB: a tenth of the edits that would fit in the file catches it as
        // surely as all of them, in a tenth of the time (recording the 80,000 that fit took two
        // minutes of the suite's critical path).
        WorstFile(name: "a 3.9 MB text, then 8,000 single characters", longTypings: 60, shortTypings: 8_000),
        // The same, secure: its keyed hash is extended by what is typed, not made again each time.
        WorstFile(
            name: "a 3.9 MB secure text, then 8,000 single characters", longTypings: 60, secure: true,
            shortTypings: 8_000),
    ]

    @Test(
        "the database grows with what was typed and memory stays under 300 MB",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"),
        arguments: files)
    func theWorstFiles(_ file: WorstFile) throws {
        let sandbox = try Sandbox()
        let source = file.source
        try sandbox.write("s.json", source)
        let size = source.utf8.count
        #expect(size <= Scenario.maximumFileSize)
        // The time it takes is not checked (it is the machine's load as much as the code's); the
        // long timeout only keeps a broken build from hanging the suite.
        let (run, kilobytes) = try HostileInputTests.peakMemory(
            sandbox, ["record", "--scenario", "s.json"], timeout: .seconds(1_800))
        expectEqual(run.status, 0, "\(run)")
        #expect(kilobytes < 300 * 1024, "peak RSS \(kilobytes) KiB")
        let database = sandbox.path("audit.sqlite")
        let steps = Int(try ReliabilityTests.sqlite3(database, "SELECT input_count FROM sessions")) ?? 0
        #expect(steps > 100)
        // Each typed text is stored twice (the input and shouldChangeTextIn), the scenario once (and
        // its pages once more, left free when the session's row is updated), and each edit a few
        // hundred bytes: not the text at every edit, which made gigabytes.
        let stored = ["audit.sqlite", "audit.sqlite-wal"].compactMap { sandbox.bytes($0)?.count }.reduce(0, +)
        #expect(stored < 4 * size + 512 * steps, "\(stored) bytes for \(steps) steps of a \(size)-byte file")
        let longestResult = try ReliabilityTests.sqlite3(database, "SELECT max(length(result)) FROM events")
        // A secure text's hash is a keyed one, 76 characters against the digest's 16.
        #expect((Int(longestResult) ?? .max) < (file.secure ? 192 : 128))
    }

    /// The secure worst file's shape, recorded in this process, counting the bytes the view's keyed
    /// hash takes: each typed byte once, since the text starts empty and is only typed at its end.
    /// The count is exact, so a tenth of the worst file proves what the whole one would: a hash made
    /// again at each edit would take the whole text each time, 8,000 times 390 KB here. (The 3.9 MB
    /// text is recorded by `theWorstFiles`, for its storage and memory.)
    @Test("a secure text's hash takes each typed byte once, on a long text typed into 8,000 times")
    func theSecureTextIsHashedOnce() throws {
        let file = WorstFile(
            name: "a 390 KB secure text, then 8,000 single characters", longTypings: 6, secure: true,
            shortTypings: 8_000)
        let sandbox = try Sandbox()
        let database = sandbox.path("audit.sqlite")
        let scenario = try Scenario(data: Data(file.source.utf8), catalog: .builtIn)
        let session = NewSession(name: nil, scenario: scenario.name, source: "{}", delegate: "none")
        let recorder = try Recorder(databasePath: database, session: session, catalog: .builtIn)
        recorder.useSecrets(try SecretHasher(databasePath: database))
        let root = try ScenarioRunner.run(scenario, delegate: nil, recorder: recorder).root
        let summary = recorder.finish()
        let view = try #require(root.subviews.first as? TextView)
        let typed = view.text.utf8.count
        #expect(typed > 390_000)
        expectEqual(view.secureBytesHashed, typed)
        #expect(typed < file.source.utf8.count)
        expectEqual(summary.failedWrites, 0)
    }
}
