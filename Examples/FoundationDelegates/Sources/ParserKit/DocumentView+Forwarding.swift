import AuditCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The `XMLParser` a document view runs: the same parser, except that the delegate's
/// `abortParsing()` (an `open` method) only asks for the stop; the view stops the parser as soon
/// as the delegate's method returns, still inside the same parser callback, so the parser stops
/// where it would have. The delay is what lets a veto be an answer: isolated replay gives the
/// view the recorded answer, and the view follows it, not the candidate's request.
final class WatchedParser: XMLParser {
    /// Whether the delegate asked for a stop that the view has not yet acted on.
    private var abortRequested = false
    /// How many times the view stopped this parser.
    private(set) var stops = 0

    override func abortParsing() { abortRequested = true }

    /// Runs `ask` with this parser and says whether the parse may go on: false when `ask` asked
    /// the parser to abort. The request is the answer: the caller stops the parser or not.
    func continues(after ask: (XMLParser) -> Void) -> Bool {
        abortRequested = false
        ask(self)
        defer { abortRequested = false }
        return !abortRequested
    }

    /// Stops the parse if the delegate asked for it during a callback that is not a veto.
    func stopIfAsked() {
        if abortRequested { stop() }
    }

    /// Stops the parse (what `XMLParser.abortParsing()` does).
    func stop() {
        abortRequested = false
        stops += 1
        super.abortParsing()
    }
}

/// The parser's delegate while a document view parses: each method asks the view's delegate
/// through its declared callback. A separate `NSObject` because Apple's `XMLParserDelegate`
/// refines `NSObjectProtocol`, which a `View` does not adopt.
final class ParserForwarder: NSObject, XMLParserDelegate {
    private unowned let view: DocumentView

    init(view: DocumentView) { self.view = view }

    /// Asks the view's delegate through `callback`, then stops the parser if the delegate asked
    /// for it (from a callback that is not a veto, the request is acted on at once).
    private func forward<Arguments, Result>(
        _ callback: KeyPath<XMLParserCallbacks, Callback<any XMLParserDelegate, DocumentView, Arguments, Result>>,
        _ arguments: Arguments
    ) -> Result {
        let answer = DocumentView.callbacks[keyPath: callback].ask(view.delegate, view, arguments)
        view.parserForCallbacks.stopIfAsked()
        return answer
    }

    func parserDidStartDocument(_ parser: XMLParser) {
        forward(\.didStartDocument, ())
        view.parserForCallbacks.stopIfAsked()
    }
    func parserDidEndDocument(_ parser: XMLParser) {
        forward(\.didEndDocument, ())
        view.parserForCallbacks.stopIfAsked()
    }
    func parser(
        _ parser: XMLParser, foundNotationDeclarationWithName name: String, publicID: String?, systemID: String?
    ) {
        forward(\.notationDeclaration, (name, publicID, systemID))
    }
    func parser(
        _ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?,
        systemID: String?, notationName: String?
    ) {
        let declaration = UnparsedEntityDeclaration(
            name: name, publicID: publicID, systemID: systemID, notationName: notationName)
        forward(\.unparsedEntityDeclaration, declaration)
    }
    func parser(
        _ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
        type: String?, defaultValue: String?
    ) {
        let declaration = AttributeDeclaration(
            attributeName: attributeName, elementName: elementName, type: type, defaultValue: defaultValue)
        forward(\.attributeDeclaration, declaration)
    }
    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
        forward(\.elementDeclaration, (elementName, model))
    }
    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        forward(\.internalEntityDeclaration, (name, value))
    }
    func parser(
        _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?
    ) {
        forward(\.externalEntityDeclaration, (name, publicID, systemID))
    }
    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String]
    ) {
        // The veto: the view stops the parser when the answer is "stop", whoever gave it (the
        // delegate, or isolated replay's recorded answer).
        if !forward(\.didStartElement, (elementName, attributeDict)) { view.parserForCallbacks.stop() }
    }
    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        forward(\.didEndElement, elementName)
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) {
        forward(\.foundCharacters, string)
    }
    func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) {
        forward(\.foundIgnorableWhitespace, whitespaceString)
    }
    func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) {
        forward(\.processingInstruction, (target, data))
    }
    func parser(_ parser: XMLParser, foundComment comment: String) {
        forward(\.foundComment, comment)
        view.parserForCallbacks.stopIfAsked()
    }
    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        forward(\.foundCDATA, block)
        view.parserForCallbacks.stopIfAsked()
    }
    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        forward(\.resolveExternalEntity, (name, systemID))
    }
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        forward(\.parseErrorOccurred, parseError)
    }
    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
        forward(\.validationErrorOccurred, validationError)
    }
}
