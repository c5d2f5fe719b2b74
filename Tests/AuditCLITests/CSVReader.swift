import Testing

/// Why text is not CSV as RFC 4180 writes it.
struct CSVSyntaxError: Error, CustomStringConvertible {
    let record: Int
    let message: String
    var description: String { "record \(record + 1): \(message)" }
}

/// The records of CSV text, read as RFC 4180 and the common readers do (Python's `csv` among
/// them): a record ends at CR LF, LF or CR outside quotes; a quoted field holds everything up to
/// its closing quote, `""` standing for one quote; a quote anywhere else, or text after a closing
/// quote, is an error, as is a quote never closed. Reads code points, not characters, as a
/// reader of bytes does (CR LF is one `Character`, and so is a quote with a combining mark).
func readCSV(_ text: String) throws(CSVSyntaxError) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = String.UnicodeScalarView()
    var scalars = Array(text.unicodeScalars)[...]
    /// Whether the field being read was quoted, and whether its closing quote was read.
    var quoted = false
    var closed = false
    func endField() {
        record.append(String(field))
        field = String.UnicodeScalarView()
        quoted = false
        closed = false
    }
    while let scalar = scalars.popFirst() {
        if quoted && !closed {
            if scalar != "\"" {
                field.append(scalar)
            } else if scalars.first == "\"" {
                scalars.removeFirst()
                field.append(scalar)
            } else {
                closed = true
            }
            continue
        }
        switch scalar {
        case ",":
            endField()
        case "\r", "\n":
            if scalar == "\r", scalars.first == "\n" { scalars.removeFirst() }
            endField()
            records.append(record)
            record = []
        case "\"":
            guard field.isEmpty && !quoted else {
                throw CSVSyntaxError(record: records.count, message: "a quote inside a field that is not quoted")
            }
            quoted = true
        default:
            guard !closed else {
                throw CSVSyntaxError(
                    record: records.count, message: "'\(scalar.escaped(asASCII: true))' after a closing quote")
            }
            field.append(scalar)
        }
    }
    if quoted && !closed { throw CSVSyntaxError(record: records.count, message: "a quote never closed") }
    if !field.isEmpty || !record.isEmpty || quoted { endField() }
    if !record.isEmpty { records.append(record) }
    return records
}
