import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Import reads a line written in the export's own form from its bytes (`ExportLineForm`,
/// `ImportScanner`), and any other line in full. Whichever way a line is read, what is stored is
/// the same; and the scanning thread stops when storing fails.
@Suite("Import: lines read in their form")
struct ImportFormTests {
    /// A line that ends inside a word or a number is cut short, like one that ends inside a string;
    /// a mistake with bytes after it is named by its column.
    @Test(arguments: [
        (#"{"a":tr"#, "not valid JSON: the line is cut short (invalid literal at its end)"),
        (#"{"a":nul"#, "not valid JSON: the line is cut short (invalid literal at its end)"),
        (#"{"a":1."#, "not valid JSON: the line is cut short (invalid number: digits must follow '.' at its end)"),
        (#"{"a":"x"#, "not valid JSON: the line is cut short (unterminated string at its end)"),
        (#"{"a":trux}"#, "not valid JSON: invalid literal at column 6"),
    ])
    func aLineEndingInsideAWordIsCutShort(line: String, reason: String) throws {
        let error = try #require(throws: JSONSyntaxError.self) { try AuditValue.parse(json: line.utf8) }
        expectEqual(error.reason(in: line.utf8), reason)
    }

    let folder = TemporaryDirectory()

    /// Values as the export writes them: strings with every escape, numbers at the edges of 64
    /// bits, reals, exponents, a blob, and null.
    static let values = [
        "null", "0", "1", "-1", "9223372036854775807", "-9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "1.5", "-0", "1e3", "2E-2", #""""#, #""plain""#, #""[1,true]""#,
        #""{\"selected\":1}""#, #""tab\tnew\nline\r\b\f\/\\""#, #""\u0001 and \u2028""#, #""é and 😀""#,
        #"{"blob":"00ff10"}"#,
    ]
    static let texts = Self.values.filter { $0.hasPrefix("\"") }

    /// An export of `sessions` sessions whose events draw their values from `values`, with
    /// `seq`s out of order now and then.
    static func export(seed: UInt64, sessions: Int = 3, events: Int = 120) -> [String] {
        var random = SeededGenerator(seed: seed)
        var lines: [String] = []
        for session in 0..<sessions {
            let uuid = String(format: "00000000-0000-4000-8000-%012d", session + 1)
            let labels = session == 1 ? #"{"branch":"main","device":"a \"b\""}"# : "{}"
            lines.append(
                #"{"type":"session","format":2,"uuid":"\#(uuid)","name":null,"scenario":"s","delegate":"d","#
                    + #""status":"complete","started_at":"2026-01-01T00:00:00.000Z","ended_at":null,"replay_of":null,"#
                    + #""replay_mode":null,"labels":\#(labels),"events":\#(events),"inputs":1,"callbacks":1,"vetoes":0,"#
                    + #""failures":0,"scenario_source":"{\n  \"a\": \"\\u00e9\"\n}"}"#)
            for widget in session == 1 ? [2, 1, 3] : [1, 2, 3] {
                let path = Self.texts.randomElement(using: &random)!
                lines.append(
                    #"{"type":"widget","id":\#(widget),"path":\#(path),"kind":"View","parent":\#(widget == 1 ? "null" : "1")}"#
                )
            }
            var seqs = Array(1...events)
            for _ in 0..<events / 20 {
                seqs.swapAt(Int.random(in: 0..<events, using: &random), Int.random(in: 0..<events, using: &random))
            }
            for seq in seqs {
                // Now and then a value only the full reading decodes.
                func any() -> String {
                    Int.random(in: 0..<12, using: &random) == 0 ? Self.values.randomElement(using: &random)! : "null"
                }
                func text() -> String {
                    Int.random(in: 0..<12, using: &random) == 0 ? Self.texts.randomElement(using: &random)! : #""[1]""#
                }
                let name = ["\"a\"", "\"b\"", "\"c\\\"d\""].randomElement(using: &random)!
                // Format 2's fields: an answer that comes later now and then, its `later` at times
                // spelt with an escape only the full reading decodes.
                let later = [#""asked""#, #""answered twice""#, #""gave\u0020up""#, "null", "null"]
                    .randomElement(using: &random)!
                let answered = later == "null" ? "null" : Bool.random(using: &random) ? #""handler""# : #""async""#
                let answers =
                    later == "null" || later == #""asked""# ? "null" : "\(Int.random(in: 1...seq, using: &random))"
                lines.append(
                    #"{"type":"event","seq":\#(seq),"t_ns":\#(seq * 1000),"widget":\#(Int.random(in: 1...3, using: &random)),"#
                        + #""kind":"callback","protocol":"P","name":\#(name),"labels":\#(text()),"#
                        + #""answer":\#(Bool.random(using: &random) ? "\"veto\"" : "null"),"args":\#(text()),"result":\#(any()),"#
                        + #""vetoed":\#(any()),"implemented":\#(any()),"duration_ns":\#(seq),"parent_seq":\#(any()),"#
                        + #""answered":\#(answered),"later":\#(later),"answers":\#(answers)}"#)
            }
        }
        lines.append(#"{"type":"end","sessions":\#(sessions)}"#)
        return lines
    }

    /// Every row the import stored, each value with its SQL type.
    func stored(_ path: String) throws -> [String] {
        let store = try AuditStore(path: path, access: .read)
        var rows: [String] = []
        for table in ["sessions", "session_labels", "callbacks", "widgets", "events"] {
            let statement = try store.connection.prepare("SELECT * FROM \(table) ORDER BY 1, 2")
            rows += try statement.rows { row in
                table + ": "
                    + (0..<row.columnCount).map { "\(row.value($0))" }.joined(separator: " | ")
            }
        }
        return rows
    }

    func imported(_ lines: [String], as name: String, chunkBytes: Int = 1 << 20) throws -> Outcome {
        let path = folder.path(name)
        let store = try AuditStore(path: path, access: .write)
        do {
            _ = try store.importSessions(
                lineBytes: { feed in
                    for line in lines {
                        var line = line
                        try line.withUTF8 { try feed(UnsafeRawBufferPointer($0)) }
                    }
                }, chunkBytes: chunkBytes)
        } catch {
            return .refused("\(error)")
        }
        return .stored(try stored(path))
    }

    /// What an import did: the rows it stored, or why it refused.
    enum Outcome: Equatable {
        case stored([String])
        case refused(String)
    }

    /// Each line made one the form does not take (a space after its brace): read in full.
    static func outOfForm(_ lines: [String]) -> [String] { lines.map { "{ " + $0.dropFirst() } }

    @Test(arguments: 1...2 as ClosedRange<UInt64>)
    func whatALineInItsFormStoresIsWhatTheFullReadingStores(seed: UInt64) throws {
        let lines = Self.export(seed: seed)
        var scanner = ImportScanner()
        for line in lines {
            var line = line
            line.withUTF8 { scanner.add(UnsafeRawBufferPointer($0)) }
        }
        let forms = scanner.take().lines.map(\.form)
        let events = forms.filter { if case .event = $0 { true } else { false } }.count
        let widgets = forms.filter { if case .widget = $0 { true } else { false } }.count
        let sessions = forms.filter { if case .fields = $0 { true } else { false } }.count
        // Most events are in the form; the others hold what only the full reading decodes.
        #expect(events > 3 * 120 / 10 && events < 3 * 120)
        #expect(widgets > 0 && sessions == 3)

        let inForm = try imported(lines, as: "form-\(seed).sqlite")
        let inFull = try imported(Self.outOfForm(lines), as: "full-\(seed).sqlite")
        guard case .stored(let formRows) = inForm, case .stored(let fullRows) = inFull else {
            Issue.record("refused: \(inForm) / \(inFull)")
            return
        }
        #expect(formRows.count == fullRows.count && formRows.count > 3 * 120)
        let first = zip(formRows, fullRows).first { $0 != $1 }
        #expect(first == nil, "first row that differs (in form / in full): \(String(describing: first))")
    }

    @Test func aDuplicateSeqIsRefusedAtItsLineEitherWay() throws {
        var lines = Self.export(seed: 9, sessions: 1, events: 40)
        // Event 20 (line 1 + 3 widgets + 20) takes the seq of an earlier event.
        lines[24] = lines[24].replacingOccurrences(
            of: #"^\{"type":"event","seq":\d+,"#, with: #"{"type":"event","seq":1,"#, options: .regularExpression)
        let inForm = try imported(lines, as: "duplicate-form.sqlite")
        let inFull = try imported(Self.outOfForm(lines), as: "duplicate-full.sqlite")
        expectEqual(inForm, inFull)
        guard case .refused(let message) = inForm else {
            Issue.record("a duplicate seq was imported")
            return
        }
        #expect(message.hasPrefix("line 25: "))
    }

    @Test func aDuplicateWidgetIsRefusedAtItsLineEitherWay() throws {
        var lines = Self.export(seed: 10, sessions: 1, events: 10)
        // The second widget (line 3) takes the id of the first; both in the form.
        lines[1] = #"{"type":"widget","id":1,"path":"a","kind":"View","parent":null}"#
        lines[2] = #"{"type":"widget","id":1,"path":"b","kind":"View","parent":1}"#
        let inForm = try imported(lines, as: "widget-form.sqlite")
        expectEqual(inForm, (try imported(Self.outOfForm(lines), as: "widget-full.sqlite")))
        guard case .refused(let message) = inForm else {
            Issue.record("a duplicate widget was imported")
            return
        }
        #expect(message.hasPrefix("line 3: "), "\(message)")
    }

    @Test(arguments: [1, 5_000, 1 << 20])
    func chunksOfAnySizeImportAlike(chunkBytes: Int) throws {
        let lines = Self.export(seed: 5)
        try expectEqual(
            imported(lines, as: "chunks-\(chunkBytes).sqlite", chunkBytes: chunkBytes),
            (try imported(lines, as: "whole-\(chunkBytes).sqlite")))
        var damaged = lines
        damaged[300] = "{{"
        try expectEqual(
            imported(damaged, as: "damaged-\(chunkBytes).sqlite", chunkBytes: chunkBytes),
            .refused("line 301: not valid JSON: expected a field name in quotes at column 2"))
    }

    /// The scanner fills a chunk the storing side gave back in that chunk's own memory, emptied
    /// and numbered on (a new one would come as pages the system must clear); the handoff keeps
    /// at most as many given back as may wait, and hands them out again.
    @Test func aChunkGivenBackIsFilledAgainInItsOwnMemory() {
        let lines = Self.export(seed: 8)
        var scanner = ImportScanner(chunkBytes: 1)
        func add(_ line: String) {
            var line = line
            line.withUTF8 { scanner.add(UnsafeRawBufferPointer($0)) }
        }
        add(lines[0])
        let first = scanner.take()
        let memory = first.bytes.withUnsafeBufferPointer { $0.baseAddress }
        add(lines[1])
        _ = scanner.take(refilling: consume first)
        add(lines[2])
        let third = scanner.take()
        expectEqual(third.bytes.withUnsafeBufferPointer { $0.baseAddress }, memory)
        #expect(third.firstLine == 3 && third.lines.count == 1)
        expectEqual(String(decoding: third.bytes, as: UTF8.self), lines[2])

        let handoff = ChunkHandoff<[Int], Never>(waiting: 2)
        for value in 0..<4 { handoff.giveBack([value]) }
        expectEqual(handoff.spare(), [1])
        expectEqual(handoff.spare(), [0])
        #expect(handoff.spare() == nil)
    }

    /// The scanning thread is at most a few chunks ahead: when a line fails, it is stopped (the
    /// function it feeds throws) long before the end of its lines.
    @Test func aFailureStopsTheScanningThread() throws {
        let lines = Self.export(seed: 6, sessions: 40, events: 100)
        let store = try AuditStore(path: folder.path("stopped.sqlite"), access: .write)
        var fed = 0
        var stopped = false
        #expect(throws: SessionTransfer.ImportError.self) {
            try store.importSessions(
                lineBytes: { feed in
                    for (index, line) in lines.enumerated() {
                        var line = index == 50 ? "{{" : line
                        fed += 1
                        do {
                            try line.withUTF8 { try feed(UnsafeRawBufferPointer($0)) }
                        } catch {
                            stopped = true
                            throw error
                        }
                    }
                }, chunkBytes: 1_000)
        }
        #expect(stopped)
        // Four chunks wait at most, one is being made and one stored: a few dozen lines.
        #expect(fed < 200, "\(fed) of \(lines.count) lines were read")
        try expectEqual(store.connection.scalarInt("SELECT count(*) FROM events"), 0)
    }
}
