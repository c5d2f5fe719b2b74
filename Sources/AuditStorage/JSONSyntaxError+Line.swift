import AuditModel

/// How an import names a line that is not JSON.
extension JSONSyntaxError {
    /// Why a line is not JSON, in words: cut short (the parser ran out of line, or the line ends
    /// inside a word or a number that more bytes would complete: a truncated export), or what is
    /// wrong at which column (in bytes, from 1).
    func reason(in line: String.UTF8View) -> String {
        let rest = line.dropFirst(offset)
        guard !rest.isEmpty, !Self.endsUnfinished(rest) else {
            return "not valid JSON: the line is cut short (\(message) at its end)"
        }
        return "not valid JSON: \(message) at column \(offset + 1)"
    }

    /// Whether `rest`, all that follows the place the parser stopped, is the start of `true`,
    /// `false` or `null`, or of a number that a digit would complete (`1.`, `2e`, `-`).
    private static func endsUnfinished(_ rest: Substring.UTF8View) -> Bool {
        if ["true", "false", "null"].contains(where: { $0.utf8.count > rest.count && $0.utf8.starts(with: rest) }) {
            return true
        }
        let numeric = Set("0123456789-+.eE".utf8)
        return rest.allSatisfy(numeric.contains) && Set("-+.eE".utf8).contains(rest.last!)
    }
}
