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

    /// Parses and validates a scenario file's bytes.
    public init(data: Data) throws(ScenarioError) {
        try self.init(data: data, includingSteps: true)
    }

    /// `includingSteps: false` reads the tree only (replay drives the recorded inputs, not the
    /// file's steps, so it need not parse a million of them again).
    init(data: Data, includingSteps: Bool) throws(ScenarioError) {
        let document = try Self.decodeJSON(data)
        var fields = try FieldReader(document, at: "")
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
        root = try WidgetSpec(try fields.required("root"), at: "root")
        let tree = root.build()
        try root.validateReferences(in: tree)
        steps = []
        if includingSteps {
            for (index, value) in try fields.array("steps").enumerated() {
                let step = try ScenarioStep(value, at: "steps[\(index)]")
                try step.validate(in: tree, at: "steps[\(index)]")
                steps.append(step)
            }
        } else {
            _ = fields.optional("steps")
        }
        try fields.finish()
        source = String(decoding: data, as: UTF8.self)
    }

    /// Reads `path` and parses it; a missing or unreadable file is a `ScenarioError` too.
    public init(contentsOf path: String) throws(ScenarioError) {
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
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(at: "", "cannot read scenario \(path): permission denied")
        }
        do {
            try self.init(data: data)
        } catch {
            throw ScenarioError(at: "\(path): \(error.location)", error.message)
        }
    }

    /// Decodes JSON into values; errors name the line and column.
    private static func decodeJSON(_ data: Data) throws(ScenarioError) -> AuditValue {
        if let offset = firstInvalidUTF8(in: data) {
            throw ScenarioError(at: position(of: offset, in: data), "invalid UTF-8")
        }
        do {
            return try AuditValue.parse(json: data)
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
