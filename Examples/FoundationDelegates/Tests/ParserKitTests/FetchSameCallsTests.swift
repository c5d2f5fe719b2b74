import AuditCore
import FetchKit
import Foundation
import Testing

/// Auditing never changes behaviour: an app's delegate sees, from a fetch view audited or not,
/// the same calls in the same order with the same answers, and each fetch ends the same way.
@Suite("The fetch view's delegate sees the same calls with or without the recorder")
struct FetchSameCallsTests {
    /// Fetches `sitePaths` with a logging `reader`, recorded when `database` is given; returns what
    /// the delegate saw and how each fetch ended.
    func run(_ reader: SiteReader, recordingInto database: String?) throws -> (
        lines: [String], outcomes: [FetchOutcome?]
    ) {
        let root = buildBrowser()
        let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
        let log = LoggingSiteReader(reader)
        view.delegate = log
        var outcomes: [FetchOutcome?] = []
        var recorder: Recorder?
        if let database {
            recorder = try Recorder(
                databasePath: database, session: NewSession(recordedInCode: "same-calls", delegate: "logging"),
                catalog: fetchCatalog)
            try recorder?.attach(to: root)
        }
        for path in sitePaths {
            view.fetch(path)
            outcomes.append(view.outcome)
        }
        recorder?.detach(from: root)
        _ = recorder?.finish()
        return (log.lines, outcomes)
    }

    @Test(arguments: ["fetch.v1", "fetch.v2", "fetch.later"])
    func theSameCallsInTheSameOrder(delegate: String) throws {
        let folder = try TemporaryDirectory()
        let make = { try require(try DelegateRegistry.fetchers.entry(named: delegate).make() as? SiteReader) }
        let plain = try run(try make(), recordingInto: nil)
        let audited = try run(try make(), recordingInto: folder.path("audit.sqlite"))
        #expect(plain.lines == audited.lines)
        #expect(plain.outcomes == audited.outcomes)
        let expected =
            delegate != "fetch.v2"
            ? [
                "redirect 302 /old → /page.html", "  follow /page.html", "response 200 /page.html text/html", "  allow",
                "body 74", "complete 0",
            ]
            : ["redirect 302 /old → /page.html", "  follow nil", "response 302 /old nil", "  allow", "complete 0"]
        #expect(Array(plain.lines.prefix(expected.count)) == expected)
        if delegate == "fetch.v2" {
            #expect(plain.lines.contains("response 200 /song.mp3 audio/mpeg") && plain.lines.contains("complete -999"))
            #expect(!plain.lines.contains("body 41"))
        }
    }

    /// The view forwards what the session sends, in the order it sends it: the app's delegate
    /// (answering as `fetch.v1`) sees the calls a session's own delegate sees, one body per
    /// response.
    @Test(arguments: sitePaths)
    func theViewsDelegateSeesWhatTheSessionSends(path: String) throws {
        let direct = SessionLog()
        direct.load(path)
        let root = buildBrowser()
        let view = try require(root.view(atPath: "screen/browser") as? FetchView, "fetch view")
        let reader = LoggingSiteReader(SiteReader())
        view.delegate = reader
        view.fetch(path)
        func shape(_ line: String) -> String? {
            let words = line.split(separator: " ")
            switch words.first {
            case "redirect": return "redirect \(words[1])"
            case "response": return "response \(words[1]) \(words[2])"
            case "data", "body": return "body \(words[1])"
            case "challenge": return "challenge"
            case "complete": return line
            default: return nil  // the view's delegate's answers
            }
        }
        #expect(reader.lines.compactMap(shape) == direct.lines.compactMap(shape))
    }
}
