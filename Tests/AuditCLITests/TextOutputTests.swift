import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// What the commands print for hostile text: valid JSON in every JSON column and format, text
/// formats that cannot be forged or confused, times with one spelling. End to end, through the
/// built `auditctl`.
@Suite("Output: JSON text, terminal escaping, times")
struct TextOutputTests {
    /// Control characters (all of C0 but U+0000, DEL, a C1), the separators JavaScript minds,
    /// quote, backslash, a script end tag, a bidi override, a zero-width space, CJK and an emoji.
    static let hostile =
        (1...0x1F).map { String(Unicode.Scalar(UInt8($0))) }.joined()
        + "\u{7F}\u{85}\u{2028}\u{2029}\"\\/</script><!--\u{202E}gnp.exe\u{200B}价格👍🏽"

    /// A scenario of one text view, `tv` under root `r` (or the ids given), typing `texts`.
    static func scenario(texts: [String], root: String = "r", view: String = "tv") -> String {
        let steps =
            [#"{"action":"beginEditing","widget":\#(AuditValue.string("\(root)/\(view)").json)}"#]
            + texts.map {
                #"{"action":"typeText","widget":\#(AuditValue.string("\(root)/\(view)").json),"text":\#(AuditValue.string($0).json)}"#
            }
        return """
            {"format":1,"name":"text","delegate":"checkout.v1",
             "root":{"kind":"View","id":\(AuditValue.string(root).json),"frame":[0,0,100,100],"children":[
               {"kind":"TextView","id":\(AuditValue.string(view).json),"frame":[0,0,100,50]}]},
             "steps":[\(steps.joined(separator: ","))]}
            """
    }

    func record(_ sandbox: Sandbox, _ scenario: String, name: String? = nil) throws {
        try sandbox.write("s.json", scenario)
        let run = try sandbox.run(["record", "--scenario", "s.json"] + (name.map { ["--name", $0] } ?? []))
        expectEqual(run.status, 0, "\(run)")
    }

    /// Scalars, not `==` (canonically equivalent strings are `==`).
    func same(_ value: AuditValue?, _ text: String) -> Bool {
        guard case .string(let read)? = value else { return false }
        return Array(read.unicodeScalars) == Array(text.unicodeScalars)
    }

    // MARK: Item 11: valid JSON for every string

    @Test func everyJSONColumnIsValidAndReadsBackThroughQuerySearchAndShow() throws {
        let sandbox = try Sandbox()
        // Every scalar below U+0800 but U+0000, and the hostile text, typed in turn.
        let low = String(String.UnicodeScalarView((1...0x7FF).compactMap(Unicode.Scalar.init)))
        try record(sandbox, Self.scenario(texts: [Self.hostile, low]))

        let invalid = try sandbox.run([
            "query",
            "select count(*) as n from timeline where json_valid(args) = 0 or json_valid(coalesce(result, 'null')) = 0",
        ])
        expectEqual(invalid.stdout, "n\n0\n", "\(invalid)")

        let extracted = try sandbox.run([
            "query",
            "select json_extract(args, '$.text') as text from timeline where callback = 'typeText' order by seq",
            "--format", "json",
        ])
        expectEqual(extracted.status, 0, "\(extracted)")
        guard case .array(let rows) = try decodeJSON(extracted.stdout), rows.count == 2 else {
            Issue.record("query gave \(extracted)")
            return
        }
        #expect(same(rows[0]["text"], Self.hostile))
        #expect(same(rows[1]["text"], low))

        let search = try sandbox.run(["search", "--callback", "typeText", "--format", "json"])
        guard case .array(let found) = try decodeJSON(search.stdout), found.count == 2,
            case .string(let arguments)? = found[0]["args"]
        else {
            Issue.record("search gave \(search)")
            return
        }
        #expect(same(try AuditValue(json: arguments)["text"], Self.hostile))

        let show = try sandbox.run(["show", "--session", "1", "--format", "json"])
        guard case .array(let events)? = try decodeJSON(show.stdout)["events"] else {
            Issue.record("show gave \(show)")
            return
        }
        let typed = events.filter { $0["callback"] == .string("typeText") }
        #expect(typed.count == 2 && same(typed.first?["args"]?["text"], Self.hostile))
        #expect(same(typed.last?["args"]?["text"], low))
        let asked = events.filter { $0["callback"] == .string("textView(_:shouldChangeTextIn:replacementText:)") }
        #expect(same(asked.first?["args"]?["replacementText"], Self.hostile))
    }

    @Test func theHTMLPageShowsRecordedTextAsTextNeverAsMarkup() throws {
        let sandbox = try Sandbox()
        let short = "a\u{1}b\u{2028}</script>\u{202E}x&amp;"
        try record(sandbox, Self.scenario(texts: [Self.hostile, short], view: "tv\u{202E}x"), name: "</script><b>")
        let run = try sandbox.run(["report", "--session", "1", "--html", "page.html"])
        expectEqual(run.status, 0, "\(run)")
        let html = String(decoding: try #require(sandbox.bytes("page.html")), as: UTF8.self)
        // One script, the page's own; the recorded end tag is text.
        expectEqual(html.components(separatedBy: "<script").count, 2)
        expectEqual(html.components(separatedBy: "</script>").count, 2)
        #expect(html.contains("&lt;/script&gt;"))
        // No raw control, bidi or invisible character but the page's own line breaks.
        let hidden: Set<UInt32> = [0x2028, 0x2029, 0x202E, 0x200B]
        #expect(
            !html.unicodeScalars.contains { (scalar: Unicode.Scalar) -> Bool in
                (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                    || hidden.contains(scalar.value)
            })
        #expect(html.contains("tv\\u{202E}x"))
        // The typed text's arguments, as the tooltip shows them, are the JSON recorded.
        #expect(html.contains("arguments {&quot;text&quot;:&quot;\\u0001\\u0002"))
        // A tooltip's arguments, HTML's escapes undone, are the recorded JSON: the typed text.
        let tooltips = html.components(separatedBy: "\narguments ").dropFirst().map {
            String($0.prefix { $0 != "\n" })
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        let texts = tooltips.compactMap { try? AuditValue(json: $0)["text"] }
        #expect(texts.contains { same($0, short) }, "\(tooltips)")
    }

    // MARK: Item 12: terminal text cannot be forged or confused

    @Test func aNameWithANewlineCannotForgeASessionRow() throws {
        let sandbox = try Sandbox()
        try record(sandbox, Self.scenario(texts: ["x"]), name: "evil\n2   forged  t  checkout.v1  complete")
        try record(sandbox, Self.scenario(texts: ["x"]), name: "\u{202E}1v.tuokcehc")
        let run = try sandbox.run(["sessions"])
        expectEqual(run.status, 0, "\(run)")
        let lines = run.stdoutLines.dropLast()
        expectEqual(lines.count, 3, "\(run)")
        #expect(lines[1].hasPrefix("1   evil\\n2   forged  t  checkout.v1  complete  text "))
        #expect(lines[2].hasPrefix("2   \\u{202E}1v.tuokcehc "))
        let show = try sandbox.run(["show", "--session", "1"])
        expectEqual(show.stdoutLines.first?.hasPrefix("session 1 'evil\\n2   forged"), true)
        expectEqual(show.stdoutLines.dropLast().count, 1 + 7, "\(show)")
    }

    @Test func aScenarioNameWithANewlineStaysOnItsLineInDiffAndReplay() throws {
        let sandbox = try Sandbox()
        let scenario = Self.scenario(texts: ["x"]).replacingOccurrences(
            of: #""name":"text""#, with: #""name":"two\nlines\u202e""#)
        try record(sandbox, scenario)
        try record(sandbox, scenario)
        let diff = try sandbox.run(["diff", "1", "2"])
        expectEqual(diff.status, 0, "\(diff)")
        expectEqual(
            diff.stdoutLines,
            [
                "A = session 1 (two\\nlines\\u{202E}, checkout.v1, 7 events); "
                    + "B = session 2 (two\\nlines\\u{202E}, checkout.v1, 7 events)",
                "identical (times and durations are not compared)", "",
            ], "\(diff)")
        let replay = try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2"])
        expectEqual(
            replay.stdoutLines.first?.hasPrefix("replay of session 1 (two\\nlines\\u{202E}, recorded with"), true)
    }

    @Test func idsThatLookAlikeAreToldApartAndTypedLinesStayOneLine() throws {
        let sandbox = try Sandbox()
        try record(sandbox, Self.scenario(texts: ["a\nb\u{2028}c"], view: "t\u{200B}v"))
        try record(sandbox, Self.scenario(texts: ["a\nb\u{2028}c"], view: "tv"))
        let first = try sandbox.run(["show", "--session", "1"])
        let second = try sandbox.run(["show", "--session", "2"])
        // The header and seven events (begin, its two callbacks, type, its three callbacks).
        expectEqual(first.stdoutLines.dropLast().count, 8, "\(first)")
        #expect(first.stdout.contains(" r/t\\u{200B}v typeText {\"text\":\"a\\nb\\u2028c\"}"), "\(first)")
        #expect(second.stdout.contains(" r/tv typeText {\"text\":\"a\\nb\\u2028c\"}"), "\(second)")
        let search = try sandbox.run(["search", "--callback", "typeText"])
        expectEqual(search.stdoutLines.dropLast().count, 3, "\(search)")
        #expect(search.stdout.contains("r/t\\u{200B}v") && search.stdout.contains("r/tv "))
        // A backslash of the text itself is doubled, so it is never taken for an escape.
        expectEqual("a\\u{200B}".visiblyEscaped(), "a\\\\u{200B}")
    }

    /// Sibling ids that differ only by a variation selector, or a selector first: each shows as its
    /// own, escaped, where all showed as `r/x`.
    @Test func siblingIdsThatDifferByAVariationSelectorShowApart() throws {
        let sandbox = try Sandbox()
        let ids = ["x", "x\u{FE0F}", "x\u{FE0E}", "x\u{FE00}", "x\u{E0100}", "\u{FE0E}x"]
        let shown = ["x", "x\\u{FE0F}", "x\\u{FE0E}", "x\\u{FE00}", "x\\u{E0100}", "\\u{FE0E}x"]
        let views = ids.enumerated().map { index, id in
            #"{"kind":"TextView","id":\#(AuditValue.string(id).json),"frame":[0,\#(index * 50),100,40]}"#
        }
        let steps = ids.flatMap { id in
            let widget = AuditValue.string("r/" + id).json
            return [
                #"{"action":"beginEditing","widget":\#(widget)}"#,
                #"{"action":"typeText","widget":\#(widget),"text":"a"}"#,
            ]
        }
        try record(
            sandbox,
            """
            {"format":1,"name":"siblings","delegate":"checkout.v1",
             "root":{"kind":"View","id":"r","frame":[0,0,100,400],"children":[\(views.joined(separator: ","))]},
             "steps":[\(steps.joined(separator: ","))]}
            """)
        let run = try sandbox.run(["show", "--session", "1"])
        expectEqual(run.status, 0, "\(run)")
        let typed = run.stdoutLines.filter { $0.contains(" typeText ") }
        expectEqual(typed.count, ids.count, "\(run)")
        for (line, widget) in zip(typed, shown) {
            #expect(line.contains("▶ r/\(widget) typeText {\"text\":\"a\"}"), "\(line)")
        }
        expectEqual(Set(typed.map { $0.dropFirst(5 + 1 + 12 + 2) }).count, ids.count, "\(run)")
        #expect(!run.stdout.unicodeScalars.contains { $0.properties.isVariationSelector }, "\(run)")
    }

    /// An error quotes a widget id and a file name as the user wrote them: a terminal escape, a bidi
    /// override or a line break in either is shown escaped on the one line, never acted on.
    @Test func anErrorLineShowsHiddenCharactersEscaped() throws {
        let sandbox = try Sandbox()
        let hostile = "t\u{1B}[2J\u{202E}v"
        var scenario = Self.scenario(texts: ["x"])
        scenario = scenario.replacingOccurrences(
            of: #""widget":"r/tv","text""#, with: #""widget":\#(AuditValue.string("r/" + hostile).json),"text""#)
        let file = "bad\u{202E}\tname.json"
        try sandbox.write(file, scenario)
        let run = try sandbox.run(["record", "--scenario", file])
        expectEqual(run.status, 2, "\(run)")
        expectEqual(run.stderr.split(separator: "\n").count, 1, "\(run)")
        #expect(run.stderr.contains("r/t\\u{1B}[2J\\u{202E}v"), "\(run)")
        #expect(run.stderr.contains("bad\\u{202E}\\tname.json"), "\(run)")
        #expect(!run.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" || $0 == "\t" })
        #expect(!sandbox.exists("audit.sqlite"))
    }

    @Test func wideCharactersAlignByDisplayWidth() throws {
        let sandbox = try Sandbox()
        try record(sandbox, Self.scenario(texts: ["x"]), name: "价格表")
        try record(sandbox, Self.scenario(texts: ["x"]), name: "e\u{301}")
        try record(sandbox, Self.scenario(texts: ["x"]), name: "ab")
        let run = try sandbox.run(["sessions"])
        // "价格表" is six columns wide; "é" (e and a combining accent) one; "ab" two.
        #expect(run.stdoutLines[0].hasPrefix("id  name    scenario"), "\(run)")
        #expect(run.stdoutLines[1].hasPrefix("1   价格表  text"), "\(run)")
        #expect(run.stdoutLines[2].hasPrefix("2   e\u{301}       text"), "\(run)")
        #expect(run.stdoutLines[3].hasPrefix("3   ab      text"), "\(run)")

        // A CJK widget id (7 columns, 5 characters): the columns after it start where their headers do.
        try record(sandbox, Self.scenario(texts: ["x"], root: "价格", view: "表"))
        let search = try sandbox.run(["search", "--session", "4"])
        let rows = search.stdoutLines.dropLast()
        expectEqual(rows.count, 8, "\(search)")
        func column(of text: String, in line: String) -> Int? {
            line.range(of: text).map { String(line[..<$0.lowerBound]).displayWidth }
        }
        let header = column(of: "protocol", in: rows[0])
        let protocols = rows.dropFirst().compactMap { column(of: "TextViewDelegate", in: $0) }
        #expect(header != nil && protocols.count == 5 && protocols.allSatisfy { $0 == header }, "\(search)")
        #expect(rows.dropFirst().allSatisfy { column(of: "价格/表", in: $0) == column(of: "widget", in: rows[0]) })
    }

    @Test func showCapsItsIndentationAndSaysTheDepth() throws {
        let sandbox = try Sandbox()
        try record(sandbox, Self.scenario(texts: Array(repeating: "x", count: 12)))
        // Every event nested in the one before it: depth seq - 1.
        try sandbox.sqlite3("audit.sqlite", "update events set parent_seq = seq - 1 where seq > 1")
        let run = try sandbox.run(["show", "--session", "1"])
        expectEqual(run.status, 0, "\(run)")
        let lines = run.stdoutLines.dropFirst().dropLast()
        #expect(lines.count > 40, "\(run)")
        let cap = String(repeating: "  ", count: 32)
        for (index, line) in lines.enumerated() {
            let depth = index
            let rest = line.dropFirst(5 + 1 + 12 + 2)  // seq, time, two spaces
            if depth <= 32 {
                #expect(rest.hasPrefix(String(repeating: "  ", count: depth)), "\(line)")
                #expect(rest.dropFirst(2 * depth).first != " " && !rest.contains("[depth"), "\(line)")
            } else {
                #expect(rest.hasPrefix(cap + "[depth \(depth)] "), "\(line)")
            }
        }
    }

    // MARK: Item 13: one number, one spelling

    @Test func aTimePrintsWithThreeDecimalsInEveryTextTable() throws {
        let sandbox = try Sandbox()
        try record(sandbox, Self.scenario(texts: ["x"]))
        // Two times a nanosecond apart, and a duration that is no round number of microseconds.
        try sandbox.sqlite3(
            "audit.sqlite",
            "update events set t_ns = 1049999 + (seq % 2), duration_ns = 1234567 where session = 1")
        let search = try sandbox.run(["search", "--session", "1"])
        let rows = search.stdoutLines.dropFirst().dropLast()
        #expect(!rows.isEmpty && rows.allSatisfy { $0.contains("  1.050  ") }, "\(search)")
        #expect(rows.allSatisfy { $0.contains("  1234.567") }, "\(search)")
        let query = try sandbox.run(["query", "select t_ms from timeline where session = 1"])
        expectEqual(Set(query.stdoutLines.dropFirst().dropLast()), ["1.050"], "\(query)")
        let show = try sandbox.run(["show", "--session", "1"])
        #expect(show.stdoutLines.dropFirst().dropLast().allSatisfy { $0.contains("    1.050 ms  ") }, "\(show)")
        // JSON and CSV keep the exact value: the shortest spelling that reads back as it.
        let json = try sandbox.run([
            "query", "select t_ms from timeline where seq <= 2 order by seq", "--format", "csv",
        ])
        expectEqual(json.stdout, "t_ms\n1.05\n1.049999\n", "\(json)")
    }
}
