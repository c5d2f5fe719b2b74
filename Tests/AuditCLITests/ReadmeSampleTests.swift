import Foundation
import Testing

/// Every Swift sample in the README is an excerpt of a file the build compiles (this package's or
/// the example package's), so a sample cannot drift from code that builds.
@Suite("README samples are compiled code")
struct ReadmeSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func samples() throws -> [String] {
        let readme = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8)
        return readme.components(separatedBy: "```swift\n").dropFirst().map {
            String($0[..<($0.range(of: "```")?.lowerBound ?? $0.endIndex)])
        }
    }

    static func compiledSources() throws -> [String] {
        var texts: [String] = []
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
        let samples = try Self.samples()
        #expect(!samples.isEmpty)
        let sources = try Self.compiledSources()
        for sample in samples {
            #expect(sources.contains { $0.contains(sample) }, "not found in any compiled file:\n\(sample)")
        }
    }
}
