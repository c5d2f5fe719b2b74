import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// How `show`, `diff`, `report` and the HTML page name an answer: VETOED for a veto, OVERRIDDEN for
/// an override that differs from its proposal (the checkout example's `willSelectRowAt` answers
/// nil for the gift card row, seq 30).
@Suite("auditctl names vetoes and overrides apart")
struct AnswerOutputTests {
    static let willSelect = "tableView(_:willSelectRowAt:)"

    /// A sandbox with the shipped checkout example recorded with `delegate`, as session 1, 2, ….
    static func recorded(_ delegates: String...) throws -> Sandbox {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(
            at: Sandbox.packageRoot.appendingPathComponent("Examples/checkout.json"),
            to: URL(fileURLWithPath: sandbox.path("full.json")))
        for delegate in delegates {
            let run = try sandbox.run(["record", "--scenario", "full.json", "--delegate", delegate])
            guard run.status == 0 else { throw SandboxError(description: "recording failed\n\(run)") }
        }
        return sandbox
    }

    @Test func showMarksOverridesAsOverriddenAndVetoesAsVetoed() throws {
        let sandbox = try Self.recorded("checkout.v1")
        let run = try sandbox.run(["show", "--session", "1"])
        expectEqual(run.status, 0, "\(run)")
        let willSelect = run.stdoutLines.filter { $0.contains(Self.willSelect) }
        expectEqual(willSelect.count, 3)
        expectEqual(willSelect.filter { $0.hasSuffix("→ null  OVERRIDDEN") }.count, 1, "\(willSelect)")
        #expect(!willSelect.contains { $0.contains("VETOED") })
        expectEqual(run.stdoutLines.first?.hasSuffix("157 events, 2 vetoes"), true, "\(run)")
        expectEqual(run.stdoutLines.filter { $0.hasSuffix("  VETOED") }.count, 2)

        let json = try decodeJSON(try sandbox.run(["show", "--session", "1", "--format", "json"]).stdout)
        guard case .array(let events)? = json["events"] else {
            Issue.record("no events in \(json.json)")
            return
        }
        let overridden = events.filter { $0["callback"] == .string(Self.willSelect) }.map { $0["overridden"] }
        expectEqual(overridden, [.bool(false), .bool(true), .bool(false)])
        expectEqual(events.first { $0["kind"] == .string("input") }?["overridden"], .null)
    }

    @Test func diffAndTheHTMLPageSayOverridden() throws {
        let sandbox = try Self.recorded("checkout.v1", "checkout.v2")
        let diff = try sandbox.run(["diff", "1", "2"])
        #expect(diff.stdout.contains("#30 {\"indexPath\":{\"row\":0,\"section\":1}} → null  OVERRIDDEN\n"), "\(diff)")
        #expect(!diff.stdoutLines.contains { $0.contains("→ null  VETOED") })

        let report = try sandbox.run(["report", "--session", "1", "--html", "page.html"])
        expectEqual(report.status, 0, "\(report)")
        let html = try String(contentsOfFile: sandbox.path("page.html"), encoding: .utf8)
        #expect(html.contains("→ null  OVERRIDDEN"))
        #expect(!html.contains("→ null  VETOED"))
    }

    @Test func searchFindsVetoesAndOverridesApart() throws {
        let sandbox = try Self.recorded("checkout.v1")
        func found(_ filters: String...) throws -> [[String]] {
            let run = try sandbox.run(["search"] + filters + ["--format", "csv"])
            expectEqual(run.status, 0, "\(run)")
            return Array(parseCSV(run.stdout).dropFirst())
        }
        let header = parseCSV(try sandbox.run(["search", "--vetoed", "yes", "--format", "csv"]).stdout).first
        expectEqual(header?[10...11], ["vetoed", "overridden"])
        let vetoes = try found("--vetoed", "yes")
        #expect(vetoes.count == 2 && vetoes.allSatisfy { $0[10] == "true" && $0[11] == "" }, "\(vetoes)")
        #expect(try found("--vetoed", "no").allSatisfy { $0[7] != Self.willSelect && $0[10] == "false" })
        // willSelectRowAt's nil for the gift card row, the scroll view's moved target, and the back
        // pan's simultaneous recognition, answered true.
        let overridden = try found("--overridden", "yes")
        expectEqual(overridden.map(\.[1]), ["30", "75", "152", "155"], "\(overridden)")
        #expect(overridden.allSatisfy { $0[10] == "" && $0[11] == "true" })
        let kept = try found("--overridden", "no", "--callback", Self.willSelect)
        expectEqual(kept.map(\.[1]), ["26", "33"], "\(kept)")
        #expect(kept.allSatisfy { $0[11] == "false" })
        // The same rows as SQL on the `timeline` view finds.
        let query = try sandbox.run(["query", "select count(*) from timeline where overridden", "--format", "csv"])
        expectEqual(parseCSV(query.stdout).last, ["\(overridden.count)"])
        let none = try sandbox.run(["search", "--vetoed", "yes", "--overridden", "yes"])
        #expect(none.status == 1 && none.stderr.contains("no events match"), "\(none)")
    }

    @Test func reportCountsOnlyVetoesInVetoRatesAndOverridesApart() throws {
        let sandbox = try Self.recorded("checkout.v1")
        let text = try sandbox.run(["report", "--session", "1"])
        let vetoRates = text.stdoutLines.drop { $0 != "veto rates" }.prefix { !$0.isEmpty }
        #expect(vetoRates.count > 2, "\(text)")
        #expect(!vetoRates.contains { $0.contains(Self.willSelect) })
        let overrideRates = text.stdoutLines.drop { !$0.hasPrefix("override rates") }.prefix { !$0.isEmpty }
        #expect(overrideRates.contains { $0.contains(Self.willSelect) && $0.contains("33.3%") }, "\(text)")

        let json = try decodeJSON(try sandbox.run(["report", "--session", "1", "--format", "json"]).stdout)
        guard case .array(let rows)? = json["rows"],
            let row = rows.first(where: { $0["callback"] == .string(Self.willSelect) })
        else {
            Issue.record("no \(Self.willSelect) row")
            return
        }
        #expect(row["vetoable"] == .int(0) && row["vetoes"] == .int(0) && row["veto_rate"] == .null)
        #expect(row["overridable"] == .int(3) && row["overrides"] == .int(1))
        expectEqual(row["overridden_events"], .array([.object(["session": .int(1), "seq": .int(30)])]))
        let csv = parseCSV(try sandbox.run(["report", "--session", "1", "--format", "csv"]).stdout)
        expectEqual(
            csv.first?.suffix(6),
            [
                "overridable", "overrides", "override_rate", "overridden_events", "mistakes", "mistake_events",
            ])
    }
}
