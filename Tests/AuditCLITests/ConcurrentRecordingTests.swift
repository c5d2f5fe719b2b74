import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// Many `auditctl record` processes write one database at once while readers loop over it: every
/// writer waits its turn (`WriterQueue`) and completes, and readers never hold a writer up.
@Suite("Concurrent recordings: 16 writers and 4 readers", .tags(.slow))
struct ConcurrentRecordingTests {
    static let writers = 16
    static let readers = 4

    /// A reader: `show` and `query` on the database, `rounds` times each, in a shell loop (the
    /// binary is `$0`); it fails on the first command that fails. Both read little (session 1 is
    /// the small checkout, the query reads the sessions' rows), so that no query deadline comes
    /// near however loaded the machine is.
    static func readerLoop(rounds: Int) -> [String] {
        let script = """
            i=0
            while [ $i -lt \(rounds) ]; do
                "$0" show --session 1 >/dev/null || exit 1
                "$0" query 'select id, status, event_count, failure_count from sessions' >/dev/null || exit 1
                i=$((i + 1))
            done
            """
        return ["/bin/sh", "-c", script]
    }

    @Test func sixteenWritersAndFourReadersAllComplete() throws {
        let sandbox = try Sandbox()
        // 1,000 taps, 2,999 events: with the queue bounded to 512 entries, six transactions or more
        // per writer, interleaved with the others'.
        try sandbox.write("long.json", ReliabilityTests.longScenario(steps: 1_000))
        let expected = try ReliabilityTests.referenceEvents(steps: 1_000)
        try sandbox.copyRecordedExample()  // session 1, for the readers

        let launched =
            try (0..<Self.writers).map { _ in
                try sandbox.launch(["record", "--scenario", "long.json"], environment: ReliabilityTests.smallQueue)
            }
            + (0..<Self.readers).map { _ in
                try sandbox.launch([], environment: [:], wrapper: Self.readerLoop(rounds: 20))
            }
        let runs = try launched.map { try sandbox.finish($0, timeout: .seconds(600)) }
        let (writing, reading) = (runs.prefix(Self.writers), runs.dropFirst(Self.writers))

        #expect(reading.allSatisfy { $0.status == 0 }, "\(Array(reading))")
        #expect(writing.allSatisfy { $0.status == 0 }, "\(Array(writing))")
        expectEqual(Set(writing.map(\.stdout)), Set((2...Self.writers + 1).map { "\($0)\n" }))
        // Each says how long it waited for the others.
        for run in writing {
            #expect(
                run.stderr.wholeMatch(of: #/recorded session \d+: .* in [\d.]+ s; waited [\d.]+ s for the database\n/#)
                    != nil, "\(run)")
        }
        let store = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read)
        let sessions = try store.sessions().filter { $0.id > 1 }
        expectEqual(sessions.count, Self.writers)
        for session in sessions {
            expectEqual(session.status, .complete)
            expectEqual(session.events, expected)
            expectEqual(session.failures, 0)
            try expectEqual(store.timeline(of: session.id).map(\.seq), Array(1...Int64(expected)))
        }
        #expect(!sandbox.exists("audit.sqlite-writers"), "the last writer removes the queue's file")
        #expect(!sandbox.exists("audit.sqlite-recording"), "the last recording removes the lock file")
    }
}
