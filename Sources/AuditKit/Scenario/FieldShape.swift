import AuditModel
import AuditStorage

/// How a step field that holds objects (a point, an index path, a range, touches) is read from a
/// scenario file: with `FieldReader`'s discipline at every level, so a typo inside a nested object
/// is an error at its own path (`steps[3].events[2].z: unknown field`), a missing member is named,
/// and a value out of its domain says why, instead of the whole field being "expected …".
///
/// Only files are read this way; a recorded input's arguments are the encoder's own and are
/// checked by their coding (`ActionField.accepts`).
struct FieldShape: Sendable {
    /// Throws the first problem of `value`, the field at `path`; `expected` describes the field's
    /// whole shape, for a value that is not even of the right JSON type.
    let read: @Sendable (_ value: AuditValue, _ path: String, _ expected: String) throws(ScenarioError) -> Void
}

extension FieldShape {
    /// Why `value` does not have this shape, located under the field (`x`, `[2].t`); nil when it
    /// has it.
    func problem(_ value: AuditValue, expected: String) -> PropertyProblem? {
        do {
            try read(value, "", expected)
            return nil
        } catch {
            return PropertyProblem(error.location.isEmpty ? nil : error.location, error.message)
        }
    }

    /// `{"x": number, "y": number}`.
    static let point = FieldShape { value, path, expected throws(ScenarioError) in
        var fields = try FieldReader.object(value, at: path, expected: expected)
        for key in ["x", "y"] { _ = try FieldReader.number(try fields.required(key), at: fields.location(key)) }
        try fields.finish()
    }

    /// `{"section": integer, "row": integer}`, both at least 0. (An index path of another length,
    /// which a delegate may answer, is an array; its coding checks it.)
    static let indexPath = FieldShape { value, path, expected throws(ScenarioError) in
        if case .array = value { return }
        var fields = try FieldReader.object(value, at: path, expected: expected)
        for key in ["section", "row"] {
            _ = try FieldReader.int(try fields.required(key), at: fields.location(key), atLeast: 0)
        }
        try fields.finish()
    }

    /// `{"location": integer, "length": integer}`, in UTF-16 units from the start of the text, so
    /// neither is negative (UIKit's ranges are `NSRange`s, whose `location` and `length` are
    /// `NSUInteger`: Foundation's `NSRange.h`).
    static let textRange = FieldShape { value, path, expected throws(ScenarioError) in
        var fields = try FieldReader.object(value, at: path, expected: expected)
        for key in ["location", "length"] {
            let number = try FieldReader.int(try fields.required(key), at: fields.location(key))
            guard number >= 0 else {
                throw ScenarioError(
                    at: fields.location(key), "a negative \(key) (\(number)): ranges count UTF-16 units from 0")
            }
        }
        try fields.finish()
    }

    /// One touch: `{"id": integer, "x": number, "y": number, "phase": name, "t": seconds}`.
    static let touch = FieldShape { value, path, expected throws(ScenarioError) in
        var fields = try FieldReader.object(value, at: path, expected: expected)
        _ = try fields.int("id")
        for key in ["x", "y"] { _ = try FieldReader.number(try fields.required(key), at: fields.location(key)) }
        let phase = try fields.string("phase")
        guard Touch.Phase(rawValue: phase) != nil else {
            throw ScenarioError(
                at: fields.location("phase"),
                "unknown phase '\(phase)' (expected "
                    + Touch.Phase.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")")
        }
        let time = try fields.required("t")
        guard case .some(let seconds) = ValueCoding<Double>.double.decode(time), seconds.isFinite else {
            throw ScenarioError(at: fields.location("t"), "expected a number of seconds")
        }
        guard seconds >= 0 else { throw ScenarioError(at: fields.location("t"), "a negative time (\(seconds) s)") }
        guard seconds <= VirtualTime.maximumSeconds else {
            throw ScenarioError(
                at: fields.location("t"),
                "\(seconds) s is past the end of the virtual clock (at most \(Int(VirtualTime.maximumSeconds)) s)")
        }
        try fields.finish()
    }

    /// An array of touches, each read as `touch`, at `events[index]`.
    static let touches = FieldShape { value, path, expected throws(ScenarioError) in
        guard case .array(let events) = value else { throw ScenarioError(at: path, "expected \(expected)") }
        for (index, event) in events.enumerated() {
            try touch.read(event, "\(path)[\(index)]", touchShape)
        }
    }

    static let touchShape =
        #"{"id": integer, "x": number, "y": number, "phase": "began"|"moved"|"ended"|"cancelled", "t": seconds}"#
}

extension FieldReader {
    /// A reader of `value`, which must be an object; anything else is "expected `expected`".
    static func object(_ value: AuditValue, at path: String, expected: String) throws(ScenarioError) -> FieldReader {
        guard case .object = value else { throw ScenarioError(at: path, "expected \(expected)") }
        return try FieldReader(value, at: path)
    }
}

extension FieldShape {
    /// The path of the first member of `given`, at any depth, that `known` — the same value read by
    /// its coding and written back — does not have: a member the coding ignored (`Codable` ignores
    /// keys it does not know). A member given as `null` is taken as absent, as an optional is.
    static func firstIgnoredMember(_ given: AuditValue, _ known: AuditValue, at path: String) -> String? {
        switch (given, known) {
        case (.object(let fields), .object(let knownFields)):
            for key in fields.keys.sorted() where fields[key] != .null {
                let here = path.isEmpty ? key : "\(path).\(key)"
                guard let other = knownFields[key] else { return here }
                if let found = firstIgnoredMember(fields[key]!, other, at: here) { return found }
            }
        case (.array(let values), .array(let knownValues)) where values.count == knownValues.count:
            for index in values.indices {
                if let found = firstIgnoredMember(values[index], knownValues[index], at: "\(path)[\(index)]") {
                    return found
                }
            }
        default:
            break
        }
        return nil
    }
}
