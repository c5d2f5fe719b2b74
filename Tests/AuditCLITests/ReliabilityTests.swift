import AuditCLI
import AuditCore
import CSQLite
import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditExamples

/// The built `auditctl` under stress: killed mid-recording, two recordings into one database, reads
/// while a recording runs, the directory made read-only, the database deleted, a full disk, and
/// the files' permissions. `scripts/kill-harness.sh` is the long form of the first test.
@Suite("Reliability: kill -9, concurrent processes, faults, permissions", .tags(.slow))
struct ReliabilityTests {
    /// The two-control checkout with `count` taps, alternating controls and segments: 2 to 4 events
    /// a tap with `checkout.v1`, about 30,000 events per 10,000 taps.
    static func longScenario(steps count: Int) -> String {
        let steps = (0..<count).map { index in
            #"{"action":"tapSegment","widget":"checkout/\#(index % 2 == 0 ? "shipping" : "payment")","segment":\#(index % 3)}"#
        }
        return #"{"name":"long","delegate":"checkout.v1","root":{"kind":"View","id":"checkout","children":["#
            + #"{"kind":"SegmentedControl","id":"shipping","segments":["Standard","Express","Pickup"],"selected":0},"#
            + #"{"kind":"SegmentedControl","id":"payment","segments":["Card","PayPal","Invoice"],"selected":0}]},"#
            + #""steps":["# + steps.joined(separator: ",") + "]}"
    }

    /// How many events `auditctl record` stores for `longScenario(steps:)` alone, into a fresh
    /// database: what each of several recordings of it at once must store too. Recorded once per
    /// test process for each `steps` (`ConcurrentRecordingTests` asks for the same 1,000 steps as
    /// `twoProcessesRecordIntoOneDatabaseAtOnceAndBothComplete`).
    static func referenceEvents(steps: Int) throws -> Int {
        try SharedFixtures.once("the events of longScenario(steps: \(steps))") {
            let sandbox = try Sandbox()
            try sandbox.write("long.json", longScenario(steps: steps))
            let run = try sandbox.run(["record", "--scenario", "long.json", "--db", "reference.sqlite"])
            guard run.status == 0 else { throw SandboxError(description: "the reference recording failed\n\(run)") }
            return try AuditStore(path: sandbox.path("reference.sqlite"), access: .read).session(1).events
        }
    }

