import Foundation
import Testing

/// Every Swift sample in the README and in the documentation catalog's articles is an excerpt of a
/// file the build compiles (this package's or the example package's, a `Package.swift` included),
/// so a sample cannot drift from code that builds.
@Suite("README and article samples are compiled code")
struct ReadmeSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let catalog = "Sources/AuditCore/AuditCore.docc"

    /// README.md and every article of the catalog, by their paths from the package root.
    static func documents() throws -> [String] {
        let articles = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: catalog).path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        return ["README.md"] + articles
    }

    /// The ```swift blocks of one document, with the path it came from.
    static func samples(in document: String) throws -> [(document: String, sample: String)] {
        let text = try String(contentsOf: root.appending(path: document), encoding: .utf8)
        return text.components(separatedBy: "```swift\n").dropFirst().map {
            (document, String($0[..<($0.range(of: "```")?.lowerBound ?? $0.endIndex)]))
        }
    }

    static func compiledSources() throws -> [String] {
        // The package manifests are compiled too: the root one here, the examples' in the walk below.
        var texts = [try String(contentsOf: root.appending(path: "Package.swift"), encoding: .utf8)]
        for folder in ["Sources", "Tests", "Examples"] {
            let files = FileManager.default.enumerator(atPath: root.appending(path: folder).path)
            while let file = files?.nextObject() as? String {
                guard file.hasSuffix(".swift"), !file.contains(".build/"), !file.hasSuffix("ReadmeSampleTests.swift")
                else { continue }
                texts.append(
                    try String(contentsOf: root.appending(path: folder).appending(path: file), encoding: .utf8))
            }
        }
        return texts
    }

    @Test func everySampleIsInACompiledFile() throws {
        let documents = try Self.documents()
        #expect(documents.count > 1, "no articles found in \(Self.catalog)")
        let samples = try documents.flatMap { try Self.samples(in: $0) }
        #expect(try !Self.samples(in: "README.md").isEmpty)
        let sources = try Self.compiledSources()
        for (document, sample) in samples {
            #expect(sources.contains { $0.contains(sample) }, "\(document): not found in any compiled file:\n\(sample)")
        }
    }

    /// The Gestures article is docs/gestures.md, which the sources cite as the contract, word for word.
    @Test func gesturesArticleIsDocsGestures() throws {
        let contract = try String(contentsOf: Self.root.appending(path: "docs/gestures.md"), encoding: .utf8)
        let article = try String(
            contentsOf: Self.root.appending(path: "\(Self.catalog)/Gestures.md"), encoding: .utf8)
        #expect(article == contract, "copy docs/gestures.md to \(Self.catalog)/Gestures.md")
    }
}
