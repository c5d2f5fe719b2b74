import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// The investigation commands on a generated database of several thousand-step sessions (the
/// example has 151 events), checked against each other: what `report` counts is what `search`
/// finds and what `sessions` stored; `replay --all` and `minimize` find the planted change.
@Suite("Investigation at scale", .tags(.slow))
struct InvestigateAtScaleTests {
    let sandbox: Sandbox
    static let steps = 3_000

    /// Sessions 1 and 2 recorded with checkout.v1 (two random orders of steps), 3 with checkout.v2:
    /// recorded once per test process, and copied into each test's sandbox (tests add sessions).
    init() throws {
        let folder = try SharedFixtures.folder("investigate-at-scale") { folder in
            let sandbox = try Sandbox()
            for (seed, delegate) in [(1, "checkout.v1"), (2, "checkout.v1"), (1, "checkout.v2")] {
                try sandbox.write("large\(seed).json", randomCheckoutSource(seed: UInt64(seed), count: Self.steps))
                let run = try sandbox.run(["record", "--scenario", "large\(seed).json", "--delegate", delegate])
                guard run.status == 0 else { throw SandboxError(description: "recording failed\n\(run)") }
            }
            for name in try sandbox.listing() {
                try SharedFixtures.copy(
                    sandbox.directory.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            }
        }
        sandbox = try Sandbox()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            try SharedFixtures.copy(
                folder.appendingPathComponent(name), to: sandbox.directory.appendingPathComponent(name))
        }
    }

    func json(_ arguments: [String], status: Int32 = 0) throws -> AuditValue {
        let run = try sandbox.run(arguments + ["--format", "json"])
        expectEqual(run.status, status, "\(run)")
        return try decodeJSON(run.stdout)
    }

    @Test func reportSearchAndSessionsAgree() throws {
        guard case .array(let sessions) = try json(["sessions"]) else { throw SandboxError(description: "no sessions") }
        let stored = sessions.map { ($0["callbacks"], $0["vetoes"], $0["events"]) }
        let callbacks = stored.reduce(0) { total, row in if case .int(let n)? = row.0 { total + n } else { total } }
        let vetoes = stored.reduce(0) { total, row in if case .int(let n)? = row.1 { total + n } else { total } }
        #expect(stored.allSatisfy { if case .int(let n)? = $0.2 { n > 2 * Self.steps } else { false } })

        let report = try json(["report"])
        expectEqual(report["callbacks"], .int(callbacks))
        guard case .array(let rows) = report["rows"] else { throw SandboxError(description: "no rows") }
        let reportedVetoes = rows.reduce(0) { total, row in
            if case .int(let n)? = row["vetoes"] { total + n } else { total }
        }
        expectEqual(reportedVetoes, vetoes)

        let search = try sandbox.run(["search", "--vetoed", "yes", "--format", "csv"])
        expectEqual(search.status, 0)
        expectEqual(parseCSV(search.stdout).count - 1, vetoes)
        let oneWidget = try sandbox.run([
            "search", "--session", "3", "--widget", "checkout/payment", "--callback", "*shouldSelect*", "--vetoed",
            "yes",
            "--format", "csv",
        ])
        let perWidget = rows.first {
            $0["widget"] == .string("checkout/payment")
                && $0["callback"] == .string("segmentedControl(_:shouldSelectSegmentAt:)")
        }
        #expect(perWidget != nil)
        // Session 3 alone, from its own report.
        let third = try json(["report", "--session", "3"])
        guard case .array(let thirdRows) = third["rows"] else { throw SandboxError(description: "no rows") }
        let expected = thirdRows.first {
            $0["widget"] == .string("checkout/payment")
                && $0["callback"] == .string("segmentedControl(_:shouldSelectSegmentAt:)")
        }?["vetoes"]
        expectEqual(expected, .int(parseCSV(oneWidget.stdout).count - 1))
    }

    @Test func sessionsOfOtherInputsAreComparedInOrderAndTheReportSaysSo() throws {
        // Sessions 1 and 2 ran different random steps: far more than a thousand inputs apart.
        let unrelated = try json(["diff", "1", "2"], status: 1)
        expectEqual(unrelated["summary"]?["paired_in_order"], .bool(true))
        let text = try sandbox.run(["diff", "1", "2"])
        #expect(
            text.stdoutLines[1].hasPrefix(
                "note: their inputs differ in more than 1000 places, so they were not aligned"))
        // Sessions 1 and 3 ran the same steps with other delegates: aligned.
        let related = try json(["diff", "1", "3"], status: 1)
        expectEqual(related["summary"]?["paired_in_order"], .bool(false))
    }

    @Test func theHTMLPageSaysWhatItLeftOut() throws {
        let run = try sandbox.run(["report", "--session", "1", "--html", "page.html"])
        expectEqual(run.status, 0, "\(run)")
        let page = String(decoding: try #require(sandbox.bytes("page.html")), as: UTF8.self)
        guard case .array(let sessions) = try json(["sessions"]), case .int(let events)? = sessions.first?["events"]
        else { throw SandboxError(description: "no event count") }
        #expect(page.contains("showing events 1–2,000 of \(events.formatted(.number.grouping(.automatic)))"))
        #expect(page.utf8.count < 1_500_000)
    }

    @Test func replayAllAndMinimizeFindThePlantedChange() throws {
        let all = try json(["replay", "--all", "--delegate", "checkout.v2", "--isolated"], status: 1)
        guard case .array(let results) = all["sessions"] else { throw SandboxError(description: "no sessions") }
        expectEqual(results.map { $0["identical"] }, [.bool(false), .bool(false), .bool(true)])
        expectEqual(all["total"]?["regressed"], .int(2))

        let minimized = try json(
            ["minimize", "--session", "1", "--delegate", "checkout.v2", "--output", "min.json", "--max-tests", "100"])
        expectEqual(minimized["inputs"], .int(Self.steps))
        guard case .int(let minimal)? = minimized["minimal"] else { throw SandboxError(description: "no result") }
        #expect((1...2).contains(minimal))
        let replay = try sandbox.run(["record", "--scenario", "min.json", "--delegate", "checkout.v1"])
        expectEqual(replay.status, 0, "\(replay)")
    }
}
