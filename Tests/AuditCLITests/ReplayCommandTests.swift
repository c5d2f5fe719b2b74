import AuditCore
import Foundation
import SharedTestSupport
import Testing

@Suite("auditctl replay and diff")
struct ReplayCommandTests {
    @Test func replayAgainstTheRecordingDelegateExitsZero() throws {
        let sandbox = try Sandbox()
        let session = try sandbox.recordExample()
        for extra in [[], ["--isolated"]] {
            let run = try sandbox.run(["replay", "--session", String(session), "--delegate", "checkout.v1"] + extra)
            expectEqual(run.status, 0, "\(run)")
            #expect(run.stdout.contains("no regressions: 23 events compared, behaviour identical"))
            #expect(run.stdout.contains(extra.isEmpty ? "interaction mode" : "isolated mode"))
        }
        let sessions = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions()
        expectEqual(sessions.map(\.replayOf), [nil, 1, 1])
    }

    /// A candidate that adopts no delegate protocol of the session's widgets would be asked
    /// nothing: refused in one line in both modes, as `record` refuses it, and nothing is stored.
    @Test func aCandidateThatAdoptsNothingIsRefusedInBothModes() throws {
        let sandbox = try Sandbox()
        let session = try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        for extra in [[], ["--isolated"]] {
            expectError(
                try sandbox.run(["replay", "--session", String(session), "--delegate", "browser.v1"] + extra),
                "delegate: browser.v1: BrowserDelegate conforms to no delegate protocol of the scenario's widgets "
                    + "(SegmentedControlDelegate): it would be asked nothing; make it adopt one, or register the "
                    + "widget's delegate property")
        }
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test func replayAgainstV2ExitsOneWithTheFirstDivergenceFirst() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"])
        expectEqual(run.status, 1, "\(run)")
        expectEqual(run.stderr, "")
        let lines = run.stdoutLines
        expectEqual(
            lines[1], "REGRESSION: 6 differences between the recorded session (23 events) and the candidate (19 events)"
        )
        expectEqual(lines[3], "first divergence: veto changed")
        expectEqual(lines[4], #"  input      #12 checkout/shipping tapSegment {"segment":2}"#)
        expectEqual(lines[8], #"  candidate  #13 {"index":2} → false  VETOED"#)

        // The process's own clock readings fall inside this interval, however loaded the machine.
        let launched = ContinuousClock.now
        let json = try sandbox.run([
            "replay", "--session", "1", "--delegate", "checkout.v2", "--isolated", "--format", "json",
        ])
        let lifetime = ContinuousClock.now - launched
        expectEqual(json.status, 1)
        let report = try decodeJSON(json.stdout)
        expectEqual(report["mode"], .string("isolated"))
        expectEqual(report["identical"], .bool(false))
        expectEqual(report["summary"]?["veto_changed"], .int(1))
        expectEqual(report["summary"]?["differences"], .int(1))
        expectEqual(report["first_divergence"]?["difference"]?["kind"], .string("veto_changed"))
        // Where the time went, in seconds, phase by phase: each phase ends where the next begins,
        // so none is negative, together they took some time, and all of it inside the process's
        // lifetime (a phase counted in the wrong unit or from the wrong start would not fit).
        var phases: [Double] = []
        for phase in ["load", "run", "store", "compare"] {
            guard case .double(let seconds)? = report["seconds"]?[phase] else {
                Issue.record("no \(phase) time in \(json.stdout)")
                continue
            }
            #expect(seconds >= 0, "\(phase) took \(seconds) s")
            phases.append(seconds)
        }
        let total = phases.reduce(0, +)
        #expect(total > 0)
        #expect(.seconds(total) <= lifetime, "the phases add up to \(total) s in a run of \(lifetime)")
    }

    @Test func diffIsSymmetricAndExitsOneOnDifferences() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        for delegate in ["checkout.v1", "checkout.v2"] {
            try expectEqual(sandbox.run(["record", "--scenario", "checkout.json", "--delegate", delegate]).status, 0)
        }
        let forward = try sandbox.run(["diff", "1", "2", "--format", "json"])
        let backward = try sandbox.run(["diff", "2", "1", "--format", "json"])
        #expect(forward.status == 1 && backward.status == 1)
        let a = try decodeJSON(forward.stdout)
        let b = try decodeJSON(backward.stdout)
        expectEqual(a["identical"], .bool(false))
        expectEqual(a["summary"]?["only_in_a"], b["summary"]?["only_in_b"])
        expectEqual(a["summary"]?["only_in_b"], b["summary"]?["only_in_a"])
        expectEqual(a["summary"]?["only_in_a"], .int(4))
        #expect(forward.stdout.hasPrefix(#"{"identical":false,"differences":["#))
        expectEqual(a["summary"]?["paired_in_order"], .bool(false))

        let text = try sandbox.run(["diff", "1", "2"])
        expectEqual(text.stdoutLines[1], "6 differences: 1 veto changed, 1 result changed, 4 only in A")
    }

    @Test func diffOfASessionWithItselfIsIdenticalAndExitsZero() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["diff", "1", "1"])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.stdoutLines[1], "identical (times and durations are not compared)")
        let json = try sandbox.run(["diff", "1", "1", "--format", "json"])
        try expectEqual(decodeJSON(json.stdout)["identical"], .bool(true))
    }

    @Test func diffOfDifferentScenariosSaysSo() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let other = String(decoding: sandbox.bytes("checkout.json")!, as: UTF8.self)
            .replacingOccurrences(of: #""name": "checkout""#, with: #""name": "other""#)
        try sandbox.write("other.json", other)
        try expectEqual(sandbox.run(["record", "--scenario", "other.json"]).status, 0)
        let run = try sandbox.run(["diff", "1", "2"])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.stdoutLines[1], "note: the sessions ran different scenarios")
    }

    struct Mistake: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(
        "bad replay and diff input exits 2 and stores nothing",
        arguments: [
            Mistake(
                arguments: ["replay", "--session", "9", "--delegate", "checkout.v1"],
                message: "no session 9 in the database (auditctl sessions lists them)"),
            Mistake(
                arguments: ["replay", "--session", "1", "--delegate", "nope"],
                message: "unknown delegate 'nope' (registered: checkout.v1, checkout.v2, browser.v1, browser.v2)"),
            Mistake(arguments: ["replay", "--session", "1"], message: "--delegate NAME is required"),
            Mistake(arguments: ["replay", "--delegate", "checkout.v1"], message: "--session N is required"),
            Mistake(
                arguments: ["diff", "1", "9"], message: "no session 9 in the database (auditctl sessions lists them)"),
            Mistake(arguments: ["diff", "1", "x"], message: "sessions are positive integers, not 'x'"),
            Mistake(arguments: ["diff", "1"], message: "'diff' takes 2 arguments, got 1; see 'auditctl diff --help'"),
        ])
    func badInput(_ mistake: Mistake) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = sandbox.bytes("audit.sqlite")
        expectError(try sandbox.run(mistake.arguments), mistake.message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions().count, 1)
    }

    @Test func replayingAReplayIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try expectEqual(sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v1"]).status, 0)
        expectError(
            try sandbox.run(["replay", "--session", "2", "--delegate", "checkout.v1"]),
            "session 2 is a replay of session 1; replay session 1 instead")
    }

    @Test func replayingAnInterruptedSessionSaysWhereItStops() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.sqlite3(
            "audit.sqlite", "DELETE FROM events WHERE seq > 15; UPDATE sessions SET status = 'interrupted'")
        let run = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v1"])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(
            run.stdoutLines[1],
            "note: session 1 is interrupted: its recording stops at event 15; replayed the 4 inputs recorded "
                + "completely (events 1–11)")
    }
}

