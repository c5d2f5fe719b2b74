import AuditCore
import Foundation
import SharedTestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `--format junit` of `replay`, `replay --all` and `diff`, read back by an XML parser: well-formed,
/// one `testsuite`, one `testcase` per session, escaped whatever the names hold.
@Suite("JUnit output")
struct JUnitOutputTests {
    /// What an XML parser reads: each element's name and attributes, in order, and the text.
    final class Reader: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            elements.append((name, attributes))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    static func read(_ xml: String) throws -> Reader {
        let reader = Reader()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = reader
        guard parser.parse() else {
            throw SandboxError(description: "not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")\n\(xml)")
        }
        expectEqual(reader.elements.filter { $0.name == "testsuite" }.count, 1)
        expectEqual(reader.elements.first?.name, "testsuite")
        return reader
    }

    @Test func aReplayWithRegressionsIsOneFailingCase() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let run = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--format", "junit"])
        expectEqual(run.status, 1, "\(run)")
        let reader = try Self.read(run.stdout)
        #expect(reader.elements[0].attributes["tests"] == "1" && reader.elements[0].attributes["failures"] == "1")
        let failure = try #require(reader.elements.first { $0.name == "failure" })
        expectEqual(
            failure.attributes["message"]?.hasPrefix("first divergence: veto changed at checkout/shipping"), true)
        #expect(reader.text.contains("REGRESSION: 6 differences between the recorded session (23 events)"))
    }

    @Test func replayAllHasACasePerSessionAndAnErrorForOneThatCannotBeReplayed() throws {
        let sandbox = try Sandbox()
        for _ in 0..<3 { try sandbox.recordExample() }
        try sandbox.sqlite3("audit.sqlite", "UPDATE sessions SET scenario_source = '{}' WHERE id = 2")
        let run = try sandbox.run(["replay", "--all", "--delegate", "checkout.v1", "--format", "junit"])
        #expect(run.status == 2 && run.stderr.hasPrefix("auditctl: error: 1 of 3 sessions could not be replayed"))
        let reader = try Self.read(run.stdout)
        expectEqual(reader.elements[0].attributes["tests"], "3")
        #expect(reader.elements[0].attributes["failures"] == "0" && reader.elements[0].attributes["errors"] == "1")
        expectEqual(reader.elements.filter { $0.name == "testcase" }.count, 3)
        let error = try #require(reader.elements.first { $0.name == "error" })
        expectEqual(error.attributes["message"]?.hasPrefix("could not be replayed: session 2"), true, "\(error)")
    }

    @Test func namesAreEscapedWhateverTheyHold() throws {
        let sandbox = try Sandbox()
        let name = "a<b>&\"c\" 'd'\u{1}\n</testsuite>"
        let example = try String(contentsOfFile: Sandbox.packageRoot.path + "/Examples/checkout.json", encoding: .utf8)
        let quoted = String(decoding: try JSONEncoder().encode(name), as: UTF8.self)
        try sandbox.write(
            "odd.json", example.replacingOccurrences(of: #""name": "checkout""#, with: #""name": \#(quoted)"#))
        try sandbox.run(["record", "--scenario", "odd.json"]).expectSuccess()
        try sandbox.run(["record", "--scenario", "odd.json", "--delegate", "checkout.v2"]).expectSuccess()
        for command in [
            ["replay", "--session", "1", "--delegate", "checkout.v2"], ["diff", "1", "2"],
            ["replay", "--all", "--delegate", "checkout.v2"],
        ] {
            let run = try sandbox.run(command + ["--format", "junit"])
            expectEqual(run.status, 1, "\(run)")
            let reader = try Self.read(run.stdout)
            let testCase = try #require(reader.elements.first { $0.name == "testcase" })
            let shown = "a<b>&\"c\" 'd'\\u{1}\n</testsuite>"
            expectEqual(testCase.attributes["classname"]?.hasSuffix(shown), true, "\(testCase.attributes)")
        }
    }
}
