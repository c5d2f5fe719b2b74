import AuditCore
import Foundation
import ParserKit
import Testing

private let startElement = "parser(_:didStartElement:namespaceURI:qualifiedName:attributes:)"
private let resolve = "parser(_:resolveExternalEntityName:systemID:)"
private let parseError = "parser(_:parseErrorOccurred:)"
private let characters = "parser(_:foundCharacters:)"

@Suite("Foundation's XMLParser recorded, replayed, diffed and queried")
struct RecordReplayTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    func timeline(_ session: Int64) throws -> [TimelineEvent] {
        try AuditStore(path: database, access: .read).timeline(of: session)
    }

    func replay(_ session: Int64, _ delegate: String, _ mode: ReplayMode) throws -> ReplayReport {
        try Replayer(databasePath: database, registry: .feeds, catalog: catalog)
            .replay(session: session, delegate: delegate, mode: mode)
    }

    // MARK: Recording

    @Test func aSessionRecordedInCodeHoldsWhatTheRealParserSent() throws {
        let summary = try recordInCode(database: database)
        #expect((summary.inputs, summary.vetoes) == (2, 1))
        #expect(try AuditStore(path: database, access: .read).session(summary.session).delegate == "feed.v1")
        let events = try timeline(summary.session)
        #expect(events.allSatisfy { $0.kind == .input || $0.protocolName == "XMLParserDelegate" })
        // The inputs: each document, as parsed, and how the parse ended.
        let inputs = events.filter { $0.kind == .input }
        #expect(inputs.map(\.callback) == ["parse", "parse"])
        #expect(
            inputs.map(\.result) == [
                #"{"aborted":false,"completed":false,"errorCode":26}"#,
                #"{"aborted":true,"completed":false,"errorCode":111}"#,
            ])
        let documents = try inputs.map { input in
            try JSONDecoder().decode([String: String].self, from: Data(input.arguments.utf8))["document"]
        }
        #expect(documents == [feedDocument, scriptDocument])
        // Every element start is a veto: the reader refused the script, and only it.
        let starts = events.filter { $0.callback == startElement }
        #expect(starts.filter { $0.vetoed == true }.map(\.arguments) == [#"{"elementName":"script","attributes":{}}"#])
        #expect(starts.filter { $0.vetoed == false }.count == 11)
        #expect(
            starts.map(\.arguments).contains(#"{"elementName":"item","attributes":{"id":"1","lang":"en"}}"#),
            "the attribute the DTD defaults is passed like the others")
        // The value answer: the parser asked for the entity it does not know, with no system ID.
        let resolved = try #require(events.first { $0.callback == resolve })
        #expect(resolved.arguments == #"{"name":"copy","systemID":null}"#)
        #expect(resolved.result == #""©""# && resolved.vetoed == nil && resolved.overridden == nil)
        // …and reported the undeclared entity as an error right after, by its domain and code.
        let next = try #require(events.first { $0.seq == resolved.seq + 1 })
        #expect(next.callback == parseError)
        #expect(next.arguments == #"{"parseError":{"code":26,"domain":"NSXMLParserErrorDomain"}}"#)
        // Every callback nests under the parse that caused it; the delegate is asked nothing else.
        #expect(events.filter { $0.kind == .callback }.allSatisfy { $0.parentSeq != nil })
        // Foundation's protocol gives every method a default of its own: each call is "implemented".
        #expect(events.filter { $0.kind == .callback }.allSatisfy { $0.implemented == true })
    }

    @Test func theScenarioFileAndTheCodeRecordTheSameCalls() throws {
        let fromFile = try timeline(try recordScenario(database: database).session)
        let inCode = try timeline(try recordInCode(database: database).session)
        func calls(_ events: [TimelineEvent]) -> [String] {
            events.map { "\($0.callback) \($0.arguments) → \($0.result ?? "()")" }
        }
        #expect(calls(fromFile) == calls(inCode))
        #expect(fromFile.count == 35)
    }

    // MARK: Replaying against the recording delegate

    @Test(arguments: [ReplayMode.interaction, .isolated])
    func bothSessionsReplayIdenticallyAgainstV1(mode: ReplayMode) throws {
        let fromFile = try recordScenario(database: database).session
        let inCode = try recordInCode(database: database).session
        for session in [fromFile, inCode] {
            let report = try replay(session, "feed.v1", mode)
            #expect(report.identical, "session \(session): \(report.diff.differences.map(describe))")
            #expect(report.inputsSkipped == 0 && report.inputsReplayed == 2)
        }
    }

    // MARK: Replaying against the changed delegate

    /// Isolated replay parses the stored documents again but gives the parser the recorded
    /// answers: v2's two planted changes, and nothing they led to.
    @Test func isolatedReplayFindsExactlyThePlantedChanges() throws {
        let session = try recordInCode(database: database).session
        let report = try replay(session, "feed.v2", .isolated)
        #expect(report.diff.differences.map(describe) == ["result_changed \(resolve)", "veto_changed \(startElement)"])
        let entity = try #require(report.diff.differences.first)
        #expect(entity.a?.result == #""©""# && entity.b?.result == "null")
        let enclosure = try #require(report.diff.differences.last)
        #expect(enclosure.event.arguments == #"{"elementName":"enclosure","attributes":{"url":"episode.mp3"}}"#)
        #expect(enclosure.a?.vetoed == false && enclosure.b?.vetoed == true)
        // The parse went on as recorded after the candidate's veto: the script was still compared.
        #expect(report.diff.eventsA == report.diff.eventsB)
    }

    /// Interaction replay parses the stored documents again and lets v2's answers act: the parse
    /// stops at the enclosure, so the rest of the feed is missing from the candidate's run.
    @Test func interactionReplayStopsWhereV2Refuses() throws {
        let session = try recordScenario(database: database).session
        let report = try replay(session, "feed.v2", .interaction)
        let first = try #require(report.firstDivergence)
        #expect(first.difference.kind == .resultChanged && first.difference.event.callback == resolve)
        #expect(first.input?.callback == "parse")
        let kinds = Set(report.diff.differences.map(\.kind))
        #expect(kinds == [.resultChanged, .vetoChanged, .onlyInA])
        #expect(
            report.diff.differences.contains {
                $0.kind == .resultChanged && $0.event.callback == "parse"
                    && $0.b?.result == #"{"aborted":true,"completed":false,"errorCode":26}"#
            })
        #expect(
            report.diff.differences.filter { $0.kind == .onlyInA }.last?.event.callback == "parserDidEndDocument(_:)")
        #expect(report.diff.eventsA == 35 && report.diff.eventsB == 26)
    }

    // MARK: Diff and query

    @Test func diffComparesARecordingWithV1AndOneWithV2() throws {
        let v1 = try recordInCode(database: database).session
        let v2 = try recordInCode(database: database, delegate: "feed.v2").session
        let diff = try SessionDiffer(try AuditStore(path: database, access: .read)).diff(v1, v2)
        #expect(!diff.identical && diff.sameScenario)
        #expect(
            diff.differences.map(describe).prefix(3) == [
                "result_changed parse", "result_changed \(resolve)", "veto_changed \(startElement)",
            ])
        // The second document is parsed alike by both: they agree on the script.
        let scriptParse = diff.differences.filter { $0.event.arguments.contains("track()") }
        #expect(scriptParse.isEmpty)
    }

    @Test func sqlOnTheTimelineFindsTheVetoesAndTheAnswers() throws {
        _ = try recordInCode(database: database)
        _ = try recordInCode(database: database, delegate: "feed.v2")
        let vetoes = try ReadOnlyQuery.run(
            """
            select s.delegate, json_extract(t.args, '$.elementName') from timeline t
            join sessions s on s.id = t.session where t.vetoed order by t.session, t.seq
            """, databasePath: database)
        #expect(
            vetoes.rows == [
                [.text("feed.v1"), .text("script")], [.text("feed.v2"), .text("enclosure")],
                [.text("feed.v2"), .text("script")],
            ])
        let answers = try ReadOnlyQuery.run(
            "select session, result from timeline where callback = '\(resolve)' order by session",
            databasePath: database)
        #expect(answers.rows == [[.integer(1), .text(#""©""#)], [.integer(2), .text("null")]])
    }
}
