import Foundation
import SharedTestSupport
import Testing

/// A damaged page where a recording would write: `record` refuses with nothing written, rather
/// than storing a session row and failing at its first event.
@Suite("A damaged database is refused before a recording writes")
struct DamagedPageTests {
    /// Overwrites 200 bytes of page `page` (1-based, 4096 bytes each) after its first 8.
    static func damage(_ sandbox: Sandbox, page: Int) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: sandbox.path("audit.sqlite")))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 8))
        var generator = SeededGenerator(seed: UInt64(page))
        try handle.write(contentsOf: Data((0..<200).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
    }

    /// The first page of `table`, as `sqlite3` reads it from the schema.
    static func rootPage(_ sandbox: Sandbox, _ table: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [
            sandbox.path("audit.sqlite"), "select rootpage from sqlite_schema where name = '\(table)'",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let page = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SandboxError(description: "no root page for \(table): \(text)")
        }
        return page
    }

    @Test func everyDamagedPageIsRefusedWithNothingWrittenOrRecordedAround() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.recordExample()
        let original = try #require(sandbox.bytes("audit.sqlite"))
        let mustRefuse = [try Self.rootPage(sandbox, "widgets"), try Self.rootPage(sandbox, "events")]
        var refused = 0
        for page in 2...(original.count / 4096) {
            try sandbox.write("audit.sqlite", bytes: Array(original))
            try Self.damage(sandbox, page: page)
            let damaged = try #require(sandbox.bytes("audit.sqlite"))
            let run = try sandbox.run(["record", "--scenario", "checkout.json"])
            if run.status == 0 {
                #expect(!mustRefuse.contains(page), "page \(page) was written through")
                try expectEqual(sandbox.run(["sessions", "--format", "csv"]).stdout.contains(",interrupted,"), false)
            } else {
                refused += 1
                // Found at open (the schema's pages) or by the check before recording.
                expectError(run, startingWith: "")
                #expect(run.stderr.contains("malformed"), "\(run)")
                expectEqual(sandbox.bytes("audit.sqlite"), damaged, "page \(page): the file changed")
            }
        }
        #expect(refused >= mustRefuse.count)
    }
}