    /// Runs the system's `sqlite3` on `path` and returns what it printed.
    static func sqlite3(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The session's stored events, or 0 while it does not exist yet.
    static func committedEvents(_ database: String, session: Int64) -> Int {
        guard let store = try? AuditStore(path: database, access: .read) else { return 0 }
        return (try? store.session(session).events) ?? 0
    }

    /// The test hook that bounds a recording's queue to 512 entries, and with it what one
    /// transaction holds (an entry is an event, or an ask with the answer given during its call,
    /// and the few events held back for their input ride along): a test stalls or kills a recording many transactions in without making
    /// it long (by default a transaction can hold 65,536 events). `scripts/kill-harness.sh`
    /// kills recordings made with the defaults.
    static let smallQueue = ["AUDITCTL_TEST_QUEUE_CAPACITY": "512"]

    /// The environment of a 1,000-step recording (2,999 events) that a test acts on while it
    /// runs: its writes stall past event 2,000 until the test sends `SIGUSR1`, so it cannot
    /// finish first; with `smallQueue` it commits at least 2,000 less one transaction (at most
    /// 512 entries, a few more events) before it stalls.
    static let stalled = smallQueue.merging(["AUDITCTL_TEST_STALL_AFTER_EVENT": "2000"]) { $1 }
    static let stalledSteps = 1_000

    /// Waits until `condition` holds, asking it again each time a file in the sandbox is written
    /// (a batch committed), or until the process ends; returns whether it held.
    static func wait(for launched: Sandbox.Launched, in sandbox: Sandbox, until condition: () -> Bool) throws -> Bool {
        try DirectoryWatch(sandbox.directory.path).wait(
            until: condition, orUntilReadable: launched.exited.fileHandleForReading.fileDescriptor)
    }

    /// What a recording run with `stalled` prints when its writes stall.
    static let stallNotice = "auditctl: test hook: writes stalled past event 2000 until SIGUSR1\n"

    /// Waits until the recording `launched` (run with `stalled`) says its writes stalled, or ends;
    /// returns whether it said so.
    static func waitUntilStalled(_ launched: Sandbox.Launched, in sandbox: Sandbox) throws -> Bool {
        try DirectoryWatch(sandbox.base.path).wait(
            until: { (try? String(contentsOf: launched.err.url, encoding: .utf8)) == stallNotice },
            orUntilReadable: launched.exited.fileHandleForReading.fileDescriptor)
    }

    @Test func theTestHookStallsTheWritesPastItsEventUntilSIGUSR1() throws {
        let sandbox = try Sandbox()
        try sandbox.write("long.json", Self.longScenario(steps: Self.stalledSteps))
        let database = sandbox.path("audit.sqlite")
        let launched = try sandbox.launch(["record", "--scenario", "long.json"], environment: Self.stalled)
        try #require(try Self.waitUntilStalled(launched, in: sandbox), "the recording never said it stalled")
        // Stalled: nothing past event 2,000 is stored, at least 2,000 less one transaction (about
        // 512 events) is, and the session is still being recorded.
        let store = try AuditStore(path: database, access: .read)
        try expectEqual(store.session(1).status, .recording)
        let stored = try store.timeline(of: 1).map(\.seq)
        #expect(stored.count >= 1_000 && stored.count <= 2_000, "\(stored.count) events stored")
        expectEqual(stored, Array(1...Int64(stored.count)))

        kill(launched.process.processIdentifier, SIGUSR1)
        let run = try sandbox.finish(launched, timeout: .seconds(600))
        expectEqual(run.status, 0, "\(run)")
        let session = try AuditStore(path: database, access: .read).session(1)
        #expect(session.status == .complete && session.events > 2_000, "\(session)")
        try expectEqual(store.timeline(of: 1).map(\.seq), Array(1...Int64(session.events)))
    }

    @Test func aRecordingKilledAtAnyMomentLeavesASoundHoleFreePrefixMarkedInterrupted() throws {
        let sandbox = try Sandbox()
        try sandbox.write("long.json", Self.longScenario(steps: 2_000))
        let database = sandbox.path("audit.sqlite")
        // Kill when the first transaction is in, a few later, and well into the run.
        for (index, threshold) in [1, 1_500, 4_000].enumerated() {
            let session = Int64(index + 1)
            // Stalled past event 5,000 of 5,998: it cannot finish before the kill, and commits at
            // least 5,000 less one transaction (512 entries, a few more events), more than the last threshold,
            // before it stalls.
            let launched = try sandbox.launch(
                ["record", "--scenario", "long.json"],
                environment: Self.smallQueue.merging(["AUDITCTL_TEST_STALL_AFTER_EVENT": "5000"]) { $1 })
            let reached = try Self.wait(for: launched, in: sandbox) {
                Self.committedEvents(database, session: session) >= threshold
            }
            kill(launched.process.processIdentifier, SIGKILL)
            let run = try sandbox.finish(launched, timeout: .seconds(30))
            try #require(reached && run.status == 128 + SIGKILL, "the recording ended before the kill: \(run)")

            try expectEqual(Self.sqlite3(database, "PRAGMA integrity_check"), "ok")
            let storedStatus = "select status from sessions where id = \(session)"
            try expectEqual(Self.sqlite3(database, storedStatus), "recording")
            let store = try AuditStore(path: database, access: .read)
            // Readers see at once that the recording process is gone.
            try expectEqual(store.session(session).status, .interrupted)
            let seqs = try store.timeline(of: session).map(\.seq)
            #expect(seqs.count >= threshold)
            expectEqual(seqs, Array(1...Int64(seqs.count)), "holes in seq after kill \(index + 1)")
            try expectEqual(store.session(session).events, seqs.count)
            // The next open for writing notices that the recording process is gone, and says so in the file.
            _ = try AuditStore(path: database, access: .write)
            try expectEqual(Self.sqlite3(database, storedStatus), "interrupted")
        }
        // The killed process left its lock file, holding no lock: free to the next recording,
        // which completes and removes it as it ends.
        #expect(sandbox.exists("audit.sqlite-recording"))
        try sandbox.copyExample()
        let run = try sandbox.run(["record", "--scenario", "checkout.json"])
        #expect(run.status == 0 && run.stdout == "4\n", "\(run)")
        #expect(!sandbox.exists("audit.sqlite-recording"))
    }

    @Test func twoProcessesRecordIntoOneDatabaseAtOnceAndBothComplete() throws {
        let sandbox = try Sandbox()
        // With the queue bounded to 512 entries, six transactions or more each.
        try sandbox.write("long.json", Self.longScenario(steps: 1_000))
        let expected = try Self.referenceEvents(steps: 1_000)

        let runs = try sandbox.runConcurrently(
            Array(repeating: ["record", "--scenario", "long.json"], count: 2), environment: Self.smallQueue,
            timeout: .seconds(600))
        expectEqual(runs.map(\.status), [0, 0], "\(runs)")
        expectEqual(Set(runs.map(\.stdout)), ["1\n", "2\n"])
        let store = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read)
        let sessions = try store.sessions()
        expectEqual(sessions.map(\.status), [.complete, .complete])
        expectEqual(sessions.map(\.events), [expected, expected])
        for session in sessions {
            try expectEqual(store.timeline(of: session.id).map(\.seq), Array(1...Int64(expected)))
        }
        // Whether the two overlapped is up to the scheduler (on a loaded machine one may finish
        // before the other starts), so it is not asserted: that would test the machine's load.
    }

