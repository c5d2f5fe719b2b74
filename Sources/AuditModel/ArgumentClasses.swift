/// What kind of value a field of a recorded value held: the classes it could fall in depend on it.
///
/// An object is no type here: its fields are classified, each at its own path.
public enum ValueType: String, Sendable, CaseIterable, Comparable {
    case null
    case bool
    case integer
    case double
    case string
    /// A secure text view's text as stored: its keyed hash (`hmac-sha256:…`), whose characters
    /// say nothing of the text's.
    case secureText = "secure text"
    case array

    /// Every class a value of this type could fall in, in ``ValueClass``'s order: what "never
    /// tried" is measured against.
    ///
    /// A field seen only with values cannot be known to take `null` too, nor an integer field to
    /// take a double: a type's classes are those of the types seen at a path, nothing more.
    public var classes: [ValueClass] {
        switch self {
        case .null: [.null]
        case .bool: [.false, .true]
        case .integer: [.negative, .zero, .positive]
        case .double: [.negative, .zero, .positive, .fractional, .nonFinite]
        case .string:
            [
                .empty, .oneCharacter, .longer, .whitespace, .lineBreak, .lowercase, .uppercase, .digit,
                .otherASCII, .nonASCII,
            ]
        case .secureText: [.hashed]
        case .array: [.noElements, .elements]
        }
    }

    public static func < (lhs: ValueType, rhs: ValueType) -> Bool { lhs.order < rhs.order }

    private var order: Int { Self.allCases.firstIndex(of: self)! }
}

/// A class of a recorded value, small and fixed: what a test of a delegate cares whether it tried.
///
/// - `null`;
/// - `false`, `true`;
/// - numbers: `negative`, `zero` or `positive` (`-0.0` is zero); a double also `fractional` when it
///   is not a whole number, and `non-finite` for NaN and ±infinity (NaN has no sign);
/// - strings, by length in characters (grapheme clusters, as a user types them): `empty`,
///   `one character` or `longer`; and by what they contain, one class for each kind of Unicode
///   scalar present: `whitespace` (space, tab), `line break` (line feed, vertical tab, form feed,
///   carriage return), `lowercase` (a–z), `uppercase` (A–Z), `digit` (0–9), `other ASCII` (punctuation,
///   symbols, the other control characters) and `non-ASCII` (every scalar above U+007F, letters
///   of other scripts and emoji alike). The content classes are ASCII on purpose: they do not
///   change with the Unicode tables of the toolchain, and an accented or foreign letter is the
///   `non-ASCII` case a text test should try anyway;
/// - arrays: `no elements` or `elements` (and each element is classified at `path[]`);
/// - secure text, stored as its keyed hash: `hashed`, its type `secure text` (the hash's
///   characters say nothing of the text's).
///
/// The boundaries judged are those a value carries itself: zero, an empty string or array, one
/// character, a whole or fractional double. A boundary against the widget's state (the last
/// segment, the text's length, a gesture threshold) is not in the recorded value and is not judged.
public enum ValueClass: String, Sendable, CaseIterable, Comparable {
    case null
    case `false`
    case `true`
    case negative
    case zero
    case positive
    case fractional
    case nonFinite = "non-finite"
    case empty
    case oneCharacter = "one character"
    case longer
    case whitespace
    case lineBreak = "line break"
    case lowercase
    case uppercase
    case digit
    case otherASCII = "other ASCII"
    case nonASCII = "non-ASCII"
    case noElements = "no elements"
    case elements
    /// Secure text, hashed before it was stored: not classified further.
    case hashed

    /// Declaration order, the order classes are listed in.
    public static func < (lhs: ValueClass, rhs: ValueClass) -> Bool { lhs.order < rhs.order }

    private var order: Int { Self.allCases.firstIndex(of: self)! }
}

/// One class one field of a recorded value fell in: `replacementText` (a string) is `lowercase`.
///
/// A field's path is its key in the arguments object; a field of a nested object adds `.` and its
/// key (`range.location`); the elements of an array are all at the array's path and `[]`
/// (`events[].x`). A value that is no object is at the empty path.
public struct ArgumentClass: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var path: String
    public var type: ValueType
    public var valueClass: ValueClass

    public init(path: String, type: ValueType, valueClass: ValueClass) {
        self.path = path
        self.type = type
        self.valueClass = valueClass
    }

    /// `range.location: zero`.
    public var description: String { path.isEmpty ? valueClass.rawValue : "\(path): \(valueClass.rawValue)" }

    /// By path, then type, then class.
    public static func < (lhs: ArgumentClass, rhs: ArgumentClass) -> Bool {
        (lhs.path, lhs.type, lhs.valueClass) < (rhs.path, rhs.type, rhs.valueClass)
    }
}

