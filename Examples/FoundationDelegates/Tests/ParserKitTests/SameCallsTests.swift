import AuditCore
import Foundation
import ParserKit
import Testing

/// One document and how the delegate answers it.
struct ParseCase: Sendable, CustomTestStringConvertible {
    var name: String
    var document: String
    var abortAt: Set<String> = []
    var abortAtComment = false
    var entityText: String?

    var testDescription: String { name }

    func makeLog() -> CallLog { CallLog(abortAt: abortAt, abortAtComment: abortAtComment, entityText: entityText) }

    static let all: [ParseCase] = [
        ParseCase(name: "the feed", document: feedDocument, entityText: "©"),
        ParseCase(name: "a veto", document: scriptDocument, abortAt: ["script"]),
        ParseCase(
            name: "an abort from a notification", document: "<feed><!-- stop --><item>x</item></feed>",
            abortAtComment: true),
        ParseCase(name: "a malformed document", document: "<feed><item>a</feed>"),
        ParseCase(
            name: "an entity answer that is used",
            document: #"<!DOCTYPE feed [<!ENTITY who "world"><!ELEMENT feed ANY>]><feed>hello &who; &copy;</feed>"#,
            entityText: "(c)"),
        ParseCase(
            name: "instructions, CDATA and prefixes",
            document: #"<?xml version="1.0"?><?style href='a.css'?><a:feed xmlns:a="urn:a"><![CDATA[x<y]]></a:feed>"#),
        ParseCase(name: "an empty document", document: ""),
    ]
}

/// Auditing never changes behaviour: an app's delegate sees, from a document view audited or
/// not, exactly the calls Foundation's `XMLParser` makes when the delegate is its own, and the
/// parse ends the same way.
@Suite("The app's delegate sees the same calls with or without the recorder")
struct SameCallsTests {
    @Test(arguments: ParseCase.all)
    func theSameCallsInTheSameOrder(_ parse: ParseCase) throws {
        let direct = parse.makeLog()
        let (completed, errorCode) = parseDirectly(parse.document, with: direct)

        let plain = parse.makeLog()
        let unaudited = DocumentView(identifier: "document")
        unaudited.delegate = plain
        unaudited.parse(parse.document)

        let folder = try TemporaryDirectory()
        let audited = parse.makeLog()
        let root = View(identifier: "screen")
        let view = DocumentView(identifier: "document")
        root.addSubview(view)
        view.delegate = audited
        let recorder = try Recorder(
            databasePath: folder.path("audit.sqlite"),
            session: NewSession(recordedInCode: "same-calls", delegate: "call-log"), catalog: catalog)
        try recorder.attach(to: root)
        view.parse(parse.document)
        recorder.detach(from: root)
        let summary = recorder.finish()

        #expect(plain.lines == direct.lines)
        #expect(audited.lines == direct.lines)
        for outcome in [unaudited.outcome, view.outcome] {
            #expect(outcome?.completed == completed && outcome?.errorCode == errorCode)
        }
        // Each call the delegate got is recorded once, nested under the parse.
        let events = try AuditStore(path: folder.path("audit.sqlite"), access: .read).timeline(of: summary.session)
        #expect(events.filter { $0.kind == .callback }.count == direct.lines.count)
        #expect(events.filter { $0.kind == .input }.count == 1)
    }
}
