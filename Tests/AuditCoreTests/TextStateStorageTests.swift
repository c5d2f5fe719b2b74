import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// What a text view's input stores grows with the change, not with the text: its result holds the
/// text's length, the selection and a digest, and the typed text is stored once, in the input's
/// arguments (and in the `shouldChangeTextIn` the delegate is asked).
@Suite("Text view: what an edit stores")
struct TextStateStorageTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// Types `count` single characters into a fresh view under audit; returns the session.
    func typeCharacters(_ count: Int, into database: String, start: String = "") throws -> Int64 {
        let view = TextView(identifier: "t", text: start)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        for index in 0..<count { view.type(index.isMultiple(of: 3) ? "é" : "x") }
        return recorder.finish().session
    }

    @Test func anInputsResultHasTheSameSizeHoweverLongTheText() throws {
        // A 64 KiB text to start with, then 2,000 edits: no result holds the text.
        let session = try typeCharacters(2_000, into: database, start: String(repeating: "请", count: 20_000))
        let connection = try Connection(path: database, mode: .readOnly)
        let longest = try #require(
            try connection.scalarInt(
                "SELECT max(length(CAST(result AS BLOB))) FROM events WHERE session = ? AND implemented IS NULL",
                [.integer(session)]))
        // {"editing":true,"length":22000,"selection":{"length":0,"location":22000},"textHash":"<16>"}
        #expect(longest <= 110)
        let arguments = try #require(
            try connection.scalarInt(
                "SELECT max(length(CAST(args AS BLOB))) FROM events WHERE session = ?", [.integer(session)]))
        #expect(arguments <= 80)
    }

    @Test func storedBytesPerEditDoNotGrowWithTheNumberOfEdits() throws {
        func bytesPerEdit(_ count: Int) throws -> Double {
            let path = folder.path("edits-\(count).sqlite")
            _ = try typeCharacters(count, into: path)
            let connection = try Connection(path: path, mode: .readOnly)
            let bytes = try #require(
                try connection.scalarInt(
                    "SELECT sum(length(CAST(args AS BLOB)) + coalesce(length(CAST(result AS BLOB)), 0)) FROM events"))
            return Double(bytes) / Double(count)
        }
        let small = try bytesPerEdit(300)
        let large = try bytesPerEdit(6_000)
        // Only the digits of the offsets grow (3 to 4 digits, in four places per edit).
        #expect(large / small < 1.1, "\(small) then \(large) bytes per edit")
    }

    @Test func theStateRecordsLengthSelectionAndDigest() throws {
        let view = TextView(identifier: "t", text: "👍🏽 ok")
        view.select(TextRange(location: 4, length: 3))
        expectEqual(
            view.state.json,
            #"{"editing":false,"length":7,"selection":{"length":3,"location":4},"textHash":"\#(TextDigest.hexadecimal("👍🏽 ok"))"}"#
        )
    }

    // MARK: the digest

    /// Stored sessions compare these values, so the function may never change: pinned.
    @Test func theDigestIsPinned() {
        expectEqual(TextDigest.hexadecimal(""), "48218226ff3cd4bf")
        expectEqual(TextDigest.hexadecimal("x"), "a8cb09cd3e5ebab7")
        expectEqual(TextDigest.hexadecimal("xx"), "f40668bec48e2871")
        expectEqual(TextDigest.hexadecimal("xxxxxxxx"), "2dd5f783c5fda027")
    }

    @Test func theDigestTellsNearTextsApart() {
        var texts: Set<String> = [""]
        for length in 1...40 {
            texts.insert(String(repeating: "a", count: length))
            texts.insert(String(repeating: "a", count: length - 1) + "b")
            texts.insert(String(repeating: "\u{0}", count: length))
            texts.insert("b" + String(repeating: "a", count: length - 1))
        }
        texts.formUnion(["请在门口", "请到口", "👍🏽", "👍", "🏽", "e\u{301}", "é", "🇫🇷", "🇫", "🇷"])
        expectEqual(Set(texts.map(TextDigest.hexadecimal)).count, texts.count)
    }

    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17, 100])
    func aDigestExtendedByAppendedTextIsTheDigestOfTheWhole(split: Int) {
        let whole = String(
            (0..<100).map { (index: Int) -> Character in Character(UnicodeScalar(UInt8(33 + index % 90))) })
        var digest = TextDigest(String(whole.prefix(split)))
        digest.append(String(whole.dropFirst(split)))
        expectEqual(digest.value, TextDigest(whole).value)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theViewsDigestFollowsEveryKindOfEdit(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let view = TextView(identifier: "t", text: "请在门口")
        view.beginEditing()
        for _ in 0..<300 {
            if Bool.random(using: &random) {
                view.type(randomPieces.randomElement(using: &random)!)
            } else {
                view.replace(
                    randomValidRange(in: view, using: &random), with: randomPieces.randomElement(using: &random)!)
            }
            if Int.random(in: 0..<4, using: &random) == 0 { view.select(.caret(at: view.text.utf16.count)) }
            expectEqual(view.digest.value, TextDigest(view.text).value)
        }
    }

    // MARK: sessions recorded by earlier builds

    @Test func anOldStateReadsInTodaysShape() {
        let view = TextView(identifier: "t", text: "请在 \"门口\"\n👍🏽")
        view.beginEditing()
        view.select(TextRange(location: 1, length: 2))
        let old = #"{"editing":true,"selection":{"length":2,"location":1},"text":"请在 \"门口\"\n👍🏽"}"#
        let upgraded = Array(old.utf8).withUnsafeBytes { LegacyTextViewState.upgrading($0) }
        expectEqual(upgraded, view.state.json)
        // A secure view's old state held the keyed hash: it becomes the digest.
        let secure = #"{"editing":false,"selection":{"length":0,"location":0},"text":"hmac-sha256:00ff"}"#
        expectEqual(
            Array(secure.utf8).withUnsafeBytes { LegacyTextViewState.upgrading($0) },
            #"{"editing":false,"length":0,"selection":{"length":0,"location":0},"textHash":"hmac-sha256:00ff"}"#)
        for other in [view.state.json, #"{"editing":true}"#, "true", #"{"text":"x"}"#] {
            #expect(Array(other.utf8).withUnsafeBytes { LegacyTextViewState.upgrading($0) } == nil, "\(other)")
        }
    }

    /// Random texts of every kind of scalar (quotes, backslashes, controls, surrogates' worth of
    /// emoji, combining marks): the old state, as the encoder writes it, reads as today's.
    @Test(arguments: [21, 22, 23] as [UInt64])
    func anyOldStateReadsInTodaysShape(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scalars: [ClosedRange<UInt32>] = [
            0x0...0x7f, 0x80...0x7ff, 0x800...0xd7ff, 0xe000...0xffff, 0x1_0000...0x10_ffff,
        ]
        for _ in 0..<200 {
            let text = String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0..<12, using: &random)).compactMap { _ in
                        Unicode.Scalar(UInt32.random(in: scalars.randomElement(using: &random)!, using: &random))
                    }))
            let view = TextView(identifier: "t", text: text)
            let old = AuditValue.object([
                "editing": .bool(false), "selection": ValueCoding.textRange.encode(view.selectedRange),
                "text": .string(text),
            ]).json
            let upgraded = Array(old.utf8).withUnsafeBytes { LegacyTextViewState.upgrading($0) }
            expectEqual(upgraded, view.state.json, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// A session as an earlier build stored it (every text state with its whole text) replays and
    /// diffs as identical to one recorded now.
    @Test func anOldSessionReplaysAndDiffsAsIdentical() throws {
        let scenario = try Examples.checkout()
        let old = try ScenarioRunner.record(
            scenario, delegate: "checkout.v1", registry: .examples, databasePath: database
        ).session
        let new = try ScenarioRunner.record(
            scenario, delegate: "checkout.v1", registry: .examples, databasePath: database
        ).session
        // The texts the example's views hold, by digest, to write the old shape back.
        let texts = ["", "SAVE10", "Leave at the door", "Leave at the door!!!", "Drop at the door!!!"]
        let byDigest = Dictionary(uniqueKeysWithValues: texts.map { (TextDigest.hexadecimal($0), $0) })
        let connection = try Connection(path: database, mode: .readWrite(create: false))
        let states = try connection.prepare(
            #"SELECT seq, result FROM events WHERE session = ? AND result LIKE '{"editing":%'"#
        ).rows([.integer(old)]) { row in (row.int64(0), row.string(1) ?? "") }
        expectEqual(states.count, 10)
        for (seq, json) in states {
            guard case .object(var fields) = try AuditValue(json: json), case .string(let digest)? = fields["textHash"],
                let text = byDigest[digest]
            else {
                Issue.record("a state of an unknown text: \(json)")
                continue
            }
            fields["textHash"] = nil
            fields["length"] = nil
            fields["text"] = .string(text)
            try connection.prepare("UPDATE events SET result = ? WHERE session = ? AND seq = ?").execute([
                .text(AuditValue.object(fields).json), .integer(old), .integer(seq),
            ])
        }
        #expect(try connection.scalarInt(#"SELECT count(*) FROM events WHERE result LIKE '%"text":"Drop%'"#) ?? 0 > 0)
        let store = try AuditStore(path: database, access: .read)
        #expect(try SessionDiffer(store).diff(old, new).identical)
        let replayer = Replayer(databasePath: database, registry: .examples, catalog: .builtIn)
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try replayer.replay(session: old, delegate: "checkout.v1", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences)")
        }
    }
}
