import AuditCore
import FetchKit
import Foundation
import Testing

private let redirect = "fetchView(_:willRedirect:to:completionHandler:)"
private let challenge = "fetchView(_:didReceiveChallenge:completionHandler:)"
private let response = "fetchView(_:didReceiveResponse:completionHandler:)"
private let didLoad = "fetchView(_:didLoad:)"
private let didComplete = "fetchView(_:didCompleteWithError:)"

@Suite("Foundation's URLSession against a loopback server: recorded, replayed, diffed and queried")
struct FetchRecordReplayTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    func timeline(_ session: Int64) throws -> [TimelineEvent] {
        try AuditStore(path: database, access: .read).timeline(of: session)
    }

    func replay(_ session: Int64, _ delegate: String, _ mode: ReplayMode) throws -> ReplayReport {
        try Replayer(databasePath: database, registry: .fetchers, catalog: fetchCatalog)
            .replay(session: session, delegate: delegate, mode: mode)
    }

    @Test func aSessionRecordedInCodeHoldsEachAskAndItsAnswer() throws {
        let summary = try recordFetchesInCode(database: database)
        let events = try timeline(summary.session)
        #expect(events.count == 27)
        let inputs = events.filter { $0.kind == .input }
        #expect(inputs.map(\.arguments) == sitePaths.map { #"{"path":"\#($0)"}"# })
        #expect(
            inputs.map(\.result)
                == [
                    #"{"bytes":74,"cancelled":false,"path":"\/page.html","status":200}"#,
                    #"{"bytes":74,"cancelled":false,"path":"\/private","status":200}"#,
                    #"{"bytes":41,"cancelled":false,"path":"\/song.mp3","status":200}"#,
                    #"{"bytes":74,"cancelled":false,"path":"\/page.html","status":200}"#,
                ].map { $0.replacingOccurrences(of: #"\/"#, with: "/") })
        // The second fetch, in order: the 401 is a response (allowed), its body, then the challenge,
        // answered with the reader's credential, then the page.
        let secondInput = try #require(inputs.dropFirst().first)
        let second = events.filter { $0.seq > secondInput.seq && $0.seq < inputs[2].seq && $0.kind == .callback }
        #expect(
            second.map { "\($0.callback) \($0.later?.name ?? "-")" } == [
                "\(response) asked", "\(response) answered", "\(didLoad) -", "\(challenge) asked",
                "\(challenge) answered", "\(response) asked", "\(response) answered", "\(didLoad) -",
                "\(didComplete) -",
            ])
        #expect(second[0].arguments == #"{"response":{"mimeType":"text/plain","path":"/private","status":401}}"#)
        #expect(
            second[4].result == #"{"disposition":"useCredential","password":"opensesame","user":"reader"}"#)
        // Each answer names its ask and, given at once, is nested under it.
        for answer in events.filter({ $0.later == .answered }) {
            let ask = try #require(events.first { $0.seq == answer.answers })
            #expect(ask.later == .asked && ask.callback == answer.callback && answer.parentSeq == ask.seq)
        }
        // The redirect's answer is the proposed request, unchanged: not an override that took effect.
        let followed = try #require(events.first { $0.callback == redirect && $0.later == .answered })
        #expect(followed.result == #""/page.html""# && followed.overridden == false)
        #expect(events.filter { $0.vetoed == true }.isEmpty)
    }

    @Test func theScenarioFileAndTheCodeRecordTheSameCalls() throws {
        let fromFile = try timeline(try recordFetchScenario(database: database).session)
        let inCode = try timeline(try recordFetchesInCode(database: database).session)
        func calls(_ events: [TimelineEvent]) -> [String] {
            events.map { "\($0.callback) \($0.arguments) → \($0.result ?? "()")" }
        }
        #expect(calls(fromFile) == calls(inCode))
    }

    @Test(arguments: [ReplayMode.interaction, .isolated])
    func bothSessionsReplayIdenticallyAgainstV1(mode: ReplayMode) throws {
        for session in [
            try recordFetchScenario(database: database).session, try recordFetchesInCode(database: database).session,
        ] {
            let report = try replay(session, "fetch.v1", mode)
            #expect(report.identical, "session \(session): \(report.diff.differences.map(describe))")
            #expect(report.inputsSkipped == 0 && report.inputsReplayed == 4)
        }
    }

    /// Isolated replay fetches the same pages again but gives the session the recorded answers:
    /// exactly v2's two planted changes, and nothing they led to.
    @Test func isolatedReplayFindsExactlyThePlantedChanges() throws {
        let session = try recordFetchesInCode(database: database).session
        let report = try replay(session, "fetch.v2", .isolated)
        #expect(report.diff.differences.map(describe) == ["override_changed \(redirect)", "veto_changed \(response)"])
        let refused = try #require(report.diff.differences.first)
        #expect(refused.a?.result == #""/page.html""# && refused.b?.result == "null" && refused.b?.overridden == true)
        let cancelled = try #require(report.diff.differences.last)
        #expect(cancelled.a?.vetoed == false && cancelled.b?.vetoed == true)
        #expect(report.diff.eventsA == 27 && report.diff.eventsB == 27)
    }

    /// Interaction replay fetches the same pages from the same server and lets v2's answers act:
    /// the refused redirect ends the first fetch at the 302 (its response is asked about instead of
    /// the page's, and the page's body is missing), and the cancelled song ends with -999 and
    /// without its body. 8 differences; the candidate has 2 events fewer (two bodies).
    @Test func interactionReplayFollowsV2sAnswers() throws {
        let session = try recordFetchScenario(database: database).session
        let report = try replay(session, "fetch.v2", .interaction)
        #expect(
            report.diff.differences.map(describe) == [
                "result_changed fetch", "override_changed \(redirect)", "arguments_changed \(response)",
                "only_in_a \(didLoad)", "result_changed fetch", "veto_changed \(response)", "only_in_a \(didLoad)",
                "arguments_changed \(didComplete)",
            ])
        #expect(report.diff.eventsA == 27 && report.diff.eventsB == 25)
        #expect(report.firstDivergence?.difference.event.callback == redirect)
        #expect(
            report.diff.differences.last?.b?.arguments == #"{"error":{"code":-999,"domain":"NSURLErrorDomain"}}"#)
    }

    @Test func diffComparesARecordingWithV1AndOneWithV2() throws {
        let v1 = try recordFetchesInCode(database: database).session
        let v2 = try recordFetchesInCode(database: database, delegate: "fetch.v2").session
        let diff = try SessionDiffer(try AuditStore(path: database, access: .read)).diff(v1, v2)
        #expect(!diff.identical && diff.sameScenario)
        #expect(diff.differences.count == 8)
        #expect(diff.differences.filter { $0.kind == .vetoChanged }.count == 1)
        #expect(diff.differences.filter { $0.kind == .overrideChanged }.count == 1)
    }

    @Test func sqlJoinsEachAskWithItsAnswer() throws {
        _ = try recordFetchesInCode(database: database)
        _ = try recordFetchesInCode(database: database, delegate: "fetch.v2")
        let answers = try ReadOnlyQuery.run(
            """
            select ask.session, json_extract(ask.args, '$.response.path'), answer.result
            from timeline as ask join timeline as answer
              on answer.session = ask.session and answer.answers = ask.seq
            where ask.later = 'asked' and answer.vetoed order by ask.session, ask.seq
            """, databasePath: database)
        #expect(answers.rows == [[.integer(2), .text("/song.mp3"), .text("false")]])
        let redirects = try ReadOnlyQuery.run(
            "select session, result, overridden from timeline where callback = '\(redirect)' and later = 'answered'",
            databasePath: database)
        #expect(
            redirects.rows == [
                [.integer(1), .text(#""/page.html""#), .integer(0)], [.integer(2), .text("null"), .integer(1)],
            ])
    }
}