extension ArgumentClass {
    /// The classes of every field of `value` (a callback's arguments object, or any one value),
    /// each once, sorted. A pure function of the value: the same value gives the same list.
    ///
    /// - Complexity: O(*n* + *k* log *k*) for a value of *n* fields, elements and string bytes in
    ///   all that falls in *k* classes.
    public static func classes(of value: AuditValue) -> [ArgumentClass] {
        var found = Set<ArgumentClass>()
        insertClasses(of: value, into: &found)
        return found.sorted()
    }

    /// Adds the classes of every field of `value` to `set`: for a caller that gathers the classes of
    /// many values (a callback's every call), without a sorted list for each.
    ///
    /// - Complexity: O(*n*) for a value of *n* fields, elements and string bytes in all.
    public static func insertClasses(of value: AuditValue, into set: inout Set<ArgumentClass>) {
        visit(value, path: "") { set.insert($0) }
    }

    /// For each path and type in `seen`, the classes that type could fall in that `seen` does not
    /// have: what was never tried. Sorted.
    ///
    /// - Complexity: O(*k* log *k*) for the *k* classes seen.
    public static func untried(_ seen: Set<ArgumentClass>) -> [ArgumentClass] {
        var fields = Set<Field>()
        for found in seen { fields.insert(Field(path: found.path, type: found.type)) }
        var untried: [ArgumentClass] = []
        for field in fields {
            for valueClass in field.type.classes {
                let candidate = ArgumentClass(path: field.path, type: field.type, valueClass: valueClass)
                if !seen.contains(candidate) { untried.append(candidate) }
            }
        }
        return untried.sorted()
    }

    private struct Field: Hashable {
        let path: String
        let type: ValueType
    }

    private static func visit(_ value: AuditValue, path: String, _ body: (ArgumentClass) -> Void) {
        func found(_ type: ValueType, _ valueClass: ValueClass) {
            body(ArgumentClass(path: path, type: type, valueClass: valueClass))
        }
        switch value {
        case .null: found(.null, .null)
        case .bool(let flag): found(.bool, flag ? .true : .false)
        case .int(let number): found(.integer, number < 0 ? .negative : number == 0 ? .zero : .positive)
        case .double(let number):
            if number.isNaN {
                found(.double, .nonFinite)
                return
            }
            found(.double, number < 0 ? .negative : number == 0 ? .zero : .positive)
            if !number.isFinite {
                found(.double, .nonFinite)
            } else if number != number.rounded(.towardZero) {
                found(.double, .fractional)
            }
        case .string(let text) where text.hasPrefix(SHA256.HMAC.storedPrefix):
            found(.secureText, .hashed)
        case .string(let text):
            var characters = text.makeIterator()
            found(.string, characters.next() == nil ? .empty : characters.next() == nil ? .oneCharacter : .longer)
            var kinds: UInt8 = 0
            for byte in text.utf8 { kinds |= scalarKind(byte) }
            for (bit, valueClass) in contentClasses.enumerated() where kinds & (1 << bit) != 0 {
                found(.string, valueClass)
            }
        case .array(let elements):
            found(.array, elements.isEmpty ? .noElements : .elements)
            let elementPath = path + "[]"
            for element in elements { visit(element, path: elementPath, body) }
        case .object(let fields):
            for (key, field) in fields { visit(field, path: path.isEmpty ? key : path + "." + key, body) }
        }
    }

    /// The content classes of a string, by the bit `scalarKind` sets for each.
    private static let contentClasses: [ValueClass] = [
        .whitespace, .lineBreak, .lowercase, .uppercase, .digit, .otherASCII, .nonASCII,
    ]

    /// The bit of `contentClasses` one byte of UTF-8 stands for: every byte of a scalar above
    /// U+007F is 0x80 or more, so each sets the non-ASCII bit.
    private static func scalarKind(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x20, 0x09: 1 << 0
        case 0x0A...0x0D: 1 << 1
        case UInt8(ascii: "a")...UInt8(ascii: "z"): 1 << 2
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): 1 << 3
        case UInt8(ascii: "0")...UInt8(ascii: "9"): 1 << 4
        case 0x80...: 1 << 6
        default: 1 << 5
        }
    }
}
