import AuditModel
import AuditStorage
import Foundation

/// A scenario: a widget tree, the delegate to run it with, and the inputs that drive it.
///
/// Parsing validates everything before anything runs: JSON syntax (reported by line and column),
/// every field (reported by its path), widget kinds and their properties, and every step against
/// the tree (the widget exists, is of the right kind, the segment is in range). A scenario that
/// parses can be run without failing.
public struct Scenario: Sendable {
    /// The newest scenario format this build reads. Files of older formats stay valid.
    public static let currentFormat = 1

    public var format: Int
    public var name: String
    /// The registered delegate to use when none is given on the command line.
    public var delegate: String?
    public var root: WidgetSpec
    public var steps: [ScenarioStep]
    /// The file's text, stored with the session so it can be replayed without the file.
    public var source: String
    /// The widget kinds the scenario was read with: what its recordings and replays use.
    public let catalog: WidgetCatalog

    /// The largest scenario file accepted, in bytes (8 MiB).
    public static let maximumFileSize = 8 << 20
    /// The most steps a scenario may have.
    public static let maximumSteps = 100_000
    /// The longest string a scenario may hold (a typed text, a title, an id), in bytes of UTF-8.
    public static let maximumStringBytes = 65_536

    /// Parses and validates a scenario file's bytes.
    ///
    /// The limits above are checked first (the size before anything is read), so whatever the input
    /// the memory used stays bounded; the ReliabilityAndSecurity article gives the measured peak.
    public init(data: Data, catalog: WidgetCatalog) throws(ScenarioError) {
        try self.init(data: data, includingSteps: true, catalog: catalog)
    }

    /// `includingSteps: false` reads the tree only (replay drives the recorded inputs, not the
    /// file's steps, so it need not parse them again).
    package init(data: Data, includingSteps: Bool, catalog: WidgetCatalog) throws(ScenarioError) {
        guard data.count <= Self.maximumFileSize else { throw Self.tooLarge(data.count) }
        // A UTF-8 byte order mark, which some editors write, is skipped (RFC 8259 §8.1 lets a
        // parser ignore it); lines and columns then count as the editor shows them.
        let data = data.starts(with: Self.byteOrderMark) ? Data(data.dropFirst(Self.byteOrderMark.count)) : data
        let document = try Self.decodeJSON(data, skippingSteps: !includingSteps)
        try Self.checkSizes(document)
        var fields = try FieldReader(document, at: "")
        self.catalog = catalog
        format = 1
        if let value = fields.optional("format") {
            format = try FieldReader.int(value, at: "format")
            guard (1...Self.currentFormat).contains(format) else {
                throw ScenarioError(
                    at: "format", "format \(format) is not supported (this build reads 1 to \(Self.currentFormat))")
            }
        }
        name = try fields.string("name")
        delegate = try fields.optional("delegate").map { value throws(ScenarioError) in
            try FieldReader.string(value, at: "delegate")
        }
        root = try WidgetSpec(try fields.required("root"), at: "root", catalog: catalog)
        let tree = root.build()
        try root.validateReferences(in: tree)
        steps = []
        if includingSteps {
            var fingers = FingerTracker()
            for (index, value) in try fields.array("steps").enumerated() {
                let step = try ScenarioStep(value, at: "steps[\(index)]", in: tree, catalog: catalog)
                try fingers.follow(step, index, at: "steps[\(index)]")
                steps.append(step)
            }
            try fingers.finish()
        } else {
            _ = fields.optional("steps")
        }
        try fields.finish()
        source = String(decoding: data, as: UTF8.self)
    }

    /// Reads `path` and parses it; a missing or unreadable file is a `ScenarioError` too.
    public init(contentsOf path: String, catalog: WidgetCatalog) throws(ScenarioError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ScenarioError(at: "", "cannot read scenario \(path): no such file")
        }
        guard !isDirectory.boolValue else {
            throw ScenarioError(at: "", "cannot read scenario \(path): it is a directory")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw ScenarioError(at: "", "cannot read scenario \(path): not a regular file")
        }
        // Checked before reading, so a huge file is never loaded.
        if let size = attributes?[.size] as? Int, size > Self.maximumFileSize {
            throw ScenarioError(at: path, Self.tooLarge(size).message)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(at: "", "cannot read scenario \(path): permission denied")
        }
        do {
            try self.init(data: data, catalog: catalog)
        } catch {
            throw ScenarioError(at: error.location.isEmpty ? path : "\(path): \(error.location)", error.message)
        }
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private static func tooLarge(_ size: Int) -> ScenarioError {
        ScenarioError(at: "", "the file is \(size) bytes; scenarios are limited to \(maximumFileSize) bytes (8 MiB)")
    }

    /// Checks the number of steps and the length of every string, naming the first one too long.
    private static func checkSizes(_ document: AuditValue) throws(ScenarioError) {
        if case .array(let steps)? = document["steps"], steps.count > maximumSteps {
            throw ScenarioError(
                at: "steps", "\(steps.count) steps; a scenario is limited to \(maximumSteps) (split it into several)")
        }
        try checkStrings(document, at: "")
    }

    private static func checkStrings(_ value: AuditValue, at path: String) throws(ScenarioError) {
        switch value {
        case .string(let text) where text.utf8.count > maximumStringBytes:
            throw ScenarioError(
                at: path.isEmpty ? "top level" : path,
                "a string of \(text.utf8.count) bytes; strings are limited to \(maximumStringBytes) bytes")
        case .array(let values):
            for (index, element) in values.enumerated() { try checkStrings(element, at: "\(path)[\(index)]") }
        case .object(let fields):
            for key in fields.keys.sorted() {
                guard key.utf8.count <= maximumStringBytes else {
                    throw ScenarioError(
                        at: path.isEmpty ? "top level" : path, "a field name longer than \(maximumStringBytes) bytes")
                }
                try checkStrings(fields[key]!, at: path.isEmpty ? key : "\(path).\(key)")
            }
        default:
            break
        }
    }

    /// Decodes JSON into values; errors name the line and column.
    private static func decodeJSON(_ data: Data, skippingSteps: Bool) throws(ScenarioError) -> AuditValue {
        if let offset = firstInvalidUTF8(in: data) {
            throw ScenarioError(at: position(of: offset, in: data), "invalid UTF-8")
        }
        do {
            return try AuditValue.parse(json: data, skipping: skippingSteps ? "steps" : nil)
        } catch {
            throw ScenarioError(at: position(of: error.offset, in: data), "invalid JSON: \(error.message)")
        }
    }

    /// "line L, column C" (both from 1) of a byte offset.
    static func position(of offset: Int, in data: Data) -> String {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }
}

/// The byte offset of the first byte that is not valid UTF-8, or nil.
private func firstInvalidUTF8(in data: Data) -> Int? {
    data.withUnsafeBytes { bytes in
        if String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil { return nil }
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
