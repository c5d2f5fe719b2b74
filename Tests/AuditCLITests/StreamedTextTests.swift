import AuditCore
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCLI

/// `show`'s text goes out as the events are read, in chunks, as its JSON does: no event is held
/// but the ones of the chunk being written, and each event's depth is that of its parent + 1.
@Suite("Streamed text of show")
struct StreamedTextTests {
    /// Everything written, and how many events had been added when each write came.
    final class Capture {
        var writes: [(text: String, added: Int)] = []
        var added = 0
        var output: Output { Output(out: { self.writes.append(($0, self.added)) }, error: { _ in }) }
        var text: String { writes.map(\.text).joined() }
    }

    /// The lines `show` prints for the events of session `id`, each indented by the depth its
    /// parents give it: made from the whole timeline, as `show` made them before it streamed.
    static func wholeLines(_ store: AuditStore, _ id: Int64) throws -> [String] {
        var depths: [Int64: Int] = [:]
        return try store.timeline(of: id).map { event in
            let depth = event.parentSeq.flatMap { depths[$0].map { $0 + 1 } } ?? 0
            depths[event.seq] = depth
            return TimelineText.line(event, depth: depth)
        }
    }

    @Test func theTextIsWrittenWhileTheEventsComeAChunkAtATime() throws {
        let database = try StreamedJSONTests.recordedPair(steps: 4_000)
        let store = try AuditStore(path: database, access: .read)
        var events: [(TimelineEvent, Int)] = []
        try store.forEachNestedTimelineEvent(of: 1) { events.append(($0, $1)) }
        let capture = Capture()
        var text = TimelineText(try store.session(1), to: capture.output)
        for (event, depth) in events {
            text.add(event, depth: depth)
            capture.added += 1
        }
        let beforeFinish = capture.writes.count
        text.finish()
        let bytes = capture.text.utf8.count
        #expect(bytes > 8 * 65_536, "\(bytes) bytes: too few to need chunks")
        // Written as the events come: all but the last chunk before the end, each of about 64 KB,
        // so the lines held at once are never more than one chunk's.
        #expect(beforeFinish >= bytes / (65_536 + 4_096), "\(beforeFinish) writes before the end, \(bytes) bytes")
        #expect(capture.writes.allSatisfy { $0.text.utf8.count < 65_536 + 4_096 })
        // The events added between two writes: never more than one chunk's lines.
        let lines = try Self.wholeLines(store, 1)
        let shortest = lines.map { $0.utf8.count + 1 }.min() ?? 1
        let held = zip(capture.writes.dropFirst(), capture.writes).map { $0.added - $1.added }.max() ?? 0
        #expect(held * shortest < 65_536 + 4_096, "\(held) of \(events.count) events between two writes")
        expectEqual(capture.text.split(separator: "\n").dropFirst().map(String.init), lines)
    }

    @Test func showWritesChunksWhoseLinesAreTheWholeTimelines() throws {
        let database = try StreamedJSONTests.recordedPair(steps: 2_000)
        let store = try AuditStore(path: database, access: .read)
        for id: Int64 in [1, 2] {
            let capture = Capture()
            try Command.showSession(id, database, .text, capture.output)
            let session = try store.session(id)
            // Chunks, not a write per line nor one at the end.
            #expect(capture.writes.count >= 3 && capture.writes.count < session.events / 100, "\(capture.writes.count)")
            let lines = capture.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            expectEqual(lines.first?.hasPrefix("session \(id) · scenario checkout · delegate checkout.v"), true)
            expectEqual(Array(lines.dropFirst().dropLast()), (try Self.wholeLines(store, id)))
            expectEqual(lines.last, "")
        }
    }

    /// Parents that are not the events the one before is nested in (threads interleaved, or a
    /// database written by hand): each event's depth is still its parent's + 1, when the parent
    /// comes before it, and 0 otherwise.
    @Test(arguments: [
        "parent_seq",
        // Nested in the event before the one before: never the one the previous event is nested in.
        "CASE WHEN seq > 2 THEN seq - 2 END",
        // Scattered: before it, itself, after it, or none.
        "CASE WHEN seq % 7 = 0 THEN NULL ELSE (seq * 2654435761) % (seq + 3) END",
    ])
    func eachDepthIsItsParentsPlusOne(parents: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write("s.json", randomCheckoutSource(seed: 3, count: 300))
        try expectEqual(sandbox.run(["record", "--scenario", "s.json"]).status, 0)
        try sandbox.sqlite3("audit.sqlite", "UPDATE events SET parent_seq = \(parents)")
        let store = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read)
        var expected: [Int64: Int] = [:]
        for event in try store.timeline(of: 1) {
            expected[event.seq] = event.parentSeq.flatMap { expected[$0].map { $0 + 1 } } ?? 0
        }
        var depths: [Int64: Int] = [:]
        try store.forEachNestedTimelineEvent(of: 1) { depths[$0.seq] = $1 }
        expectEqual(depths, expected)
        #expect((expected.values.max() ?? 0) >= 2 && expected.count > 600, "\(expected.count) events")
    }
}