    @Test func queryShowAndSessionsWorkWhileARecordingRuns() throws {
        let sandbox = try Sandbox()
        try sandbox.write("long.json", Self.longScenario(steps: Self.stalledSteps))
        let database = sandbox.path("audit.sqlite")
        let launched = try sandbox.launch(["record", "--scenario", "long.json"], environment: Self.stalled)
        try #require(try Self.wait(for: launched, in: sandbox) { Self.committedEvents(database, session: 1) > 0 })

        let show = try sandbox.run(["show", "--session", "1"])
        #expect(show.status == 0 && show.stderr == "", "\(show)")
        expectEqual(show.stdoutLines.first?.contains("· recording ·"), true, "\(show.stdoutLines.first ?? "")")
        #expect(show.stdoutLines.count > 2)
        let query = try sandbox.run(["query", "select count(*) from events where session = 1", "--format", "csv"])
        #expect(query.status == 0 && query.stderr == "", "\(query)")
        #expect((Int(query.stdoutLines[1]) ?? 0) > 0)
        let sessions = try sandbox.run(["sessions", "--format", "csv"])
        #expect(sessions.status == 0 && sessions.stdout.contains(",recording,"), "\(sessions)")

        kill(launched.process.processIdentifier, SIGUSR1)
        let recording = try sandbox.finish(launched, timeout: .seconds(600))
        expectEqual(recording.status, 0, "\(recording)")
        try expectEqual(AuditStore(path: database, access: .read).session(1).status, .complete)
    }

