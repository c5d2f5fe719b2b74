import Foundation
import SharedTestSupport
import Testing

/// What the compiler cannot hold of the layers (Development article, "Layers"): the store's type
/// is extended only inside the storage layer; diff, search, report, coverage and behaviour checks
/// are types of their own that take a store.
@Suite("Layers")
struct LayeringTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources")

    @Test func theStoreIsExtendedOnlyInTheStorageLayer() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var checked = 0
        var outside: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.path.dropFirst(Self.sources.path.count + 1))
            let text = try String(contentsOf: file, encoding: .utf8)
            checked += 1
            guard !path.hasPrefix("AuditStorage/") else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("extension AuditStore") {
                let rest = line.dropFirst("extension AuditStore".count)
                if rest.first == " " || rest.first == "{" || rest.first == ":" { outside.append("\(path): \(line)") }
            }
        }
        #expect(checked > 100, "the sources were not found at \(Self.sources.path)")
        expectEqual(outside, [], "extend AuditStore only in Sources/AuditStorage; elsewhere, a type that takes a store")
    }

    /// The Development article's build rule: a static property whose initializer holds closures
    /// (a command, a widget kind, an input, a value coding, a gesture kind) has its type written
    /// out, so that the compile jobs that name it do not each type-check the whole initializer.
    @Test func staticsWhoseInitializersHoldClosuresHaveTheirTypeWrittenOut() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        let untyped = try Regex(
            #"static let [A-Za-z`]+ = (Command|WidgetKind|WidgetCatalog|Input|ValueCoding|GestureKind)[(<]"#)
        var checked = 0
        var found: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.path.dropFirst(Self.sources.path.count + 1))
            checked += 1
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(untyped) {
                found.append("\(path): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 100, "the sources were not found at \(Self.sources.path)")
        expectEqual(found, [], "write the type out: 'static let x: Command = Command(…)'")
    }
}
