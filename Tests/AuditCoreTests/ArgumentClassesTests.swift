import SharedTestSupport
import Testing

@testable import AuditModel

/// The argument classifier: every class reachable from some value, each field's classes at its
/// path, the output sorted and the same for the same value, and what was never tried.
@Suite("Argument classes")
struct ArgumentClassesTests {
    func classes(_ value: AuditValue) -> [String] { ArgumentClass.classes(of: value).map(\.description) }

    @Test(arguments: [
        (AuditValue.null, ["null"]),
        (.bool(false), ["false"]),
        (.bool(true), ["true"]),
        (.int(-3), ["negative"]),
        (.int(0), ["zero"]),
        (.int(7), ["positive"]),
        (.double(-0.0), ["zero"]),
        (.double(2.0), ["positive"]),
        (.double(-0.5), ["negative", "fractional"]),
        (.double(.nan), ["non-finite"]),
        (.double(.infinity), ["positive", "non-finite"]),
        (.double(-.infinity), ["negative", "non-finite"]),
        (.string(""), ["empty"]),
        (.string("a"), ["one character", "lowercase"]),
        (.string("e\u{301}"), ["one character", "lowercase", "non-ASCII"]),
        (.string(" Z7"), ["longer", "whitespace", "uppercase", "digit"]),
        (.string("\t"), ["one character", "whitespace"]),
        (.string("\n\r\u{0B}\u{0C}"), ["longer", "line break"]),
        (.string("-!~\u{7F}\u{01}"), ["longer", "other ASCII"]),
        (.string("Grüße 👍"), ["longer", "whitespace", "lowercase", "uppercase", "non-ASCII"]),
        (.array([]), ["no elements"]),
        (.string("hmac-sha256:0f1e"), ["hashed"]),
    ])
    func eachValueFallsInItsClasses(value: AuditValue, expected: [String]) {
        expectEqual(classes(value), expected)
    }

    @Test func everyClassIsReachable() {
        let values: [AuditValue] = [
            .null, .bool(false), .bool(true), .int(-1), .int(0), .int(1), .double(-2), .double(0), .double(0.5),
            .double(.nan), .string(""), .string("x"), .string("aA0 -é\n"), .array([]), .array([.int(1)]),
            .string("hmac-sha256:0f1e"),
        ]
        var found = Set<ArgumentClass>()
        for value in values { ArgumentClass.insertClasses(of: value, into: &found) }
        expectEqual(Set(found.map(\.valueClass)), Set(ValueClass.allCases))
        // And each type's classes are reachable as that type: none is listed that no value can be.
        for type in ValueType.allCases {
            expectEqual(Set(found.filter { $0.type == type }.map(\.valueClass)), Set(type.classes), "\(type)")
        }
    }

    @Test func fieldsAreClassifiedAtTheirPaths() {
        let arguments = AuditValue.object([
            "range": .object(["location": .int(0), "length": .int(2)]),
            "replacementText": .string("Z"),
            "events": .array([.object(["x": .double(1.5)]), .object(["x": .double(-1)])]),
            "nothing": .object([:]),
        ])
        expectEqual(
            classes(arguments),
            [
                "events: elements", "events[].x: negative", "events[].x: positive", "events[].x: fractional",
                "range.length: positive", "range.location: zero", "replacementText: one character",
                "replacementText: uppercase",
            ])
    }

    @Test func theOutputIsSortedAndTheSameForTheSameValue() {
        // Objects' dictionaries iterate in an order that changes from one process to the next and
        // with the number of keys; the list does not.
        let fields = (0..<40).map { ("f\($0)", AuditValue.string($0.isMultiple(of: 2) ? "a b" : "Z9")) }
        let value = AuditValue.object(Dictionary(uniqueKeysWithValues: fields))
        let rebuilt = AuditValue.object(Dictionary(uniqueKeysWithValues: fields.reversed()))
        let list = ArgumentClass.classes(of: value)
        expectEqual(list, list.sorted())
        expectEqual(list, ArgumentClass.classes(of: rebuilt))
        expectEqual(list.count, 40 * 3)
        #expect(list.first?.description == "f0: longer" && list.last?.description == "f9: digit")
    }

    @Test func untriedIsEveryClassOfEachSeenTypeNotSeen() {
        var seen = Set<ArgumentClass>()
        ArgumentClass.insertClasses(of: .object(["text": .string("AB"), "index": .int(0)]), into: &seen)
        ArgumentClass.insertClasses(of: .object(["text": .string("C9"), "index": .null]), into: &seen)
        expectEqual(
            ArgumentClass.untried(seen).map(\.description),
            [
                "index: negative", "index: positive", "text: empty", "text: one character", "text: whitespace",
                "text: line break", "text: lowercase", "text: other ASCII", "text: non-ASCII",
            ])
        #expect(ArgumentClass.untried([]).isEmpty)
        // A field seen in every class of its type has nothing untried.
        let both = Set(ArgumentClass.classes(of: .array([.bool(true), .bool(false)])))
        expectEqual(ArgumentClass.untried(both).map(\.description), ["no elements"])
    }
}
