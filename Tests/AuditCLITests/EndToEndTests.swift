import AuditCore
import Foundation
import SharedTestSupport
import Testing

@testable import AuditExamples

/// The built `auditctl`, run as a process in a fresh directory: what each command prints on
/// stdout and stderr, and its exit status.
@Suite("auditctl end to end")
struct EndToEndTests {
    /// What the shipped example records with `checkout.v1`: 8 steps plus one selection the
    /// delegate makes in code, 14 callbacks, one veto (invoice refused with express shipping).
    static let exampleEvents = 23
    static let exampleInputs = 9
    static let exampleCallbacks = 14
    static let shouldSelect = "segmentedControl(_:shouldSelectSegmentAt:)"
    static let didSelect = "segmentedControl(_:didSelectSegmentAt:userInteracted:)"

    // MARK: record

    @Test func recordPrintsTheSessionID() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        let first = try sandbox.run(["record", "--scenario", "checkout.json"])
        expectEqual(first.status, 0, "\(first)")
        expectEqual(first.stdout, "1\n")
        // Progress goes to stderr, as one line.
        #expect(
            first.stderr.hasPrefix("recorded session 1: 23 events (9 inputs, 14 callbacks, 1 veto) into audit.sqlite")
        )
        #expect(first.stderr.hasSuffix("\n") && first.stderr.filter { $0 == "\n" }.count == 1, "\(first)")
        let second = try sandbox.run(["record", "--scenario", "checkout.json"])
        expectEqual(second.status, 0)
        expectEqual(second.stdout, "2\n")

        let store = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read)
        let sessions = try store.sessions()
        expectEqual(sessions.map(\.id), [1, 2])
        let session = try #require(sessions.first)
        expectEqual(session.scenario, "checkout")
        expectEqual(session.delegate, "checkout.v1")
        expectEqual(session.status, .complete)
        #expect(session.name == nil)
        expectEqual(session.events, Self.exampleEvents)
        expectEqual(session.inputs, Self.exampleInputs)
        expectEqual(session.callbacks, Self.exampleCallbacks)
        expectEqual(session.vetoes, 1)
        let timeline = try store.timeline(of: 1)
        expectEqual(timeline.map(\.seq), Array(1...Int64(Self.exampleEvents)))
        expectEqual(timeline.filter { $0.kind == .input }.count, Self.exampleInputs)
        expectEqual(timeline.filter { $0.vetoed == true }.map(\.seq), [5])
    }

    @Test(
        "record --format json gives the session, events and vetoes",
        arguments: [("checkout.v1", 23, 1), ("checkout.v2", 19, 2)])
    func recordJSON(delegate: String, events: Int, vetoes: Int) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run([
            "record", "--scenario", "checkout.json", "--format", "json", "--delegate", delegate, "--name", "smoke",
        ])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.stderr, "")
        #expect(run.stdoutLines.count == 2 && run.stdoutLines[1] == "", "one line of JSON")
        try expectEqual(
            decodeJSON(run.stdout), .object(["session": .int(2), "events": .int(events), "vetoes": .int(vetoes)]))

        // The numbers are what the database holds.
        let store = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read)
        let session = try store.session(2)
        expectEqual(session.delegate, delegate)
        expectEqual(session.name, "smoke")
        expectEqual(session.events, events)
        expectEqual(session.vetoes, vetoes)
        let timeline = try store.timeline(of: 2)
        expectEqual(timeline.count, events)
        expectEqual(timeline.filter { $0.vetoed == true }.count, vetoes)
    }

    @Test func concurrentRecordingsGetTheirOwnSessions() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        let runs = try sandbox.runConcurrently(Array(repeating: ["record", "--scenario", "checkout.json"], count: 4))
        expectEqual(runs.map(\.status), [0, 0, 0, 0], "\(runs)")
        expectEqual(Set(runs.map(\.stdout)), ["1\n", "2\n", "3\n", "4\n"])
        let sessions = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions()
        expectEqual(sessions.map(\.status), Array(repeating: .complete, count: 4))
        expectEqual(sessions.map(\.events), Array(repeating: Self.exampleEvents, count: 4))
    }

    // MARK: sessions

    static let sessionColumns = [
        "id", "name", "scenario", "delegate", "status", "started_at", "events", "callbacks", "vetoes", "replay_of",
        "labels",
    ]

    /// Two sessions: the example with v1, then with v2 and a label.
    static func twoSessions() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run([
            "record", "--scenario", "checkout.json", "--delegate", "checkout.v2", "--name", "smoke",
        ])
        guard run.status == 0 else { throw SandboxError(description: "\(run)") }
        return sandbox
    }

    static func isTimestamp(_ text: String) -> Bool {
        text.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#) != nil
    }

    @Test func sessionsAsCSV() throws {
        let sandbox = try Self.twoSessions()
        let run = try sandbox.run(["sessions", "--format", "csv"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let records = parseCSV(run.stdout)
        try #require(records.count == 3, "\(run)")
        expectEqual(records[0], Self.sessionColumns + ["uuid"])
        #expect(Self.isTimestamp(records[1][5]))
        #expect(records[1][11] != records[2][11] && records.dropFirst().allSatisfy { UUID(uuidString: $0[11]) != nil })
        expectEqual(
            records[1].enumerated().filter { $0.offset != 5 && $0.offset != 11 }.map(\.element),
            [
                "1", "", "checkout", "checkout.v1", "complete", "23", "14", "1", "", "",
            ])
        expectEqual(
            records[2].enumerated().filter { $0.offset != 5 && $0.offset != 11 }.map(\.element),
            [
                "2", "smoke", "checkout", "checkout.v2", "complete", "19", "11", "2", "", "",
            ])
    }

    @Test func sessionsAsJSON() throws {
        let sandbox = try Self.twoSessions()
        let run = try sandbox.run(["sessions", "--format", "json"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        guard case .array(let sessions) = try decodeJSON(run.stdout) else {
            Issue.record("not a JSON array: \(run.stdout)")
            return
        }
        try #require(sessions.count == 2)
        guard case .object(var second) = sessions[1], case .string(let started)? = second["started_at"] else {
            Issue.record("no started_at: \(sessions[1])")
            return
        }
        #expect(Self.isTimestamp(started))
        second["started_at"] = nil
        guard case .string(let uuid)? = second.removeValue(forKey: "uuid") else {
            Issue.record("no uuid: \(sessions[1])")
            return
        }
        #expect(UUID(uuidString: uuid) != nil)
        expectEqual(
            second,
            [
                "id": .int(2), "name": .string("smoke"), "scenario": .string("checkout"),
                "delegate": .string("checkout.v2"),
                "status": .string("complete"), "events": .int(19), "callbacks": .int(11), "vetoes": .int(2),
                "replay_of": .null, "labels": .null,
            ])
        expectEqual(sessions[0]["name"], .null)
        expectEqual(sessions[0]["vetoes"], .int(1))
    }

    @Test func sessionsAsText() throws {
        let sandbox = try Self.twoSessions()
        let run = try sandbox.run(["sessions"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let lines = run.stdoutLines
        try #require(lines.count == 4 && lines[3] == "", "\(run)")
        expectEqual(lines[0].split(separator: " ").map(String.init), Self.sessionColumns)
        let first = lines[1].split(separator: " ").map(String.init)
        let second = lines[2].split(separator: " ").map(String.init)
        #expect(first.count == 8 && first.first == "1" && first[1...3] == ["checkout", "checkout.v1", "complete"])
        expectEqual(second, ["2", "smoke", "checkout", "checkout.v2", "complete", second[5], "19", "11", "2"])
        // Columns are aligned: every value starts under its heading.
        let header = lines[0]
        let delegateColumn = try #require(header.range(of: "delegate")).lowerBound.utf16Offset(in: header)
        for line in lines[1...2] {
            #expect(line.dropFirst(delegateColumn).hasPrefix("checkout.v"), "\(line)")
        }
    }

    // MARK: show

    @Test func showIndentsNestedCallbacks() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["show", "--session", "1"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let lines = run.stdoutLines
        try #require(lines.count == Self.exampleEvents + 2 && lines.last == "", "\(run)")
        expectEqual(lines[0], "session 1 · scenario checkout · delegate checkout.v1 · complete · 23 events, 1 veto")

        // "  SEQ   T.TTT ms  INDENT…": the indentation is two spaces per level of nesting.
        let pattern = #/^ *(\d+) +\d+\.\d{3} ms  ( *)(.*)$/#
        var depth: [Int: Int] = [:]
        for line in lines[1..<lines.count - 1] {
            let match = try #require(try pattern.wholeMatch(in: line), "\(line)")
            depth[Int(match.1)!] = match.2.count / 2
            expectEqual(match.2.count % 2, 0)
            expectEqual(match.3.hasSuffix("VETOED"), (match.1 == "5"), "\(line)")
        }
        // Step 5 picks store pickup; the delegate then switches payment to card in code (seq 15),
        // which asks and tells the delegate again, one level deeper.
        expectEqual(
            depth,
            [
                1: 0, 2: 1, 3: 1, 4: 0, 5: 1, 6: 0, 7: 1, 8: 1, 9: 0, 10: 1, 11: 1, 12: 0, 13: 1, 14: 1, 15: 2, 16: 3,
                17: 3, 18: 0, 19: 1, 20: 0, 21: 1, 22: 1, 23: 0,
            ])
        #expect(
            lines[15].hasSuffix("  ▶ checkout/payment selectSegment {\"segment\":0,\"notify\":true} → {\"selected\":0}")
        )
        #expect(lines[5].hasSuffix("  checkout/payment \(Self.shouldSelect) {\"index\":2} → false  VETOED"))
        #expect(lines[17].hasSuffix("      checkout/payment \(Self.didSelect) {\"index\":0,\"userInteracted\":false}"))
    }

    @Test func showAsJSON() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["show", "--session", "1", "--format", "json"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let document = try decodeJSON(run.stdout)
        expectEqual(document["session"]?["id"], .int(1))
        expectEqual(document["session"]?["events"], .int(23))
        expectEqual(document["session"]?["inputs"], .int(9))
        expectEqual(document["session"]?["vetoes"], .int(1))
        expectEqual(document["session"]?["delegate"], .string("checkout.v1"))
        guard case .array(let events)? = document["events"] else {
            Issue.record("no events array: \(run.stdout)")
            return
        }
        try #require(events.count == 23)
        let vetoed = events[4]
        expectEqual(vetoed["seq"], .int(5))
        expectEqual(vetoed["callback"], .string(Self.shouldSelect))
        expectEqual(vetoed["protocol"], .string("SegmentedControlDelegate"))
        expectEqual(vetoed["widget"], .string("checkout/payment"))
        expectEqual(vetoed["args"], .object(["index": .int(2)]), "args are embedded as JSON, not as a string")
        expectEqual(vetoed["result"], .bool(false))
        expectEqual(vetoed["vetoed"], .bool(true))
        expectEqual(vetoed["implemented"], .bool(true))
        expectEqual(vetoed["parent_seq"], .int(4))
        #expect(
            events[0]["kind"] == .string("input") && events[0]["vetoed"] == .null && events[0]["parent_seq"] == .null)
        expectEqual(events[15]["parent_seq"], .int(15))
        expectEqual(events[2]["result"], .null, "a void callback has a null result")
    }

    @Test func showAsCSV() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["show", "--session", "1", "--format", "csv"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let records = parseCSV(run.stdout)
        try #require(records.count == 24, "\(run)")
        expectEqual(
            records[0],
            [
                "seq", "t_ms", "kind", "widget", "widget_kind", "protocol", "callback", "args", "result", "vetoed",
                "overridden", "implemented", "duration_us", "parent_seq",
            ])
        #expect(records.allSatisfy { $0.count == 14 })
        let row = records[5]
        expectEqual(
            [row[0], row[2], row[3], row[4], row[5], row[6]],
            [
                "5", "callback", "checkout/payment", "SegmentedControl", "SegmentedControlDelegate", Self.shouldSelect,
            ])
        expectEqual(
            [row[7], row[8], row[9], row[10], row[11], row[13]], ["{\"index\":2}", "false", "true", "", "true", "4"])
        expectEqual(records[3][7], "{\"index\":1,\"userInteracted\":true}", "a field with a comma is quoted")
        #expect(Double(row[1]) != nil && Double(row[12]) != nil)
    }

    // MARK: catalogs and demo

    @Test(arguments: ["text", "json", "csv"])
    func delegatesListsTheRegistry(format: String) throws {
        let sandbox = try Sandbox()
        let run = try sandbox.run(["delegates", "--format", format])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let entries = DelegateRegistry.examples.entries.map { [$0.name, $0.summary] }
        expectEqual(entries.map { $0[0] }, ["checkout.v1", "checkout.v2", "browser.v1", "browser.v2"])
        switch format {
        case "json":
            try expectEqual(
                decodeJSON(run.stdout),
                .array(entries.map { .object(["name": .string($0[0]), "summary": .string($0[1])]) }))
        case "csv":
            expectEqual(parseCSV(run.stdout), [["name", "summary"]] + entries)
        default:
            let lines = run.stdoutLines
            #expect(
                lines.count == entries.count + 2 && lines[0].hasPrefix("name ") && lines[0].hasSuffix(" summary"),
                "\(run)")
            for (line, entry) in zip(lines.dropFirst(), entries) {
                #expect(line.hasPrefix(entry[0] + "  ") && line.hasSuffix("  " + entry[1]), "\(line)")
            }
        }
        #expect(!sandbox.exists("audit.sqlite"), "listing delegates needs no database")
    }

    @Test func callbacksListsTheCatalog() throws {
        let sandbox = try Sandbox()
        let csv = try sandbox.run(["callbacks", "--format", "csv"])
        #expect(csv.status == 0 && csv.stderr == "", "\(csv)")
        let records = parseCSV(csv.stdout)
        expectEqual(records.first, ["kind", "protocol", "callback", "arguments", "answer", "default", "answered"])
        let all = WidgetCatalog.builtIn.callbacks + WidgetCatalog.builtIn.inputs
        expectEqual(records.dropFirst().map { $0[2] }, all.map(\.name))
        #expect(
            records.contains([
                "callback", "SegmentedControlDelegate", Self.shouldSelect, "index", "veto", "true", "returned",
            ]))
        // The web view's navigation decisions come later: through a handler, or an async method's return.
        #expect(
            records.contains {
                $0[2] == "webView(_:decidePolicyForNavigationAction:decisionHandler:)" && $0[6] == "handler"
            })
        #expect(records.contains { $0[2] == "webView(_:decidePolicyForNavigationAction:)" && $0[6] == "async" })
        #expect(records.filter { $0[0] == "input" }.allSatisfy { $0[6] == "—" })
        #expect(records.contains { $0[0] == "callback" && $0[2] == Self.didSelect && $0[3] == "index, userInteracted" })
        #expect(records.contains { $0[0] == "input" && $0[2] == "tapSegment" })

        let json = try sandbox.run(["callbacks", "--format", "json"])
        expectEqual(json.status, 0)
        guard case .array(let rows) = try decodeJSON(json.stdout) else {
            Issue.record("not an array: \(json)")
            return
        }
        expectEqual(rows.map { $0["callback"] }, all.map { .string($0.name) })

        let text = try sandbox.run(["callbacks"])
        expectEqual(text.status, 0)
        expectEqual(text.stdoutLines.count, all.count + 2)
        #expect(text.stdoutLines.contains { $0.contains(Self.shouldSelect) && $0.contains(" veto ") })
    }

    @Test func demoRecordsReplaysAgainstV2AndNamesTheFirstDivergence() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.run(["demo"])
        expectEqual(run.status, 0, "\(run)")
        expectEqual(
            run.stdoutLines.first, "recorded the checkout example with checkout.v1 as session 1: 157 events, 2 vetoes")
        #expect(run.stdout.contains("REGRESSION: 33 differences"))
        #expect(run.stdout.contains("first divergence: veto changed\n"))
        #expect(run.stdout.contains("  input      #12 checkout/shipping tapSegment {\"segment\":2}\n"))
        #expect(run.stdout.contains("  candidate  #13 {\"index\":2} → false  VETOED\n"))
        #expect(run.stdout.contains("\n  auditctl show --session 1\n"))
        #expect(run.stdout.contains("\n  auditctl diff 1 2\n"))
        let sessions = try AuditStore(path: sandbox.path("audit.sqlite"), access: .read).sessions()
        expectEqual(sessions.map(\.name), ["demo", "replay of 1"])
        expectEqual(sessions.map(\.replayOf), [nil, 1])
        expectEqual(sessions.map(\.delegate), ["checkout.v1", "checkout.v2"])

        let json = try sandbox.run(["demo", "--format", "json", "--db", "other.sqlite"])
        #expect(json.status == 0 && json.stderr == "", "\(json)")
        let value = try decodeJSON(json.stdout)
        expectEqual(value["session"], .int(1))
        expectEqual(value["events"], .int(157))
        expectEqual(value["vetoes"], .int(2))
        expectEqual(value["replay"]?["identical"], .bool(false))
        expectEqual(value["replay"]?["candidate_session"], .int(2))
    }
}
