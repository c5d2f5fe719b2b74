import AuditCore
import Foundation

/// Where a command writes: data to `standardOutput`, diagnostics to `standardError`.
public final class Output {
    private let writeOut: (String) -> Void
    private let writeError: (String) -> Void
    /// Whether standard error is a terminal: progress lines are shown only then.
    let errorIsTerminal: Bool
    /// Whether this is the process's own output: a command may then end the process itself (a
    /// query past its deadline).
    let ownsProcess: Bool

    public convenience init(
        out: @escaping (String) -> Void, error: @escaping (String) -> Void, errorIsTerminal: Bool = false
    ) {
        self.init(out: out, error: error, errorIsTerminal: errorIsTerminal, ownsProcess: false)
    }

    private init(
        out: @escaping (String) -> Void, error: @escaping (String) -> Void, errorIsTerminal: Bool, ownsProcess: Bool
    ) {
        writeOut = out
        writeError = error
        self.errorIsTerminal = errorIsTerminal
        self.ownsProcess = ownsProcess
    }

    public static var standard: Output {
        Output(
            out: { FileHandle.standardOutput.write(Data($0.utf8)) },
            error: { FileHandle.standardError.write(Data($0.utf8)) }, errorIsTerminal: isatty(STDERR_FILENO) != 0,
            ownsProcess: true)
    }

    func line(_ text: String = "") { writeOut(text + "\n") }
    /// Writes `text` as it is (lines already ended).
    func write(_ text: String) { writeOut(text) }
    func diagnostic(_ text: String) { writeError(text + "\n") }

    /// Replaces the progress line on standard error, when it is a terminal; nothing otherwise (the
    /// text is not even made).
    func progress(_ text: @autoclosure () -> String) {
        if errorIsTerminal { writeError("\r\u{1B}[K" + text()) }
    }

    /// Clears the progress line, when there is one.
    func endProgress() {
        if errorIsTerminal { writeError("\r\u{1B}[K") }
    }
}

/// The output formats; each command says which it takes.
enum Format: String, CaseIterable, Sendable {
    case text
    case table
    case csv
    case json
    /// JUnit XML, for CI systems (`replay`, `diff`).
    case junit

}

/// Rows to print as an aligned text table, CSV (RFC 4180) or a JSON array of objects.
struct Table {
    var columns: [String]
    var rows: [[AuditValue]]

    func render(_ format: Format, to output: Output) {
        switch format {
        case .text, .table, .junit:  // no command that prints a table takes junit
            let cells = rows.map { row in row.indices.map { Self.terminalText(row[$0], column: columns[$0]) } }
            let header = columns.map { $0.visiblyEscaped() }
            let widths = columns.indices.map { column in
                ([header[column]] + cells.map { $0[column] }).map(\.displayWidth).max() ?? 0
            }
            for row in [header] + cells {
                output.line(
                    row.enumerated().map { $1.padded(toWidth: widths[$0]) }.joined(separator: "  ")
                        .trimmingTrailingSpaces())
            }
        case .csv, .json:
            var writer = TableWriter(columns: columns, format: format, output: output)
            for row in rows { writer.add(row) }
            writer.finish()
        }
    }

    /// Columns whose strings are JSON text (a recorded `args` or `result`): escaped as JSON.
    static let jsonColumns: Set<String> = ["args", "result"]
    /// Columns of times (`t_ms`, `duration_us`): printed with ``time(_:)``.
    static let timeColumns: Set<String> = ["t_ms", "duration_us"]

    /// A cell as the text formats print it: strings with control, bidi and invisible characters
    /// escaped (see `visiblyEscaped`), times with three decimals, other values as JSON.
    static func terminalText(_ value: AuditValue, column: String) -> String {
        switch value {
        case .null: ""
        case .string(let text): text.visiblyEscaped(json: jsonColumns.contains(column))
        case .double(let time) where timeColumns.contains(column): Self.time(time)
        case .int(let time) where timeColumns.contains(column): Self.time(Double(time))
        default: value.json.visiblyEscaped(json: true)
        }
    }