    @Test func aDatabaseDeletedMidRecordingExitsTwoSayingWhatWasLost() throws {
        let sandbox = try Sandbox()
        try sandbox.write("long.json", Self.longScenario(steps: Self.stalledSteps))
        let database = sandbox.path("audit.sqlite")
        let launched = try sandbox.launch(["record", "--scenario", "long.json"], environment: Self.stalled)
        // Deleted while the writes stall, some transactions in (`stalled`).
        try #require(try Self.waitUntilStalled(launched, in: sandbox), "the recording never said it stalled")
        try #require(Self.committedEvents(database, session: 1) > 0)
        for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
        kill(launched.process.processIdentifier, SIGUSR1)
        let run = try sandbox.finish(launched, timeout: .seconds(600))
        expectEqual(run.status, 2, "\(run)")
        expectEqual(run.stdout, "1\n")
        #expect(run.stderr.hasPrefix(Self.stallNotice), "\(run)")
        #expect(
            run.stderr.dropFirst(Self.stallNotice.count).wholeMatch(
                of:
                    #/auditctl: error: session 1 is interrupted: kept its first \d+ events? and lost \d+; \d+ writes? failed \(finishing took [\d.]+ s\), the last: (writing events \d+–\d+|marking the session interrupted) failed: the database file .*audit\.sqlite was deleted or replaced while it was open\n/#
            ) != nil, "\(run)")
    }

    @Test(
        "a directory made read-only mid-recording loses nothing",
        .enabled(
            if: HostileInputTests.unprivileged != nil, "runs as root without setpriv: permissions cannot be tested"))
    func aDirectoryMadeReadOnlyMidRecording() throws {
        let sandbox = try Sandbox()
        try sandbox.write("long.json", Self.longScenario(steps: Self.stalledSteps))
        try sandbox.run(["record", "--scenario", "long.json", "--db", "../reference.sqlite"]).expectSuccess()
        let expected = try AuditStore(path: sandbox.base.appendingPathComponent("reference.sqlite").path, access: .read)
            .session(1).events
        HostileInputTests.openUp(sandbox, writable: true)
        chmod(sandbox.path("long.json"), 0o644)
        let database = sandbox.path("audit.sqlite")
        let launched = try sandbox.launch(
            ["record", "--scenario", "long.json"], environment: Self.stalled,
            wrapper: HostileInputTests.unprivileged ?? [])
        // Read (as root) only once the recording has made its files: a reader opening the database
        // first would make the missing lock files and `-shm` itself, owner-only and root's, and the
        // recording, another user, could not open them.
        let made = ["", "-wal", "-shm", "-writers", "-recording"].map { database + $0 }
        try #require(
            try Self.wait(for: launched, in: sandbox) {
                made.allSatisfy { FileManager.default.fileExists(atPath: $0) }
                    && Self.committedEvents(database, session: 1) > 0
            })
        // The open files go on being written; new files (and removing the WAL at the end) fail.
        chmod(sandbox.directory.path, 0o555)
        kill(launched.process.processIdentifier, SIGUSR1)
        let run = try sandbox.finish(launched, timeout: .seconds(600))
        chmod(sandbox.directory.path, 0o777)
        expectEqual(run.status, 0, "\(run)")
        let session = try AuditStore(path: database, access: .read).session(1)
        expectEqual(session.status, .complete)
        expectEqual(session.events, expected)
    }

    @Test(
        "a full disk (a 2 MiB tmpfs) exits 2, and the database stays sound and is marked",
        .enabled(if: Tmpfs.canMount, "needs to mount a tmpfs (root with CAP_SYS_ADMIN)"))
    func aFullDisk() throws {
        let sandbox = try Sandbox()
        let mount = try Tmpfs(size: "2m")
        // The session stores the scenario's 850 KB of text; its 36,000 events do not fit beside it.
        try sandbox.write("long.json", Self.longScenario(steps: 12_000))
        let database = mount.path("audit.sqlite")
        let run = try sandbox.run(["record", "--scenario", "long.json", "--db", database], timeout: .seconds(600))
        expectEqual(run.status, 2, "\(run)")
        expectEqual(run.stdout, "1\n")
        #expect(
            run.stderr.wholeMatch(
                of:
                    #/auditctl: error: session 1 is interrupted: kept (all \d+ events?|its first \d+ events? and lost \d+|no events and lost \d+); \d+ writes? failed \(finishing took [\d.]+ s\), the last: (writing events \d+–\d+|writing the session's widgets|marking the session (complete|interrupted)) failed: database or disk is full\n/#
            ) != nil, "\(run)")
        try expectEqual(Self.sqlite3(database, "PRAGMA integrity_check"), "ok")
        // The session could not be closed on the full disk: it reads as interrupted all the same.
        let sessions = try sandbox.run(["sessions", "--db", database, "--format", "csv"])
        expectEqual(sessions.status, 0, "\(sessions)")
        expectEqual(parseCSV(sessions.stdout).dropFirst().map { $0[4] }, ["interrupted"], "\(sessions)")
        // What was stored (maybe nothing: one batch can hold the whole run) is a hole-free prefix.
        let seqs = try AuditStore(path: database, access: .read).timeline(of: 1).map(\.seq)
        expectEqual(seqs, Array(stride(from: 1, through: Int64(seqs.count), by: 1)))
    }

    /// `record` into a new database on disks from too small for its schema to ample: a database
    /// that cannot be made is one line, exit 2, and no file (never a file without its schema,
    /// which every later command would call malformed); one that can is sound, whatever then
    /// happens to the session.
    @Test(
        "no room for a new database: one line, exit 2, no file",
        .enabled(if: Tmpfs.canMount, "needs to mount a tmpfs (root with CAP_SYS_ADMIN)"))
    func noRoomForANewDatabase() throws {
        let sandbox = try Sandbox()
        try sandbox.write("one.json", Self.longScenario(steps: 1))
        var refused = 0
        var made = 0
        for kilobytes in stride(from: 64, through: 512, by: 32) {
            let mount = try Tmpfs(size: "\(kilobytes)k")
            let database = mount.path("audit.sqlite")
            let run = try sandbox.run(["record", "--scenario", "one.json", "--db", database])
            if run.stderr.hasPrefix("auditctl: error: cannot open") {
                expectError(run, "cannot open \(database): database or disk is full")
                try expectEqual(FileManager.default.contentsOfDirectory(atPath: mount.directory.path), [])
                refused += 1
            } else {
                try expectEqual(Self.sqlite3(database, "PRAGMA integrity_check"), "ok", "\(kilobytes) KiB: \(run)")
                made += 1
            }
        }
        #expect(refused > 0 && made > 0, "refused \(refused), made \(made)")
    }

    @Test func newFilesAreOwnerOnlyWhateverTheUmask() throws {
        let sandbox = try Sandbox()
        try sandbox.write("long.json", Self.longScenario(steps: Self.stalledSteps))
        let database = sandbox.path("audit.sqlite")
        let launched = try sandbox.launch(
            ["record", "--scenario", "long.json"], environment: Self.stalled,
            wrapper: ["/bin/sh", "-c", #"umask 000 && exec "$0" "$@""#])
        try #require(try Self.wait(for: launched, in: sandbox) { Self.committedEvents(database, session: 1) > 0 })
        var modes: [String: mode_t] = [:]
        for suffix in ["", "-wal", "-shm", "-writers"] {
            var info = stat()
            if stat(database + suffix, &info) == 0 { modes["audit.sqlite\(suffix)"] = info.st_mode & 0o777 }
        }
        kill(launched.process.processIdentifier, SIGUSR1)
        let run = try sandbox.finish(launched, timeout: .seconds(600))
        expectEqual(run.status, 0, "\(run)")
        expectEqual(
            modes,
            [
                "audit.sqlite": 0o600, "audit.sqlite-wal": 0o600, "audit.sqlite-shm": 0o600,
                "audit.sqlite-writers": 0o600,
            ])
    }

    // MARK: secrets

    static let secret = "correct horse battery staple"

    /// A login form with a secure password field, typed into and cleared `rounds` times.
    static func secureScenario(rounds: Int, secret: String = secret) -> String {
        let round = [
            #"{"action":"typeText","widget":"login/user","text":"ada"}"#,
            #"{"action":"typeText","widget":"login/password","text":"\#(secret)"}"#,
            #"{"action":"replaceText","widget":"login/password","range":{"location":0,"length":\#(secret.utf16.count)},"text":""}"#,
            #"{"action":"replaceText","widget":"login/user","range":{"location":0,"length":3},"text":""}"#,
        ]
        return #"{"name":"login","delegate":"checkout.v1","root":{"kind":"View","id":"login","children":["#
            + #"{"kind":"TextView","id":"user"},{"kind":"TextView","id":"password","secure":true}]},"#
            + #""steps":["# + Array(repeating: round, count: rounds).flatMap { $0 }.joined(separator: ",") + "]}"
    }

    /// How many times `needle` occurs in the files of the sandbox's working directory, but `except`.
    static func occurrences(of needle: String, in sandbox: Sandbox, except: Set<String>) throws -> Int {
        try sandbox.listing().subtracting(except).reduce(0) { found, name in
            found + (sandbox.bytes(name).map { SharedTestSupport.occurrences(of: Array(needle.utf8), in: $0) } ?? 0)
        }
    }

    @Test func theSecretIsInNoFileAndEqualSecretsCompareEqual() throws {
        let sandbox = try Sandbox()
        try sandbox.write("login.json", Self.secureScenario(rounds: 3))
        try sandbox.write("other.json", Self.secureScenario(rounds: 3, secret: "another secret entirely"))
        for scenario in ["login.json", "login.json", "other.json"] {
            try sandbox.run(["record", "--scenario", scenario]).expectSuccess()
        }
        try expectEqual(
            sandbox.listing(), ["audit.sqlite", "audit.sqlite-key", "login.json", "other.json"])
        for needle in [Self.secret, "horse", "another secret"] {
            try expectEqual(
                Self.occurrences(of: needle, in: sandbox, except: ["login.json", "other.json"]), 0, "\(needle)")
        }
        #expect(try Self.occurrences(of: "ada", in: sandbox, except: ["login.json", "other.json"]) > 0)
        var info = stat()
        #expect(stat(sandbox.path("audit.sqlite-key"), &info) == 0 && info.st_mode & 0o777 == 0o600)

        let same = try sandbox.run(["diff", "1", "2"])
        expectEqual(same.status, 0, "\(same)")
        let different = try sandbox.run(["diff", "1", "3", "--format", "json"])
        expectEqual(different.status, 1, "\(different)")
        #expect(different.stdout.contains("hmac-sha256:") && !different.stdout.contains(Self.secret))

        expectError(
            try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v1"]),
            "session 1 typed into the secure text view login/password (input 7), whose text is recorded only as a "
                + "keyed hash and cannot be typed again; it cannot be replayed")
    }

    @Test func theSecretIsNotInTheWALOfAKilledRecording() throws {
        let sandbox = try Sandbox()
        // 250 rounds of 16 events (4 inputs and their callbacks), 4,004 events with the session's
        // first ones: stalled past event 3,000, it cannot finish (and empty its WAL) before the
        // kill, and with `smallQueue` commits at least 3,000 less one transaction (512 entries, a
        // few more events) before it stalls.
        try sandbox.write("login.json", Self.secureScenario(rounds: 250))
        let database = sandbox.path("audit.sqlite")
        let launched = try sandbox.launch(
            ["record", "--scenario", "login.json"],
            environment: Self.smallQueue.merging(["AUDITCTL_TEST_STALL_AFTER_EVENT": "3000"]) { $1 })
        try #require(try Self.wait(for: launched, in: sandbox) { Self.committedEvents(database, session: 1) > 2_000 })
        kill(launched.process.processIdentifier, SIGKILL)
        _ = try sandbox.finish(launched, timeout: .seconds(30))
        #expect((sandbox.bytes("audit.sqlite-wal") ?? Data()).count > 0, "the WAL holds the committed batches")
        try expectEqual(Self.occurrences(of: Self.secret, in: sandbox, except: ["login.json"]), 0)
        #expect(try Self.occurrences(of: "ada", in: sandbox, except: ["login.json"]) > 0)
    }
}

extension Run {
    /// Fails the test with the run's output unless it exited 0.
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        expectEqual(status, 0, "\(self)", sourceLocation: sourceLocation)
    }
}

