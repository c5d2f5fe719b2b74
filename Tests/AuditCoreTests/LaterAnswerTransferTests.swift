import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditReplay
@testable import AuditStorage

/// Export format 2 carries answers that come later: each event's place in its ask (`later`), the
/// ask it answers (`answers`) and how its callback answers (`answered`).
@Suite("Answers that come later: export, import and merge")
struct LaterAnswerTransferTests {
    let gates = LaterAnswerTests()

    /// Sessions with asks, answers, a handler never called and one called twice.
    func recorded() throws -> [Int64] {
        try ["bell", "forgetful", "stuttering"].map { try gates.run($0, recorded: true).session }
    }

    func exported(_ store: AuditStore, _ sessions: [Int64]) throws -> [String] {
        var lines: [String] = []
        try store.export(sessions: sessions) { lines.append($0) }
        return lines
    }

    @Test func anExportImportsAsTheSameTimelineAndExportsAgainAsTheSameBytes() throws {
        let sessions = try recorded()
        let original = try AuditStore(path: gates.database, access: .read)
        let lines = try exported(original, sessions)
        #expect(lines.contains { $0.contains(#""answered":"handler","later":"asked","answers":null"#) })
        #expect(lines.contains { $0.contains(#""later":"never answered","answers":"#) })
        #expect(lines.contains { $0.contains(#""later":"answered twice","answers":"#) })

        // Read in its form, and in full once each line is spaced out (the fields the same).
        for (name, text) in [
            ("copy", lines), ("spaced", lines.map { $0.replacingOccurrences(of: ",\"", with: ", \"") }),
        ] {
            let copy = try AuditStore(path: gates.folder.path("\(name).sqlite"), access: .write)
            let imported = try copy.importSessions(text).sessions
            expectEqual(imported.count, sessions.count)
            for (from, to) in zip(sessions, imported) {
                let timeline = try copy.timeline(of: to)
                expectEqual(timeline, (try original.timeline(of: from)), "\(name)")
                #expect(timeline.contains { $0.later == .asked })
            }
            try expectEqual(exported(copy, imported), lines, "\(name)")
        }
    }

    /// A file of format 1 (before answers that come later) still imports: its events answer at once.
    @Test func aFormatOneFileStillImports() throws {
        let session = try gates.run("prompt", recorded: true).session
        let original = try AuditStore(path: gates.database, access: .read)
        let formatTwo = try exported(original, [session])
        let formatOne = formatTwo.map { line in
            line.replacingOccurrences(of: #""format":2,"#, with: #""format":1,"#)
                .replacing(#/,"answered":[^,]*,"later":[^,]*,"answers":[^,}]*/#, with: "")
        }
        #expect(formatOne.allSatisfy { !$0.contains(#""later""#) })
        let copy = try AuditStore(path: gates.folder.path("one.sqlite"), access: .write)
        let imported = try #require(try copy.importSessions(formatOne).sessions.first)
        let timeline = try copy.timeline(of: imported)
        expectEqual(timeline.count, (try original.timeline(of: session)).count)
        #expect(timeline.allSatisfy { $0.later == nil && $0.answers == nil })
        // The fields format 2 added are unknown to a format 1 line.
        let mixed = formatOne.map { $0.replacingOccurrences(of: #""parent_seq""#, with: #""later":null,"parent_seq""#) }
        #expect(throws: SessionTransfer.ImportError.self) {
            try AuditStore(path: gates.folder.path("mixed.sqlite"), access: .write).importSessions(mixed)
        }
    }

    /// A file of a format newer than this build's is refused at its first line, nothing stored.
    @Test func aNewerFormatIsRefusedNamingIt() throws {
        let sessions = try recorded()
        let lines = try exported(try AuditStore(path: gates.database, access: .read), sessions)
        let newer = [lines[0].replacingOccurrences(of: #""format":2,"#, with: #""format":3,"#)] + lines.dropFirst()
        let path = gates.folder.path("newer.sqlite")
        let error = try #require(throws: SessionTransfer.ImportError.self) {
            try AuditStore(path: path, access: .write).importSessions(newer)
        }
        expectEqual(error.description, "line 1: format 3; this build reads formats 1 to 2")
        #expect(try AuditStore(path: path, access: .read).sessions().isEmpty)
    }

    /// A `later` or `answered` name the columns do not allow is refused at its line, in either reading.
    @Test(arguments: [#""later":"asked""#, #""answered":"handler""#])
    func aNameTheColumnsDoNotAllowIsRefusedAtItsLine(field: String) throws {
        let sessions = try recorded()
        let lines = try exported(try AuditStore(path: gates.database, access: .read), sessions)
        let index = try #require(lines.firstIndex { $0.contains(field) })
        var spoilt = lines
        spoilt[index] = spoilt[index].replacingOccurrences(
            of: field, with: field.replacingOccurrences(of: ":\"", with: ":\"x"))
        let path = gates.folder.path("spoilt.sqlite")
        let error = try #require(throws: SessionTransfer.ImportError.self) {
            try AuditStore(path: path, access: .write).importSessions(spoilt)
        }
        expectEqual(error.line, index + 1, "\(error)")
        #expect(try AuditStore(path: path, access: .read).sessions().isEmpty)
    }

    /// An isolated replay shares its recording's events, so `merge` moves it through the export's
    /// records field by field: its answers that come later arrive whole.
    @Test func mergeMovesAnIsolatedReplayWithItsLaterAnswers() throws {
        let recording = try gates.run("stuttering", recorded: true).session
        let replayer = Replayer(
            databasePath: gates.database, registry: LaterAnswerTests.registry, catalog: LaterAnswerTests.catalog)
        let replay = try replayer.replay(session: recording, delegate: "stuttering", mode: .isolated).diff.b.id
        let target = try AuditStore(path: gates.folder.path("merged.sqlite"), access: .write)
        let source = try AuditStore(path: gates.database, access: .read)
        try target.mergeSessions(from: source)
        let merged = try target.sessions().map(\.id)
        expectEqual(merged.count, 2)
        for (from, to) in zip([recording, replay], merged) {
            let timeline = try target.timeline(of: to)
            expectEqual(timeline, (try source.timeline(of: from)))
            #expect(timeline.contains { $0.later == .answeredTwice })
        }
    }
}
