import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// An HTML page being written: a header, a timeline, tables. Every text it is given is escaped
/// here, so callers pass plain text.
struct HTMLPage {
    let title: String
    let limits: HTMLTimeline.Limits
    private(set) var body = ""

    init(title: String, limits: HTMLTimeline.Limits) {
        self.title = title
        self.limits = limits
    }

    /// Plain text from anywhere (the database included), cut to the limit and escaped: control,
    /// bidi and invisible characters made visible (`visiblyEscaped`), then HTML's own.
    func text(_ value: String) -> String { value.visiblyEscaped().truncated(to: limits.textLength).htmlEscaped }

    /// JSON text (a recorded `args` or `result`), cut to the limit and escaped: its own escapes
    /// kept, other hidden characters escaped as JSON does, then HTML's escapes.
    func json(_ value: String) -> String {
        value.visiblyEscaped(json: true).truncated(to: limits.textLength).htmlEscaped
    }

    mutating func append(_ html: String) { body += html }

    /// The page title, lines about the sessions and a row of figures.
    mutating func header(heading: String, lines: [String], figures: [(String, Int)]) {
        append("<header><h1>\(text(heading))</h1>")
        for line in lines { append("<p class=\"sub\">\(text(line))</p>") }
        append("<div class=\"figures\">")
        for (name, value) in figures {
            append("<div class=\"figure\"><b>\(Self.grouped(value))</b><span>\(text(name))</span></div>")
        }
        append("</div></header>\n")
    }

    /// A section heading.
    mutating func section(_ title: String) {
        append("<h2>\(text(title))</h2>\n")
    }

    /// A note in the page's quiet style: what was left out, how to read something.
    mutating func note(_ line: String) {
        append("<p class=\"note\">\(text(line))</p>\n")
    }

    /// A table of plain-text cells; a cell may instead be given as trusted HTML with `.html`.
    mutating func table(_ columns: [String], _ rows: [[Cell]], numeric: Set<Int> = []) {
        guard !rows.isEmpty else {
            note("(none)")
            return
        }
        append("<table><thead><tr>")
        for (index, column) in columns.enumerated() {
            append("<th\(numeric.contains(index) ? " class=\"n\"" : "")>\(text(column))</th>")
        }
        append("</tr></thead><tbody>\n")
        for row in rows.prefix(limits.tableRows) {
            append("<tr>")
            for (index, cell) in row.enumerated() {
                let content =
                    switch cell {
                    case .text(let value): text(value)
                    case .html(let value): value
                    }
                append("<td\(numeric.contains(index) ? " class=\"n\"" : "")>\(content)</td>")
            }
            append("</tr>\n")
        }
        append("</tbody></table>\n")
        if rows.count > limits.tableRows {
            note("showing \(Self.grouped(limits.tableRows)) of \(Self.grouped(rows.count)) rows")
        }
    }

    /// One table cell: text to escape, or HTML this page made.
    enum Cell {
        case text(String)
        case html(String)
    }

    /// The whole document.
    func finished() -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="auditctl">
        <title>\(text(title))</title>
        <style>\(Self.style)</style>
        </head><body>
        \(body)<div id="tip" hidden></div>
        <script>\(Self.script)</script>
        </body></html>

        """
    }

    /// 1234567 as "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}
