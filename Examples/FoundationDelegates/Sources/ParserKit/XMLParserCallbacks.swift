import AuditCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Every method of Foundation's `XMLParserDelegate` that a `DocumentView` forwards, declared once:
/// how it is recorded, its answer and default, and how the app's delegate is called.
///
/// The protocol is Foundation's, so its defaults are Foundation's too: on Linux it is a Swift
/// protocol whose methods all have empty default implementations in an extension (not `@objc
/// optional`), so nothing can tell a method the delegate left out from one it implements. Every
/// call is recorded as implemented.
///
/// Two answers are not the method's return value:
/// - `didStartElement` is a veto: the delegate answers "stop" by calling `abortParsing()` on the
///   parser it is given while it is being asked (`false`, printed VETOED).
/// - `resolveExternalEntityName` is a plain value answer, the bytes that stand for the entity.
///
/// The view parses without namespace processing (`XMLParser`'s default), so the parser passes
/// `nil` for `namespaceURI` and `qualifiedName` and never calls the prefix-mapping methods; those
/// are neither recorded nor forwarded.
public struct XMLParserCallbacks: CallbackTable {
    public let didStartDocument = Callback<any XMLParserDelegate, DocumentView, Void, Void>(
        "parserDidStartDocument(_:)", arguments: .none, answer: .void,
        invoke: { delegate, view, _ in delegate.parserDidStartDocument(view.parserForCallbacks) })
    public let didEndDocument = Callback<any XMLParserDelegate, DocumentView, Void, Void>(
        "parserDidEndDocument(_:)", arguments: .none, answer: .void,
        invoke: { delegate, view, _ in delegate.parserDidEndDocument(view.parserForCallbacks) })
    public let notationDeclaration = Callback<any XMLParserDelegate, DocumentView, (String, String?, String?), Void>(
        "parser(_:foundNotationDeclarationWithName:publicID:systemID:)",
        arguments: .three("name", .string, "publicID", .optional(.string), "systemID", .optional(.string)),
        answer: .void,
        invoke: {
            $0.parser($1.parserForCallbacks, foundNotationDeclarationWithName: $2.0, publicID: $2.1, systemID: $2.2)
        }
    )
    public let unparsedEntityDeclaration = Callback<
        any XMLParserDelegate, DocumentView, UnparsedEntityDeclaration, Void
    >(
        "parser(_:foundUnparsedEntityDeclarationWithName:publicID:systemID:notationName:)",
        arguments: .one("declaration", .codable), answer: .void,
        invoke: { delegate, view, declaration in
            delegate.parser(
                view.parserForCallbacks, foundUnparsedEntityDeclarationWithName: declaration.name,
                publicID: declaration.publicID, systemID: declaration.systemID,
                notationName: declaration.notationName)
        })
    public let attributeDeclaration = Callback<any XMLParserDelegate, DocumentView, AttributeDeclaration, Void>(
        "parser(_:foundAttributeDeclarationWithName:forElement:type:defaultValue:)",
        arguments: .one("declaration", .codable), answer: .void,
        invoke: { delegate, view, declaration in
            delegate.parser(
                view.parserForCallbacks, foundAttributeDeclarationWithName: declaration.attributeName,
                forElement: declaration.elementName, type: declaration.type, defaultValue: declaration.defaultValue)
        })
    public let elementDeclaration = Callback<any XMLParserDelegate, DocumentView, (String, String), Void>(
        "parser(_:foundElementDeclarationWithName:model:)", arguments: .two("name", .string, "model", .string),
        answer: .void, invoke: { $0.parser($1.parserForCallbacks, foundElementDeclarationWithName: $2.0, model: $2.1) })
    public let internalEntityDeclaration = Callback<any XMLParserDelegate, DocumentView, (String, String?), Void>(
        "parser(_:foundInternalEntityDeclarationWithName:value:)",
        arguments: .two("name", .string, "value", .optional(.string)), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, foundInternalEntityDeclarationWithName: $2.0, value: $2.1) })
    public let externalEntityDeclaration = Callback<
        any XMLParserDelegate, DocumentView, (String, String?, String?), Void
    >(
        "parser(_:foundExternalEntityDeclarationWithName:publicID:systemID:)",
        arguments: .three("name", .string, "publicID", .optional(.string), "systemID", .optional(.string)),
        answer: .void,
        invoke: {
            $0.parser(
                $1.parserForCallbacks, foundExternalEntityDeclarationWithName: $2.0, publicID: $2.1, systemID: $2.2)
        })
    /// A veto: `false` when the delegate called `abortParsing()` while it was asked.
    public let didStartElement = Callback<any XMLParserDelegate, DocumentView, (String, [String: String]), Bool>(
        "parser(_:didStartElement:namespaceURI:qualifiedName:attributes:)",
        arguments: .two("elementName", .string, "attributes", .codable), answer: .veto(),
        invoke: { delegate, view, arguments in
            view.parserForCallbacks.continues {
                delegate.parser(
                    $0, didStartElement: arguments.0, namespaceURI: nil, qualifiedName: nil, attributes: arguments.1)
            }
        })
    public let didEndElement = Callback<any XMLParserDelegate, DocumentView, String, Void>(
        "parser(_:didEndElement:namespaceURI:qualifiedName:)", arguments: .one("elementName", .string),
        answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, didEndElement: $2, namespaceURI: nil, qualifiedName: nil) })
    public let foundCharacters = Callback<any XMLParserDelegate, DocumentView, String, Void>(
        "parser(_:foundCharacters:)", arguments: .one("string", .string), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, foundCharacters: $2) })
    public let foundIgnorableWhitespace = Callback<any XMLParserDelegate, DocumentView, String, Void>(
        "parser(_:foundIgnorableWhitespace:)", arguments: .one("whitespaceString", .string), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, foundIgnorableWhitespace: $2) })
    public let processingInstruction = Callback<any XMLParserDelegate, DocumentView, (String, String?), Void>(
        "parser(_:foundProcessingInstructionWithTarget:data:)",
        arguments: .two("target", .string, "data", .optional(.string)), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, foundProcessingInstructionWithTarget: $2.0, data: $2.1) })
    public let foundComment = Callback<any XMLParserDelegate, DocumentView, String, Void>(
        "parser(_:foundComment:)", arguments: .one("comment", .string), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, foundComment: $2) })
    public let foundCDATA = Callback<any XMLParserDelegate, DocumentView, Data, Void>(
        "parser(_:foundCDATA:)", arguments: .one("CDATABlock", .bytes), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, foundCDATA: $2) })
    /// A value answer: the bytes that stand for an entity the document does not declare (nil: none).
    public let resolveExternalEntity = Callback<any XMLParserDelegate, DocumentView, (String, String?), Data?>(
        "parser(_:resolveExternalEntityName:systemID:)",
        arguments: .two("name", .string, "systemID", .optional(.string)),
        answer: .value(coding: .optional(.bytes), default: nil),
        invoke: { $0.parser($1.parserForCallbacks, resolveExternalEntityName: $2.0, systemID: $2.1) })
    public let parseErrorOccurred = Callback<any XMLParserDelegate, DocumentView, any Error, Void>(
        "parser(_:parseErrorOccurred:)", arguments: .one("parseError", .parserError), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, parseErrorOccurred: $2) })
    public let validationErrorOccurred = Callback<any XMLParserDelegate, DocumentView, any Error, Void>(
        "parser(_:validationErrorOccurred:)", arguments: .one("validationError", .parserError), answer: .void,
        invoke: { $0.parser($1.parserForCallbacks, validationErrorOccurred: $2) })
}

