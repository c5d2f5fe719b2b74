import AuditModel
import Foundation

/// A value of an export line as `ExportLineForm` found it, still in the line's bytes.
struct ScannedValue {
    enum Kind {
        case null
        case integer(Int64)
        /// A string, and whether its bytes hold escapes.
        case text(escaped: Bool)
        /// An object of strings, its keys in increasing order, none with escapes (a session's
        /// labels); `bytes` are its members, between the braces.
        case labels
    }

    var kind: Kind
    /// Where the value lies in the line: a string's bytes between its quotes, an integer's
    /// digits, `null`.
    var bytes: Range<Int>

    var isNullOrInteger: Bool {
        switch kind {
        case .null, .integer: true
        case .text, .labels: false
        }
    }

    /// The value, a string's escapes decoded.
    func value(in line: UnsafeRawBufferPointer) -> AuditValue {
        switch kind {
        case .null: return .null
        case .integer(let number): return .int(Int(number))
        case .text(let escaped):
            return .string(ExportLineForm.string(UnsafeRawBufferPointer(rebasing: line[bytes]), escaped: escaped))
        case .labels:
            var scanner = ExportLineForm.Scanner(line: line, index: bytes.lowerBound)
            var labels: [String: AuditValue] = [:]
            while scanner.index < bytes.upperBound {
                _ = scanner.take(UInt8(ascii: ","))
                guard let key = scanner.value(), scanner.take(UInt8(ascii: ":")), let value = scanner.value() else {
                    break
                }
                labels[String(decoding: UnsafeRawBufferPointer(rebasing: line[key.bytes]), as: UTF8.self)] =
                    value.value(in: line)
            }
            return .object(labels)
        }
    }
}

/// The exact form `export` writes one type of line in: `{"type":"event","seq":…,…}`, its keys in
/// the export's order, no space, each value a null, an integer or a string.
///
/// Import reads most lines through a form: a line in it is read straight from its bytes, with no
/// value built and nothing allocated, and bound to SQL from there. A line the form does not take
/// exactly — other key order, spaces, a real number, a blob, a `\u` escape, a byte beyond ASCII, an
/// error of any kind — goes to the full reading (`AuditValue(json:)`), which takes every valid line
/// and names what is wrong with the others. The form takes only lines on which both readings give
/// the same values, so the way a line is read never changes what is stored.
struct ExportLineForm {
    /// `{"type":"event"`: what comes before the first key.
    private let head: [UInt8]
    /// `,"seq":` for each key, in order.
    private let keys: [[UInt8]]
    /// The index of the key whose value may be an object of strings (a session's labels).
    private let labels: Int?

    init(type: String, keys: [String], labels: String? = nil) {
        head = Array("{\"type\":\"\(type)\"".utf8)
        self.keys = keys.map { Array(",\"\($0)\":".utf8) }
        self.labels = labels.flatMap(keys.firstIndex(of:))
    }

    /// Reads `line` into `values`, one for each key in order; false when the line is not in the
    /// form exactly.
    func scan(_ line: UnsafeRawBufferPointer, into values: inout [ScannedValue]) -> Bool {
        values.removeAll(keepingCapacity: true)
        var scanner = Scanner(line: line)
        guard scanner.take(head) else { return false }
        for (index, key) in keys.enumerated() {
            guard scanner.take(key), let value = scanner.value(labels: index == labels) else { return false }
            values.append(value)
        }
        return scanner.take(UInt8(ascii: "}")) && scanner.atEnd
    }

