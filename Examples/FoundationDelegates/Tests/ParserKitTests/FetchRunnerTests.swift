import Foundation
import Testing

@Suite("fetch-audit, the site's runner, as a process (it serves the site itself)")
struct FetchRunnerTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    func fetchAudit(_ arguments: String...) throws -> Run {
        try run(arguments + ["--db", database], in: folder, executable: "fetch-audit")
    }

    /// Each command is its own process with its own server on its own port: the recording keeps
    /// paths only, so the replays fetch the same pages from another server.
    @Test func recordShowReplayDiffAndQuery() throws {
        let record = try fetchAudit("record", "--scenario", fetchScenarioPath, "--delegate", "fetch.v1")
        #expect(record.status == 0 && record.stdout == "1\n", "\(record)")
        #expect(record.stderr.contains("27 events (4 inputs, 23 callbacks, 0 vetoes)"), "\(record)")

        let show = try fetchAudit("show", "--session", "1")
        #expect(show.status == 0, "\(show)")
        #expect(show.lines.first == "session 1 · scenario site · delegate fetch.v1 · complete · 27 events, 0 vetoes")
        #expect(
            show.lines.contains {
                $0.contains("fetchView(_:didReceiveChallenge:completionHandler:)")
                    && $0.contains(
                        #"→ {"disposition":"useCredential","password":"opensesame","user":"reader"}  (answers #"#)
            }, "\(show)")

        let interaction = try fetchAudit("replay", "--session", "1", "--delegate", "fetch.v2")
        #expect(interaction.status == 1, "\(interaction)")
        #expect(
            interaction.lines.contains {
                $0.hasPrefix(
                    "REGRESSION: 8 differences between the recorded session (27 events) and the candidate (25 events)")
            }, "\(interaction)")

        let isolated = try fetchAudit("replay", "--session", "1", "--delegate", "fetch.v2", "--isolated")
        #expect(isolated.status == 1, "\(isolated)")
        #expect(isolated.lines.contains { $0.hasPrefix("REGRESSION: 2 differences") }, "\(isolated)")
        #expect(
            isolated.lines.contains(
                "  screen/browser  FetchViewDelegate.fetchView(_:willRedirect:to:completionHandler:): 1 override changed"
            ),
            "\(isolated)")
        #expect(
            isolated.lines.contains(
                "  screen/browser  FetchViewDelegate.fetchView(_:didReceiveResponse:completionHandler:): 1 veto changed"
            ),
            "\(isolated)")

        let same = try fetchAudit("replay", "--session", "1", "--delegate", "fetch.v1", "--isolated")
        #expect(same.status == 0, "\(same)")

        let diff = try fetchAudit("diff", "1", "2")
        #expect(diff.status == 1, "\(diff)")
        #expect(diff.lines.contains { $0.hasPrefix("8 differences:") }, "\(diff)")

        let query = try fetchAudit(
            "query",
            """
            select ask.session, json_extract(ask.args, '$.response.path') from timeline as ask
            join timeline as answer on answer.session = ask.session and answer.answers = ask.seq
            where answer.vetoed order by ask.session
            """,
            "--format", "csv")
        #expect(query.status == 0, "\(query)")
        #expect(query.lines.dropFirst() == ["2,/song.mp3", "3,/song.mp3"], "\(query)")
    }

    @Test func theCallbacksAreListedWithTheirAnswers() throws {
        let callbacks = try fetchAudit("callbacks")
        #expect(callbacks.status == 0, "\(callbacks)")
        let fetch = callbacks.lines.filter { $0.contains(" FetchViewDelegate ") }
        #expect(fetch.count == 5, "\(callbacks)")
    }
}