@Suite("Your own runner: my-auditctl")
struct OwnRunnerTests {
    @Test func ownRunnerListsRecordsAndReplaysAgainstItsOwnDelegate() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        let delegates = try sandbox.run(["delegates", "--format", "csv"], program: "my-auditctl")
        expectEqual(delegates.status, 0, "\(delegates)")
        #expect(delegates.stdoutLines.contains("checkout.strict,our checkout: PayPal is never offered"))
        try expectEqual(sandbox.run(["record", "--scenario", "checkout.json"], program: "my-auditctl").status, 0)
        let replay = try sandbox.run(
            ["replay", "--session", "1", "--delegate", "checkout.strict"], program: "my-auditctl")
        expectEqual(replay.status, 1, "\(replay)")
        #expect(replay.stdout.contains("against checkout.strict"))
        expectError(
            try sandbox.run([], program: "my-auditctl").replacingProgram(),
            "no command given; run 'my-auditctl --help' for the list")
        // The hints after the library's errors name the runner too.
        expectError(
            try sandbox.run(["show", "--session", "9"], program: "my-auditctl").replacingProgram(),
            "no session 9 in the database (my-auditctl sessions lists them)")
        expectError(
            try sandbox.run(["sessions", "--db", "none.sqlite"], program: "my-auditctl").replacingProgram(),
            "no database at none.sqlite; record a session first (my-auditctl record --scenario FILE)")
    }

    /// A runner has the built-in commands and those it adds: `my-auditctl` adds none, so the demo,
    /// which `auditctl` adds, is an unknown command there, and its help lists none.
    @Test func ownRunnerHasNoDemo() throws {
        let sandbox = try Sandbox()
        let help = try sandbox.run(["--help"], program: "my-auditctl")
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: my-auditctl COMMAND"), "\(help)")
        #expect(!help.stdout.contains("demo"), "\(help)")
        expectError(
            try sandbox.run(["demo"], program: "my-auditctl").replacingProgram(),
            "unknown command 'demo'; run 'my-auditctl --help' for the list")
        #expect(try sandbox.listing().isEmpty)
    }
}

extension Run {
    /// Reads a run of another program as if it were `auditctl`, for `expectError`.
    func replacingProgram() -> Run {
        Run(
            status: status, stdout: stdout,
            stderr: stderr.replacingOccurrences(of: "my-auditctl: error:", with: "auditctl: error:"))
    }
}