    /// Appends a string's bytes to `decoded` with their escapes decoded (`\"`, `\\`, `\/`, `\b`,
    /// `\f`, `\n`, `\r`, `\t`: the only ones a scan lets through).
    static func unescape(_ bytes: UnsafeRawBufferPointer, appendingTo decoded: inout [UInt8]) {
        guard let base = bytes.baseAddress else { return }
        var index = 0
        while index < bytes.count {
            // The run up to the next backslash goes across as it is.
            let backslash =
                memchr(base + index, Int32(UInt8(ascii: "\\")), bytes.count - index).map { base.distance(to: $0) }
                ?? bytes.count
            decoded.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<backslash]))
            guard backslash < bytes.count else { return }
            switch bytes[backslash + 1] {
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case let escaped: decoded.append(escaped)  // `"`, `\` and `/` stand for themselves
            }
            index = backslash + 2
        }
    }

    /// A string's bytes, decoded.
    static func string(_ bytes: UnsafeRawBufferPointer, escaped: Bool) -> String {
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        unescape(bytes, appendingTo: &decoded)
        return String(decoding: decoded, as: UTF8.self)
    }

    /// A cursor over a line's bytes.
    fileprivate struct Scanner {
        let line: UnsafeRawBufferPointer
        var index = 0

        var atEnd: Bool { index == line.count }

        mutating func take(_ literal: [UInt8]) -> Bool {
            guard line.count - index >= literal.count else { return false }
            for offset in literal.indices where line[index + offset] != literal[offset] { return false }
            index += literal.count
            return true
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < line.count, line[index] == byte else { return false }
            index += 1
            return true
        }

        /// The value at the cursor, or nil when it is not one the form takes; an object of
        /// strings only where `labels` says one may be.
        mutating func value(labels: Bool = false) -> ScannedValue? {
            guard index < line.count else { return nil }
            switch line[index] {
            case UInt8(ascii: "n"):
                let start = index
                return take(Self.null) ? ScannedValue(kind: .null, bytes: start..<index) : nil
            case UInt8(ascii: "\""): return text()
            case UInt8(ascii: "{") where labels: return self.labels()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer()
            default: return nil
            }
        }

        private static let null = Array("null".utf8)

        /// `{}`, or `{"key":"value",…}` with keys in increasing order and free of escapes.
        private mutating func labels() -> ScannedValue? {
            index += 1
            let start = index
            var previous: UnsafeRawBufferPointer?
            while !take(UInt8(ascii: "}")) {
                guard previous == nil || take(UInt8(ascii: ",")), let key = text(),
                    case .text(escaped: false) = key.kind,
                    take(UInt8(ascii: ":")), let value = text()
                else { return nil }
                let keyBytes = UnsafeRawBufferPointer(rebasing: line[key.bytes])
                // A key starting with `$` may be a tag the full reading decodes (`AuditValue`).
                guard keyBytes.first != UInt8(ascii: "$") else { return nil }
                if let previous, !previous.lexicographicallyPrecedes(keyBytes) { return nil }
                previous = keyBytes
                _ = value
            }
            return ScannedValue(kind: .labels, bytes: start..<index - 1)
        }

        /// A string of ASCII without `\u` escapes or control characters.
        private mutating func text() -> ScannedValue? {
            guard index < line.count, line[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var cursor = start
            var escaped = false
            while cursor < line.count {
                let byte = line[cursor]
                if byte == UInt8(ascii: "\"") {
                    index = cursor + 1
                    return ScannedValue(kind: .text(escaped: escaped), bytes: start..<cursor)
                }
                guard byte >= 0x20, byte < 0x80 else { return nil }
                if byte == UInt8(ascii: "\\") {
                    guard cursor + 1 < line.count, Self.isSimpleEscape(line[cursor + 1]) else { return nil }
                    escaped = true
                    cursor += 2
                } else {
                    cursor += 1
                }
            }
            return nil
        }

        private static func isSimpleEscape(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                true
            default: false
            }
        }

        /// An integer as JSON writes it (no leading zero, no `-0`) within ±`Int64.max`, not
        /// followed by a fraction or an exponent.
        private mutating func integer() -> ScannedValue? {
            let negative = line[index] == UInt8(ascii: "-")
            var cursor = negative ? index + 1 : index
            let first = cursor
            var magnitude: UInt64 = 0
            while cursor < line.count, case let digit = line[cursor] &- UInt8(ascii: "0"), digit < 10 {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
                guard !overflow1, !overflow2 else { return nil }
                magnitude = sum
                cursor += 1
            }
            let digits = cursor - first
            guard digits > 0, digits == 1 || line[first] != UInt8(ascii: "0") else { return nil }
            if cursor < line.count {
                switch line[cursor] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
                default: break
                }
            }
            guard magnitude <= UInt64(Int64.max), !(negative && magnitude == 0) else { return nil }
            defer { index = cursor }
            return ScannedValue(kind: .integer(negative ? -Int64(magnitude) : Int64(magnitude)), bytes: index..<cursor)
        }
    }
}
