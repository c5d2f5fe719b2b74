import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What Linux Foundation's `XMLParser` (swift-corelibs-foundation, on libxml2) does where Apple
/// documents otherwise, or says nothing: the README's claims, checked against the parser itself
/// with no view and no recorder. When one of these fails, Foundation changed: update the README.
@Suite("What Linux Foundation's XMLParser does (the README's claims)")
struct LinuxFoundationTests {
    @Test func abortingSendsNoErrorToTheDelegateAndEndsWithLibxml2sCode() {
        let log = CallLog(abortAt: ["script"])
        let (completed, errorCode) = parseDirectly(scriptDocument, with: log)
        #expect(!completed)
        #expect(errorCode == 111, "libxml2's XML_ERR_USER_STOP, not Apple's delegateAbortedParseError (512)")
        #expect(log.lines.last == "start script nil nil []", "no parseError, no endDocument after the abort")
    }

    @Test func aMalformedDocumentIsReportedButParsedOnAndParseReturnsTrue() {
        let log = CallLog()
        let (completed, errorCode) = parseDirectly("<feed><item>a</feed>", with: log)
        #expect(completed && errorCode == 5)
        #expect(
            log.lines == [
                "startDocument", "start feed nil nil []", "start item nil nil []", #"characters "a""#,
                "parseError NSXMLParserErrorDomain 76 0", "end item nil nil", "parseError NSXMLParserErrorDomain 5 0",
                "endDocument",
            ])
    }

    @Test func anUndeclaredEntityIsAskedForButTheAnswerIsDroppedWithoutADocument() {
        let log = CallLog(entityText: "(c)")
        let (completed, errorCode) = parseDirectly("<feed>a &copy; b</feed>", with: log)
        #expect(!completed && errorCode == 26)
        #expect(
            log.lines == [
                "startDocument", "start feed nil nil []", #"characters "a ""#, "resolve copy nil",
                "parseError NSXMLParserErrorDomain 26 0", #"characters " b""#, "end feed nil nil", "endDocument",
            ])
    }

    @Test func theAnswerIsUsedOnceTheDTDDeclaresAnEntityWhoseOwnTextIsLost() {
        let log = CallLog(entityText: "(c)")
        let document = #"<!DOCTYPE feed [<!ENTITY who "world">]><feed>hello &who; &copy;</feed>"#
        _ = parseDirectly(document, with: log)
        #expect(
            log.lines == [
                "startDocument", "start feed nil nil []", #"characters "hello ""#, #"characters " ""#,
                "resolve copy nil", #"characters "(c)""#, "parseError NSXMLParserErrorDomain 26 0", "end feed nil nil",
                "endDocument",
            ])
        #expect(!log.lines.contains { $0.hasPrefix("internalEntity") || $0.contains("world") })
    }

    @Test func aDeclaredExternalEntityIsNeitherAskedForNorReported() {
        let log = CallLog(entityText: "EXT")
        let document = #"<!DOCTYPE feed [<!ENTITY ext SYSTEM "ext.xml">]><feed>x &ext; y</feed>"#
        let (completed, errorCode) = parseDirectly(document, with: log)
        #expect(completed && errorCode == nil)
        #expect(!log.lines.contains { $0.hasPrefix("resolve") || $0.hasPrefix("externalEntity") })
        #expect(log.lines.contains(#"characters "x ""#) && !log.lines.contains { $0.contains("EXT") })
    }

    @Test func declarationsArriveWithoutTypesOrModels() {
        let log = CallLog()
        let document = #"<!DOCTYPE feed [<!ELEMENT feed (item*)><!ATTLIST feed lang CDATA "en">]><feed/>"#
        _ = parseDirectly(document, with: log)
        #expect(log.lines.contains("elementDeclaration feed ''"))
        #expect(log.lines.contains("attributeDeclaration lang feed  en"), "an empty type")
        #expect(log.lines.contains("start feed nil nil [\"lang=en\"]"))
    }

    /// The codes are libxml2's, which are the numbers Apple documents (`NSXMLParserUndeclaredEntityError`
    /// is 26, `NSXMLParserTagNameMismatchError` 76), but Linux's `XMLParser.ErrorCode` numbers its
    /// cases one after another, so a code read as an `ErrorCode` names the wrong case.
    @Test func errorCodesAreLibxml2sButTheErrorCodeEnumIsNumberedOtherwise() {
        #expect(XMLParser.ErrorCode.undeclaredEntityError.rawValue == 25)
        #expect(XMLParser.ErrorCode(rawValue: 26) == .unparsedEntityError)
        #expect(XMLParser.ErrorCode.tagNameMismatchError.rawValue == 74)
        #expect(XMLParser.ErrorCode(rawValue: 76) == .standaloneValueError)
        #expect(XMLParser.ErrorCode.delegateAbortedParseError.rawValue == 92)
        #expect(XMLParser.ErrorCode(rawValue: 111) == nil)
    }

    @Test func anEmptyDocumentIsASuccessWithNoCallbacks() {
        let log = CallLog()
        let (completed, errorCode) = parseDirectly("", with: log)
        #expect(completed && errorCode == nil && log.lines.isEmpty)
    }

    @Test func whitespaceIsCharactersAndEntitiesSplitThem() {
        let log = CallLog()
        _ = parseDirectly("<feed>\n  <title>x &amp; y</title>\n</feed>", with: log)
        #expect(!log.lines.contains { $0.hasPrefix("ignorableWhitespace") })
        #expect(log.lines.contains(#"characters "\n  ""#))
        #expect(
            log.lines.filter { $0.hasPrefix("characters") }.dropFirst().prefix(3) == [
                #"characters "x ""#, #"characters "&""#, #"characters " y""#,
            ])
    }
}
