import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Every string is valid JSON text once recorded (RFC 8259 §7: "All Unicode characters may be
/// placed within the quotation marks, except for the characters that MUST be escaped: quotation
/// mark, reverse solidus, and the control characters (U+0000 through U+001F)"), and reads back
/// as the same scalars through SQLite's JSON functions and through our parser.
@Suite("JSON text: every Unicode scalar, every double", .tags(.slow))
struct JSONTextTests {
    let folder = TemporaryDirectory()

    /// Every Unicode scalar (surrogates have none), in strings of `size` scalars.
    static func everyScalar(inStringsOf size: Int) -> [String] {
        var strings: [String] = []
        var current = String.UnicodeScalarView()
        var count = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            current.append(scalar)
            count += 1
            if count == size {
                strings.append(String(current))
                current = String.UnicodeScalarView()
                count = 0
            }
        }
        if !current.isEmpty { strings.append(String(current)) }
        return strings
    }

    /// The scalars that a hand-written escaper forgets: C0 controls, DEL, C1 controls, the line
    /// and paragraph separators, quote, backslash, slash, and a script end tag.
    static let awkward =
        (0...0x1F).map { String(Unicode.Scalar(UInt8($0))) }.joined()
        + "\u{7F}\u{80}\u{9F}\u{2028}\u{2029}\"\\/</script><!--"

    /// Scalars, not `==` (which treats canonically equivalent strings as equal).
    func sameScalars(_ a: String?, _ b: String) -> Bool {
        a.map { Array($0.unicodeScalars) == Array(b.unicodeScalars) } ?? false
    }

    /// What `json_extract` (and `json_each`, which the `timeline` view reads with) gives for `b`:
    /// SQLite 3.40 ends the text it returns at an escaped U+0000, later versions may keep it; the
    /// JSON text itself is valid either way (TheStore.md, "JSON text").
    func sameAsExtracted(_ a: String?, _ b: String) -> Bool {
        sameScalars(a, b) || sameScalars(a, String(String.UnicodeScalarView(b.unicodeScalars.prefix { $0 != "\0" })))
    }

    @Test func everyScalarRoundTripsThroughSQLiteAndOurParser() throws {
        let store = try AuditStore(path: folder.path("audit.sqlite"), access: .write)
        let check = try store.connection.prepare(
            "SELECT json_valid(?1), json_extract(?1, '$[0]'), json_extract(?1, '$.k'), json_valid(?2)")
        let strings = Self.everyScalar(inStringsOf: 8_192) + [Self.awkward]
        // The same strings without U+0000, so that json_extract is checked on all the rest too.
        let withoutNUL = strings.filter { $0.contains("\0") }.map { String($0.unicodeScalars.filter { $0 != "\0" }) }
        for string in strings + withoutNUL {
            let array = AuditValue.array([.string(string)]).json
            let object = AuditValue.object(["k": .string(string), string: .int(1)]).json
            check.bind([.text(array), .text(object)])
            #expect(try check.step())
            expectEqual(check.int(0), 1)
            expectEqual(check.int(3), 1)
            #expect(sameAsExtracted(check.string(1), string))
            check.reset()
            check.bind([.text(object), .text(object)])
            #expect(try check.step())
            #expect(sameAsExtracted(check.string(2), string))
            check.reset()
            guard case .array(let items) = try AuditValue(json: array), case .string(let read)? = items.first else {
                Issue.record("the array did not read back")
                continue
            }
            #expect(sameScalars(read, string))
            try expectEqual(AuditValue(json: object), .object(["k": .string(string), string: .int(1)]))
            #expect(!array.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        }
        let scalars = strings.map(\.unicodeScalars.count).reduce(0, +)
        expectEqual(scalars, 0x110000 - 0x800 + Self.awkward.unicodeScalars.count)
    }

    @Test func theTimelineViewIsValidJSONForEveryScalar() throws {
        let database = folder.path("audit.sqlite")
        let view = TextView(identifier: "t")
        view.delegate = LoggingTextDelegate()
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.beginEditing()
        var strings = Self.everyScalar(inStringsOf: 16_384) + [Self.awkward]
        strings += strings.filter { $0.contains("\0") }.map { String($0.unicodeScalars.filter { $0 != "\0" }) }
        for string in strings {
            // Replaces the whole text, so each result holds one string, not all of them.
            view.replace(TextRange(location: 0, length: view.text.utf16.count), with: string)
        }
        let summary = recorder.finish()
        let store = try AuditStore(path: database, access: .read)
        try expectEqual(
            store.connection.scalarInt(
                """
                SELECT count(*) FROM timeline WHERE session = ?
                AND (json_valid(args) = 0 OR (result IS NOT NULL AND json_valid(result) = 0))
                """, [.integer(summary.session)]), 0)
        let typed = try store.connection.prepare(
            """
            SELECT json_extract(args, '$.text') FROM timeline
            WHERE session = ? AND callback = 'replaceText' ORDER BY seq
            """
        ).rows([.integer(summary.session)]) { $0.string(0) }
        let asked = try store.connection.prepare(
            """
            SELECT args FROM timeline
            WHERE session = ? AND callback = 'textView(_:shouldChangeTextIn:replacementText:)' ORDER BY seq
            """
        ).rows([.integer(summary.session)]) { $0.string(0) ?? "" }
        #expect(typed.count == strings.count && asked.count == strings.count)
        for (index, string) in strings.enumerated() where index < typed.count && index < asked.count {
            #expect(sameAsExtracted(typed[index], string))
            #expect(
                sameAsExtracted(try AuditValue(json: asked[index])["replacementText"].flatMap(\.stringValue), string))
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNonFiniteDoubleRoundTripsAsATaggedObject(value: Double) throws {
        let text = AuditValue.array([.double(value)]).json
        expectEqual(text, "[{\"$double\":\"\(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity")\"}]")
        try expectEqual(AuditValue(json: text), .array([.double(value)]))
        // A scenario file is read without the tag: there it is an object like any other.
        #expect(try AuditValue.parse(json: Array(text.utf8)) != .array([.double(value)]))
    }

    @Test(arguments: [
        AuditValue.object(["$double": .string("NaN")]), .object(["$$double": .string("Infinity")]),
        .object(["$double": .int(1)]), .object(["$double": .string("NaN"), "other": .null]),
        .object(["double": .string("NaN")]), .object(["$": .string("NaN")]), .string("NaN"), .string("-Infinity"),
    ])
    func anObjectThatLooksLikeTheTagReadsBackAsItself(value: AuditValue) throws {
        try expectEqual(AuditValue(json: value.json), value)
        try expectEqual(
            AuditValue(json: AuditValue.array([value, .double(.nan)]).json), .array([value, .double(.nan)]))
    }

    @Test func nanEqualsNaNAndHashesAlike() {
        let quiet = AuditValue.double(.nan)
        let other = AuditValue.double(Double(nan: 7, signaling: false))
        expectEqual(quiet, other)
        expectEqual(Set([quiet, other]).count, 1)
        #expect(AuditValue.double(0) == .double(-0.0) && Set([AuditValue.double(0), .double(-0.0)]).count == 1)
        #expect(AuditValue.double(.nan) != .null && AuditValue.double(.infinity) != .double(-.infinity))
    }

    @Test func aNonFiniteAnswerIsStoredAndReadBackAsItself() throws {
        let database = folder.path("audit.sqlite")
        let store = try AuditStore(path: database, access: .write)
        for value in [Double.nan, .infinity, -.infinity] {
            let stored = StoredResult(.double(value))
            guard case .json(let text) = stored else {
                Issue.record("a double is stored as JSON text")
                continue
            }
            try expectEqual(store.connection.scalarInt("SELECT json_valid(?)", [.text(text)]), 1)
            var cache = ParsedJSONCache()
            let read = Array(text.utf8).withUnsafeBytes { cache.value(of: $0).value }
            expectEqual(read, .double(value))
            // The candidate's same answer is stored as the same text: a replay finds no difference.
            expectEqual(StoredResult(.double(value)), stored)
            #expect(StoredResult(.null) != stored)
        }
    }
}

extension AuditValue {
    fileprivate var stringValue: String? { if case .string(let value) = self { value } else { nil } }
}

// A widget of the app's own whose delegate answers a Double: what a NaN answer is recorded as,
// and how it compares when given again.

protocol GaugeDelegate: AnyObject {
    func gauge(_ gauge: Gauge, levelFor reading: Int) -> Double
}

extension GaugeDelegate {
    func gauge(_ gauge: Gauge, levelFor reading: Int) -> Double { Gauge.callbacks.level.unimplemented(reading) }
}

struct GaugeCallbacks: CallbackTable {
    let level = Callback<any GaugeDelegate, Gauge, Int, Double>(
        "gauge(_:levelFor:)", arguments: .one("reading", .int),
        answer: .value(coding: .double, default: 0), invoke: { $0.gauge($1, levelFor: $2) })
}

final class Gauge: View {
    static let callbacks = GaugeCallbacks()
    static let readInput = Input<Gauge, Int>(
        "read", of: "Gauge", arguments: .one("reading", .int), perform: { $0.read($1) })
    weak var delegate: (any GaugeDelegate)?
    private(set) var levels: [Double] = []

    func read(_ reading: Int) {
        performInput(Self.readInput, reading) {
            levels.append(Self.callbacks.level.ask(delegate, self, reading))
            return .null
        }
    }
}

/// Answers NaN for 0, +∞ for 1, -∞ for 2, `offset` otherwise.
final class NonFiniteGauge: GaugeDelegate {
    let offset: Double
    init(offset: Double = 0.5) { self.offset = offset }
    func gauge(_ gauge: Gauge, levelFor reading: Int) -> Double {
        [Double.nan, .infinity, -.infinity][safe: reading] ?? offset
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

@Suite("Non-finite answers: stored, read back, compared")
struct NonFiniteAnswerTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func record(_ delegate: some GaugeDelegate) throws -> Int64 {
        let gauge = Gauge(identifier: "gauge")
        gauge.delegate = delegate
        let recorder = try Recorder(
            databasePath: database, session: newSession(),
            catalog: .builtIn.adding(WidgetKind("Gauge", make: { id, frame in Gauge(identifier: id, frame: frame) })))
        try recorder.attach(to: gauge)
        for reading in 0...3 { gauge.read(reading) }
        return recorder.finish().session
    }

    @Test func aNonFiniteAnswerIsStoredAsValidJSONAndReadBackAsItself() throws {
        let session = try record(NonFiniteGauge())
        let store = try AuditStore(path: database, access: .read)
        let answers = try store.storedEvents(of: session).filter { $0.callback == "gauge(_:levelFor:)" }
        let stored: [AuditValue?] = [.double(.nan), .double(.infinity), .double(-.infinity), .double(0.5)]
        expectEqual(answers.map(\.result), stored)
        let results = try store.timeline(of: session).filter { $0.callback == "gauge(_:levelFor:)" }.map(\.result)
        let shown: [String?] = [#"{"$double":"NaN"}"#, #"{"$double":"Infinity"}"#, #"{"$double":"-Infinity"}"#, "0.5"]
        expectEqual(results, shown)
        try expectEqual(
            store.connection.scalarInt(
                "SELECT count(*) FROM timeline WHERE json_valid(coalesce(result, 'null')) = 0"), 0)
    }

    @Test func theSameNonFiniteAnswersCompareEqualAndOthersDiffer() throws {
        let first = try record(NonFiniteGauge())
        let again = try record(NonFiniteGauge())
        let other = try record(NonFiniteGauge(offset: .nan))
        let store = try AuditStore(path: database, access: .read)
        #expect(try SessionDiffer(store).diff(first, again).identical)
        let differences = try SessionDiffer(store).diff(first, other).differences
        expectEqual(differences.map(\.kind), [.resultChanged])
        // As an isolated replay compares them: the candidate's answer with the recorded one.
        let recorded = try store.storedEvents(of: first).filter { $0.callback == "gauge(_:levelFor:)" }
        for (event, answer) in zip(recorded, [Double.nan, .infinity, -.infinity, 0.5]) {
            let implemented = AnswerOutcome(implemented: true, vetoed: nil, overridden: nil)
            let candidate = StoredAnswer(result: .double(answer), outcome: implemented)
            #expect(candidate.difference(from: event.answer) == nil)
            let null = StoredAnswer(result: .null, outcome: implemented)
            #expect(null.difference(from: event.answer) != nil)
        }
    }
}
