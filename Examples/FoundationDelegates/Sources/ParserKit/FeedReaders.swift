import AuditCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Every widget kind the parser's tools know: the package's own and the document view.
public let catalog = WidgetCatalog.builtIn.adding(DocumentView.kind)

/// A news feed's reader, written as an app writes an `XMLParserDelegate` (it knows nothing of
/// auditing): it collects each item's title, stops at a `<script>` (it refuses active content),
/// spells out the entities `&copy;` and `&mdash;`, and keeps the codes of the errors it was told.
public class FeedReader: NSObject, XMLParserDelegate {
    public private(set) var titles: [String] = []
    public private(set) var errorCodes: [Int] = []
    private var title: String?

    public override init() {}

    /// Whether the reader stops the parse at an element named `name`.
    func refuses(_ name: String) -> Bool { name == "script" }

    /// The text an entity the document does not declare stands for.
    func text(ofEntity name: String) -> String? { ["copy": "©", "mdash": "—"][name] }

    public func parserDidStartDocument(_ parser: XMLParser) {
        titles = []
        errorCodes = []
    }
    public func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String]
    ) {
        if refuses(elementName) {
            parser.abortParsing()
        } else if elementName == "title" {
            title = ""
        }
    }
    public func parser(_ parser: XMLParser, foundCharacters string: String) { title? += string }
    public func parser(_ parser: XMLParser, foundCDATA block: Data) {
        title? += String(decoding: block, as: UTF8.self)
    }
    public func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard elementName == "title", let title else { return }
        titles.append(title)
        self.title = nil
    }
    public func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        text(ofEntity: name).map { Data($0.utf8) }
    }
    public func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        errorCodes.append((parseError as NSError).code)
    }
}

/// The same reader after a "refactoring", with two planted policy changes: it also stops at an
/// `<enclosure>` (an item with a podcast, which the first version reads), and no longer spells out
/// `&copy;`.
public final class FeedReaderV2: FeedReader {
    override func refuses(_ name: String) -> Bool { name == "script" || name == "enclosure" }
    override func text(ofEntity name: String) -> String? { name == "mdash" ? "—" : nil }
}

extension DelegateRegistry {
    /// The feed readers, by name: what `parser-audit --delegate` and the replayer look up.
    public static let feeds: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("feed.v1", summary: "reads titles, stops at <script>, spells out &copy; and &mdash;") {
            FeedReader()
        }
        registry.register("feed.v2", summary: "also stops at <enclosure>, no longer spells out &copy; (a regression)") {
            FeedReaderV2()
        }
        return registry
    }()
}