/// The command line in this process, where a store fault can be injected.
@Suite("Reliability: faults under the command line", .tags(.slow))
struct CommandLineFaultTests {
    /// Runs `auditctl arguments` in this process; returns the exit status, stdout and stderr.
    static func run(_ arguments: [String]) -> (status: Int32, out: String, error: String) {
        let lines = Mutex<(out: String, error: String)>(("", ""))
        let output = Output(
            out: { text in lines.withLock { $0.out += text } }, error: { text in lines.withLock { $0.error += text } })
        let status = AuditCommandLine(registry: .examples, catalog: .builtIn).run(arguments, output: output)
        return lines.withLock { (status, $0.out, $0.error) }
    }

    @Test func aRecordingThatCannotBeMarkedCompleteExitsTwoSayingWhatWasKept() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let database = sandbox.path("audit.sqlite")
        // Every event is stored; marking the session complete finds the disk full, for good (the
        // writer tries it for two seconds).
        StoreFaults.inject(SQLITE_FULL, at: database, matching: "SET status")
        defer { StoreFaults.clear(database) }
        let run = Self.run(["record", "--scenario", sandbox.path("checkout.json"), "--db", database])
        expectEqual(run.status, 2)
        expectEqual(run.out, "2\n")
        #expect(
            run.error.wholeMatch(
                of:
                    #/auditctl: error: session 2 is interrupted: kept all 23 events; \d+ writes failed \(finishing took [\d.]+ s\), the last: marking the session complete failed: database or disk is full\n/#
            ) != nil, "\(run.error)")
        StoreFaults.clear(database)
        // Readers see it interrupted (the recording process, this one, is not recording it any more
        // once the next process that opens the database to write marks it).
        let store = try AuditStore(path: database, access: .read)
        try expectEqual(store.timeline(of: 2).count, 23)
    }

    @Test func aFailureAtFinishThatPassesIsANoteAndCounted() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let database = sandbox.path("audit.sqlite")
        StoreFaults.inject(SQLITE_FULL, at: database, times: 2, matching: "SET status")
        defer { StoreFaults.clear(database) }
        let run = Self.run(["record", "--scenario", sandbox.path("checkout.json"), "--db", database])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.out, "2\n")
        #expect(
            run.error.wholeMatch(
                of:
                    #/recorded session 2: 23 events .* waited [\d.]+ s for the database\nnote: 2 writes failed and succeeded when tried again \(finishing took [\d.]+ s\); nothing was lost\n/#
            ) != nil, "\(run.error)")
        let session = try AuditStore(path: database, access: .read).session(2)
        expectEqual(session.status, .complete)
        expectEqual(session.failures, 2)
    }

    @Test func aReplayWhoseRecordingFailedIsAnErrorNotARegression() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let database = sandbox.path("audit.sqlite")
        let lines = Mutex<(out: String, error: String)>(("", ""))
        let output = Output(
            out: { text in lines.withLock { $0.out += text } }, error: { text in lines.withLock { $0.error += text } })
        // The replay's session is created (one write), then its events find the disk full.
        StoreFaults.inject(SQLITE_FULL, at: database, after: 1)
        defer { StoreFaults.clear(database) }
        let status = AuditCommandLine(registry: .examples, catalog: .builtIn).run(
            ["replay", "--session", "1", "--delegate", "checkout.v2", "--db", database], output: output)
        expectEqual(status, 2)
        expectEqual(lines.withLock { $0.out }, "")
        let error = lines.withLock { $0.error }
        #expect(
            error.wholeMatch(
                of:
                    #/auditctl: error: the replay of session 1 \(stored as session 2\) is incomplete: \d+ writes? failed, so it cannot be compared\n/#
            ) != nil, "\(error)")
    }
}
