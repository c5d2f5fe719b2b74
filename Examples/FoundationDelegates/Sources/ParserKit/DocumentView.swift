import AuditCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A view that shows an XML document: parsing it runs a real Foundation `XMLParser`, whose
/// callbacks the view forwards to its own `delegate`, an app's `XMLParserDelegate`, through the
/// declared `XMLParserCallbacks` (so they are recorded while a recorder audits the view).
///
/// The delegate is called exactly as `XMLParser` would call it directly: the same methods, in the
/// same order, with the same arguments and the parser itself (an `XMLParser` subclass that notices
/// `abortParsing()`). What forwards and who wins: the parser asks the view, the view asks the
/// delegate, and the delegate's answer goes back to the parser unchanged.
public final class DocumentView: View {
    public static let callbacks = XMLParserCallbacks()
    public weak var delegate: (any XMLParserDelegate)?
    /// How the last parse ended.
    public private(set) var outcome: ParseOutcome?

    /// The parser of the parse under way.
    private var running: WatchedParser?
    /// A parser that is not parsing: the one a callback asked outside a parse (isolated replay
    /// asks the stored calls again with no document being read) is given.
    private lazy var idle = WatchedParser(data: Data())

    /// The parser a callback passes to the delegate: the running one, or an idle one.
    var parserForCallbacks: WatchedParser { running ?? idle }

    public override init(identifier: String, frame: Rect = .zero) {
        super.init(identifier: identifier, frame: frame)
    }

    /// Parses `document` (its UTF-8 bytes) with a new `XMLParser`, which calls the delegate; the
    /// input records the document, so replaying it parses the same document again.
    public func parse(_ document: String) {
        performInput(Self.parseInput, document) {
            let parser = WatchedParser(data: Data(document.utf8))
            let forwarder = ParserForwarder(view: self)
            parser.delegate = forwarder  // weak: the forwarder lives until the parse returns
            running = parser
            defer { running = nil }
            let completed = withExtendedLifetime(forwarder) { parser.parse() }
            let outcome = ParseOutcome(
                completed: completed, errorCode: (parser.parserError as NSError?)?.code,
                aborted: parser.stops > 0)
            self.outcome = outcome
            return ValueCoding<ParseOutcome>.codable.encode(outcome)
        }
    }
}

/// How one parse ended: `parse()`'s result, the parser's error code afterwards, and whether the
/// delegate asked it to abort. Recorded as the `parse` input's result.
public struct ParseOutcome: Codable, Sendable, Equatable {
    /// What `XMLParser.parse()` returned.
    public var completed: Bool
    /// `parserError`'s code once the parse returned (nil: no error).
    public var errorCode: Int?
    /// Whether the parser was stopped: a veto, or `abortParsing()` called from another callback.
    public var aborted: Bool
}

extension DocumentView {
    public static let parseInput: Input<DocumentView, String> = Input(
        "parse", of: "DocumentView", arguments: .one("document", .string),
        perform: { view, document in view.parse(document) })

    /// The view's registration: `{"kind": "DocumentView", "id": "feed"}` in a scenario.
    public static let kind: WidgetKind = WidgetKind(
        "DocumentView", properties: DocumentProperties.self,
        make: { id, frame, _ in DocumentView(identifier: id, frame: frame) }, describe: { _ in DocumentProperties() },
        delegate: \.delegate, callbacks: callbacks, inputs: [parseInput])
}

/// A document view's scenario properties: none beyond its `id` and `frame`.
public struct DocumentProperties: Codable, Sendable {}
