import AuditCore
import Foundation
import ParserKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A fresh temporary directory, removed when released: each test's own SQLite file lives here.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "parser-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appending(path: name).path }
}

/// The example package's root, found from this file's path (`Tests/ParserKitTests/TestSupport.swift`).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The shipped scenario, `feed.json`: it parses `feedDocument`, then `scriptDocument`.
let scenarioPath = packageRoot.appending(path: "feed.json").path

func feedScenario() throws -> Scenario { try Scenario(contentsOf: scenarioPath, catalog: catalog) }

/// A feed with a DTD (one attribute declaration with a default), a comment, an undeclared entity
/// (`&copy;`, which the parser asks the delegate to resolve), an item with an enclosure (which
/// `feed.v2` refuses) and a CDATA title.
let feedDocument = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE feed [<!ATTLIST item lang CDATA "en">]>
    <feed><!-- today --><item id="1"><title>News &copy; 2025</title></item>\
    <item id="2"><title>A podcast</title><enclosure url="episode.mp3"/></item>\
    <item id="3"><title><![CDATA[Q&A]]></title></item></feed>

    """

/// A feed with a script, which both readers refuse.
let scriptDocument = "<feed><item><title>Ad</title><script>track()</script></item></feed>"

/// The screen of the in-code sessions: a document view under a root view.
func buildScreen() -> View {
    let screen = View(identifier: "screen", frame: Rect(x: 0, y: 0, width: 390, height: 844))
    screen.addSubview(DocumentView(identifier: "feed", frame: Rect(x: 0, y: 0, width: 390, height: 844)))
    return screen
}

/// What the app does in the in-code sessions: it shows the feed, then the feed with a script.
func driveScreen(_ root: View) throws {
    let view = try require(root.view(atPath: "screen/feed") as? DocumentView, "document view")
    view.parse(feedDocument)
    view.parse(scriptDocument)
}

struct Missing: Error, CustomStringConvertible {
    let description: String
}

/// `#require` for a plain function.
func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw Missing(description: "no \(what)") }
    return value
}

/// Records the in-code session: the tree `buildScreen` makes, with `delegate`, driven by `driveScreen`.
func recordInCode(database: String, delegate: String = "feed.v1") throws -> RecordingSummary {
    let root = buildScreen()
    let view = try require(root.view(atPath: "screen/feed") as? DocumentView, "document view")
    let reader = try DelegateRegistry.feeds.entry(named: delegate).make()
    view.delegate = try require(reader as? any XMLParserDelegate, "parser delegate")
    let recorder = try Recorder(
        databasePath: database, session: NewSession(recordedInCode: "feed-in-code", delegate: delegate),
        catalog: catalog)
    try recorder.attach(to: root)
    try withExtendedLifetime(reader) { try driveScreen(root) }
    recorder.detach(from: root)
    return recorder.finish()
}

/// Records `feed.json` with `delegate`.
func recordScenario(database: String, delegate: String = "feed.v1") throws -> RecordingSummary {
    try ScenarioRunner.record(try feedScenario(), delegate: delegate, registry: .feeds, databasePath: database)
}

/// A difference as `kind callback`, for comparing lists.
func describe(_ difference: EventDifference) -> String {
    "\(difference.kind.rawValue) \(difference.event.callback)"
}

/// An `XMLParserDelegate` that writes down every call it gets, in order, as one line each, and
/// answers as it is told: it aborts at the elements `abortAt` names, and resolves every entity
/// to `entityText`. It implements every method of the protocol, so it sees whatever the parser
/// sends.
final class CallLog: NSObject, XMLParserDelegate {
    private(set) var lines: [String] = []
    let abortAt: Set<String>
    let abortAtComment: Bool
    let entityText: String?

    init(abortAt: Set<String> = [], abortAtComment: Bool = false, entityText: String? = nil) {
        self.abortAt = abortAt
        self.abortAtComment = abortAtComment
        self.entityText = entityText
    }

    private func log(_ line: String) { lines.append(line) }

    func parserDidStartDocument(_ parser: XMLParser) { log("startDocument") }
    func parserDidEndDocument(_ parser: XMLParser) { log("endDocument") }
    func parser(
        _ parser: XMLParser, foundNotationDeclarationWithName name: String, publicID: String?, systemID: String?
    ) {
        log("notation \(name) \(publicID ?? "nil") \(systemID ?? "nil")")
    }
    func parser(
        _ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?,
        systemID: String?, notationName: String?
    ) {
        log("unparsedEntity \(name) \(publicID ?? "nil") \(systemID ?? "nil") \(notationName ?? "nil")")
    }
    func parser(
        _ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
        type: String?, defaultValue: String?
    ) {
        log("attributeDeclaration \(attributeName) \(elementName) \(type ?? "nil") \(defaultValue ?? "nil")")
    }
    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
        log("elementDeclaration \(elementName) '\(model)'")
    }
    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        log("internalEntity \(name) \(value ?? "nil")")
    }
    func parser(
        _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?
    ) {
        log("externalEntity \(name) \(publicID ?? "nil") \(systemID ?? "nil")")
    }
    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String]
    ) {
        let attributes = attributeDict.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        log("start \(elementName) \(namespaceURI ?? "nil") \(qName ?? "nil") \(attributes)")
        if abortAt.contains(elementName) { parser.abortParsing() }
    }
    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        log("end \(elementName) \(namespaceURI ?? "nil") \(qName ?? "nil")")
    }
    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        log("startMapping \(prefix) \(namespaceURI)")
    }
    func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) { log("endMapping \(prefix)") }
    func parser(_ parser: XMLParser, foundCharacters string: String) { log("characters \(string.debugDescription)") }
    func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) {
        log("ignorableWhitespace \(whitespaceString.debugDescription)")
    }
    func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) {
        log("processingInstruction \(target) \(data ?? "nil")")
    }
    func parser(_ parser: XMLParser, foundComment comment: String) {
        log("comment \(comment.debugDescription)")
        if abortAtComment { parser.abortParsing() }
    }
    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        log("CDATA \(String(decoding: block, as: UTF8.self).debugDescription)")
    }
    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        log("resolve \(name) \(systemID ?? "nil")")
        return entityText.map { Data($0.utf8) }
    }
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let error = parseError as NSError
        log("parseError \(error.domain) \(error.code) \(error.userInfo.count)")
    }
    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
        log("validationError \((validationError as NSError).code)")
    }
}

/// Parses `document` with a plain `XMLParser` whose delegate is `log`, as an app does with no
/// view: what Foundation itself sends.
func parseDirectly(_ document: String, with log: CallLog) -> (completed: Bool, errorCode: Int?) {
    let parser = XMLParser(data: Data(document.utf8))
    parser.delegate = log
    let completed = parser.parse()
    return (completed, (parser.parserError as NSError?)?.code)
}
