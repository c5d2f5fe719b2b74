import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `auditctl search` and `auditctl report`, end to end through the built binary.
@Suite("Search and report")
struct InvestigateTests {
    let sandbox: Sandbox

    /// Session 1 recorded with checkout.v1 (one veto), session 2 with checkout.v2 (two vetoes).
    init() throws {
        sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.recordExample(delegate: "checkout.v2")
    }

    func rows(_ arguments: [String]) throws -> [[String: AuditValue]] {
        let run = try sandbox.run(["search", "--format", "json"] + arguments)
        expectEqual(run.status, 0, "\(run)")
        guard case .array(let rows) = try decodeJSON(run.stdout) else { return [] }
        return rows.map { row in
            guard case .object(let fields) = row else { return [:] }
            return fields
        }
    }

    @Test func filtersCombineWithAnd() throws {
        let vetoes = try rows(["--vetoed", "yes"])
        expectEqual(vetoes.map { "\($0["session"]!.json):\($0["seq"]!.json)" }, ["1:5", "2:5", "2:13"])
        let payment = try rows(["--vetoed", "yes", "--widget", "checkout/payment", "--session", "2"])
        expectEqual(payment.map { $0["seq"] }, [.int(5)])
        let inputs = try rows(["--kind", "input", "--session", "1"])
        expectEqual(inputs.count, 9)
        #expect(inputs.allSatisfy { $0["kind"] == .string("input") && $0["vetoed"] == .null })
        let didSelect = try rows(["--callback", "*didSelect*", "--widget", "checkout"])
        expectEqual(didSelect.count, 10)
        #expect(
            didSelect.allSatisfy { $0["callback"] == .string("segmentedControl(_:didSelectSegmentAt:userInteracted:)") }
        )
        let notVetoed = try rows(["--vetoed", "no", "--session", "1"])
        expectEqual(notVetoed.count, 7)
    }

    @Test func timeWordsAndTimestampsFilterBySessionStart() throws {
        try expectEqual(rows(["--since", "today", "--kind", "input"]).count, 17)
        try expectEqual(rows(["--since", "recent", "--until", "now", "--session", "1", "--kind", "input"]).count, 9)
        let future = try sandbox.run(["search", "--since", "2999-01-01T00:00:00Z"])
        expectEqual(future.status, 1, "\(future)")
        expectEqual(future.stdout, "")
        expectEqual(future.stderr, "no events match\n")
        let past = try sandbox.run(["search", "--until", "2000-01-01", "--format", "json"])
        expectEqual(past.status, 1)
        expectEqual(past.stdout, "[]\n")
    }

    @Test func csvHasAHeaderAndOneRecordPerEvent() throws {
        let run = try sandbox.run(["search", "--session", "1", "--vetoed", "yes", "--format", "csv"])
        expectEqual(run.status, 0, "\(run)")
        let records = parseCSV(run.stdout)
        expectEqual(records.count, 2)
        expectEqual(records[0].prefix(3), ["session", "seq", "started_at"])
        expectEqual(records[1][8], #"{"index":2}"#)
    }

    @Test func userInputIsBoundNotSpliced() throws {
        let run = try sandbox.run(["search", "--callback", "x' OR 1=1 --", "--widget", "') OR ('1'='1"])
        expectEqual(run.status, 1, "\(run)")
        expectEqual(run.stderr, "no events match\n")
    }

    @Test(arguments: [
        (["--vetoed", "maybe"], "--vetoed takes yes or no, not 'maybe'"),
        (["--kind", "touch"], "--kind takes input or callback, not 'touch'"),
        (["--session", "0"], "--session takes a positive integer, not '0'"),
    ])
    func badFiltersAreRefused(arguments: [String], message: String) throws {
        expectError(try sandbox.run(["search"] + arguments), message)
    }

    @Test func badTimesAndUnknownSessionsAreRefused() throws {
        expectError(try sandbox.run(["search", "--until", "yesterday-ish"]), startingWith: "--until takes an ISO 8601")
        expectError(try sandbox.run(["search", "--session", "9"]), startingWith: "")
    }

    @Test func reportOfOneSessionCountsVetoesAndNamesEvents() throws {
        let run = try sandbox.run(["report", "--session", "1"])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.stdoutLines.first, "report of session 1: 14 callbacks, 9 inputs")
        #expect(run.stdout.contains("veto rates"))
        #expect(run.stdout.contains("25.0%"))
        #expect(run.stdout.contains("slowest delegate calls"))
        let json = try decodeJSON(try sandbox.run(["report", "--session", "1", "--format", "json"]).stdout)
        guard case .array(let rows)? = json["rows"] else {
            Issue.record("no rows in \(json.json)")
            return
        }
        expectEqual(rows.count, 4)
        let payment = rows.first { $0["widget"] == .string("checkout/payment") && $0["vetoes"] == .int(1) }
        expectEqual(payment?["calls"], .int(4))
        expectEqual(payment?["veto_rate"], .double(0.25))
        expectEqual(payment?["vetoed_events"], .array([.object(["session": .int(1), "seq": .int(5)])]))
    }

    @Test func reportOfAllLeavesReplaysOutAndNamesSessions() throws {
        _ = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"])
        let run = try sandbox.run(["report", "--format", "csv"])
        expectEqual(run.status, 0, "\(run)")
        let records = parseCSV(run.stdout)
        expectEqual(records.count, 5)
        let header = records[0]
        let calls = records.dropFirst().map { Int($0[header.firstIndex(of: "calls")!])! }
        expectEqual(calls.reduce(0, +), 25)
        let vetoed = records.dropFirst().map { $0[header.firstIndex(of: "vetoed_events")!] }
        #expect(vetoed.contains("1:5 2:5"))
        let text = try sandbox.run(["report"])
        expectEqual(text.stdoutLines.first, "report of 2 recorded sessions (replays left out): 25 callbacks, 17 inputs")
    }
}