    /// A time in text output: always three decimals (a microsecond of a millisecond, a
    /// nanosecond of a microsecond), so one value always has one spelling: 1.050, never
    /// 1.0499999999999998.
    static func time(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f", value) : AuditValue.double(value).json
    }

    /// A value as CSV writes it: text as it is, other values as JSON.
    static func text(_ value: AuditValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        default: value.json
        }
    }

    /// A field of a CSV record (RFC 4180): the text as it is, unless it holds the separator, a quote
    /// or any control character (CR, LF and CR LF among them; U+0000–U+001F, U+007F–U+009F); then
    /// quoted, its quotes doubled, so that a reader takes it whole.
    ///
    /// Works on code points and bytes, not characters: CR LF is one `Character`, equal to neither
    /// CR nor LF, and a quote followed by a combining mark is one `Character` that is not a quote.
    static func csvField(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isQuotedInCSV) else { return text }
        var field: [UInt8] = [UInt8(ascii: "\"")]
        field.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            field.append(byte)
            if byte == UInt8(ascii: "\"") { field.append(byte) }
        }
        field.append(UInt8(ascii: "\""))
        return String(decoding: field, as: UTF8.self)
    }

    /// The separator, a quote, or a control character (general category Cc).
    private static func isQuotedInCSV(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "," || scalar == "\"" || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

}

/// A table written row by row: CSV and JSON go out in chunks of about 64 KB as rows come, so the
/// memory used does not grow with the rows; text keeps its rows until `finish()`, to align its
/// columns. JSON is an array of objects whose keys keep the column order.
struct TableWriter {
    let columns: [String]
    let format: Format
    let output: Output
    private var rows: [[AuditValue]] = []
    private var chunk = ""
    private var count = 0

    init(columns: [String], format: Format, output: Output) {
        self.columns = columns
        self.format = format
        self.output = output
        if format == .csv { chunk = columns.map(Table.csvField).joined(separator: ",") + "\n" }
    }

    mutating func add(_ row: [AuditValue]) {
        switch format {
        case .text, .table, .junit: rows.append(row)
        case .csv: chunk += row.map { Table.csvField(Table.text($0)) }.joined(separator: ",") + "\n"
        case .json: chunk += (count == 0 ? "[" : ",\n ") + orderedJSON(Array(zip(columns, row)))
        }
        count += 1
        if chunk.utf8.count >= 65_536 {
            output.write(chunk)
            chunk = ""
        }
    }

    /// Writes what is left; call it once, after the last row.
    mutating func finish() {
        switch format {
        case .text, .table, .junit: Table(columns: columns, rows: rows).render(format, to: output)
        case .csv: output.write(chunk)
        case .json: output.write(chunk + (count == 0 ? "[]\n" : "]\n"))
        }
        chunk = ""
    }
}

/// A JSON object whose keys keep the given order (the order the documentation shows them in).
func orderedJSON(_ fields: [(String, AuditValue)]) -> String {
    "{" + fields.map { AuditValue.string($0.0).json + ":" + $0.1.json }.joined(separator: ",") + "}"
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension SQLValue {
    /// The value as it appears in output: text stays text, blobs become hex strings.
    /// Lowercase hex digits of `bytes`, two per byte.
    static func hex(_ bytes: [UInt8]) -> String { SHA256.hexadecimal(bytes) }

    var auditValue: AuditValue {
        switch self {
        case .null: .null
        case .integer(let value): .int(Int(value))
        case .real(let value): .double(value)
        case .text(let value): .string(value)
        case .blob(let bytes): .string(Self.hex(bytes))
        }
    }
}

extension String {
    /// The text as one line of a diagnostic: its line breaks made spaces, and every other character
    /// a terminal would not show as itself (control, bidi and invisible ones, in a file name, a
    /// widget id or a stored name that an error quotes) escaped visibly; backslashes stay, since
    /// messages name escapes (`invalid \u escape`).
    var asOneVisibleLine: String {
        split(whereSeparator: \.isNewline).joined(separator: " ").visiblyEscaped(doublingBackslashes: false)
    }
}