/// An unparsed entity's declaration, as `parser(_:foundUnparsedEntityDeclarationWithName:…)` gets
/// it (four arguments, recorded as one object).
public struct UnparsedEntityDeclaration: Codable, Sendable, Equatable {
    public var name: String
    public var publicID, systemID, notationName: String?
}

/// An attribute's declaration, as `parser(_:foundAttributeDeclarationWithName:…)` gets it.
public struct AttributeDeclaration: Codable, Sendable, Equatable {
    public var attributeName, elementName: String
    public var type, defaultValue: String?
}

extension ValueCoding where Value == Data {
    /// Bytes, recorded as their text when they are UTF-8 (what entities and CDATA blocks usually
    /// are), otherwise as `{"base64": …}`: either way exactly the bytes come back.
    public static var bytes: ValueCoding<Data> {
        ValueCoding(
            encode: { data in
                String(data: data, encoding: .utf8).map(AuditValue.string)
                    ?? .object(["base64": .string(data.base64EncodedString())])
            },
            decode: { value in
                switch value {
                case .string(let text): Data(text.utf8)
                case .object(let fields):
                    if case .string(let encoded)? = fields["base64"], fields.count == 1 {
                        Data(base64Encoded: encoded)
                    } else {
                        nil
                    }
                default: nil
                }
            }, expected: "text, or an object with a base64 member")
    }
}

extension ValueCoding where Value == any Error {
    /// A parser's error, recorded as its domain and code (`{"code": 26, "domain":
    /// "NSXMLParserErrorDomain"}`) and read back as an `NSError` with both. On Linux the parser's
    /// errors carry nothing else (their `userInfo` is empty), so nothing is lost there.
    public static var parserError: ValueCoding<any Error> {
        ValueCoding(
            encode: { error in
                let error = error as NSError
                return .object(["domain": .string(error.domain), "code": .int(error.code)])
            },
            decode: { value in
                guard case .string(let domain)? = value["domain"], case .int(let code)? = value["code"] else {
                    return nil
                }
                return NSError(domain: domain, code: code)
            }, expected: "an error object with a domain and a code")
    }
}
