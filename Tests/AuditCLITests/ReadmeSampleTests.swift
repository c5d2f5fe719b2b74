import Foundation
import SharedTestSupport
import Testing

/// Every Swift sample in the README and in the documentation catalog's articles is an excerpt of a
/// file the build compiles (this package's or the example package's, a `Package.swift` included),
/// so a sample cannot drift from code that builds.
@Suite("README and article samples are compiled code")
struct ReadmeSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let catalog = "Sources/AuditCore/AuditCore.docc"
    static let catalogs = [catalog, "Sources/AuditTesting/AuditTesting.docc"]

    /// README.md and every article of the catalogs, by their paths from the package root.
    static func documents() throws -> [String] {
        let articles = try catalogs.flatMap { catalog in
            try FileManager.default.contentsOfDirectory(atPath: root.appending(path: catalog).path)
                .filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
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
                // Tests/CompileFail holds mistakes that must not compile: no sample may come from there.
                guard file.hasSuffix(".swift"), !file.contains(".build/"), !file.hasSuffix("ReadmeSampleTests.swift"),
                    !file.hasPrefix("CompileFail/")
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

    /// The fast loop skips exactly the suites tagged `.slow`: `swift test --skip` matches names,
    /// not tags, so `scripts/test-fast.sh` lists them, and this keeps the list and the tags equal.
    @Test func theFastLoopSkipsExactlyTheSlowSuites() throws {
        var tagged: Set<String> = []
        for folder in ["Tests/AuditCLITests", "Tests/AuditCoreTests"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: folder).path) {
                let lines = try String(contentsOf: Self.root.appending(path: "\(folder)/\(file)"), encoding: .utf8)
                    .split(separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() where line.hasPrefix("@Suite(") && line.contains(".tags(.slow)")
                {
                    let declaration = lines[(index + 1)...].first {
                        $0.hasPrefix("struct ") || $0.hasPrefix("final class ")
                    }
                    if let name = declaration?.split(separator: " ").dropFirst(declaration!.hasPrefix("final") ? 2 : 1)
                        .first
                    {
                        tagged.insert(String(name))
                    }
                }
            }
        }
        let script = try String(contentsOf: Self.root.appending(path: "scripts/test-fast.sh"), encoding: .utf8)
        let listed = script.split(separator: "\n").first { $0.hasPrefix("slow='") }.map {
            Set($0.dropFirst("slow='".count).dropLast().split(separator: "|").map(String.init))
        }
        #expect(tagged.count >= 10)
        expectEqual(listed, tagged)
    }
}
