import AuditModel
import Dispatch
import Foundation

/// Lines of an export, copied, with what a scan found in those written in the export's own form
/// (`ExportLineForm`): the unit `ImportScanner` hands to `ImportReader`, possibly across threads.
struct ImportChunk: Sendable {
    /// The number of the chunk's first line in the file, from 1.
    var firstLine: Int
    /// The lines' bytes, one after another.
    var bytes: [UInt8] = []
    var lines: [Line] = []
    /// The values the scan took from event and widget lines; a string is a range of `text`, its
    /// escapes decoded.
    var values: [FormValue] = []
    var text: [UInt8] = []
    /// The callback names met for the first time in this chunk (kind, protocol, name, and the
    /// labels, answer and answered of the line that met it), numbered on from those of the chunks
    /// before.
    var newNames: [[SQLValue]] = []

    /// Empties the chunk, keeping its memory, to hold the lines from `firstLine` on.
    mutating func empty(firstLine: Int) {
        self.firstLine = firstLine
        bytes.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
        newNames.removeAll(keepingCapacity: true)
    }

    struct Line: Sendable {
        /// The line's range of `bytes`.
        var bytes: Range<Int>
        var form: Form
    }

    /// What the scan found in a line.
    enum Form: Sendable {
        /// Not a line in a form: the full reading reads its bytes.
        case none
        /// A session line: its fields.
        case fields([String: AuditValue])
        /// A widget line with an integer id and a string path and kind: its id, path, kind and
        /// parent from `values[first]`, and its id.
        case widget(first: Int, id: Int64)
        /// An event line with an integer `seq`, times and widget, a string `args`, and `answered`
        /// and `later` null or one of their names: its `seq`, `t_ns`, `widget`, `args`, `result`,
        /// `vetoed`, `implemented`, `duration_ns`, `parent_seq`, `later` and `answers` from
        /// `values[first]`, and the number of its callback name.
        case event(first: Int, seq: Int64, name: Int)
    }

    /// Scans the lines `produce` gives on a thread of its own, and hands each chunk to `consume`
    /// on this one, in order. At most `waiting` chunks wait between the two. When `consume`
    /// throws, the function `produce` was handed throws too; returns, or rethrows, once `produce`
    /// has returned.
    static func scanning(
        _ produce: (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void, waiting: Int = 4,
        chunkBytes: Int = ImportScanner.chunkBytes, _ consume: (ImportChunk) throws -> Void
    ) throws {
        try withoutActuallyEscaping(produce) { produce in
            let handoff = ChunkHandoff<ImportChunk, any Error>(waiting: waiting)
            let source = Producer(produce)
            DispatchQueue.global().async {
                var scanner = ImportScanner(chunkBytes: chunkBytes)
                let end = source.runOnce { line in
                    scanner.add(line)
                    if scanner.isFull, !handoff.put(scanner.take(refilling: handoff.spare())) { throw Stopped() }
                }
                if case .success = end { _ = handoff.put(scanner.take()) }
                handoff.finish(end)
            }
            defer { handoff.stop() }
            while let chunk = try handoff.next() {
                try consume(chunk)
                handoff.giveBack(consume chunk)
            }
        }
    }

    /// `produce`, called once on the scanning thread, and let go of before that thread says it
    /// is done: `withoutActuallyEscaping` checks that nothing holds it once `scanning` returns.
    private final class Producer: @unchecked Sendable {
        private var produce: ((_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void)?

        init(_ produce: @escaping (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) {
            self.produce = produce
        }

        func runOnce(_ feed: (UnsafeRawBufferPointer) throws -> Void) -> Result<Void, any Error> {
            let produce = self.produce!
            self.produce = nil
            return Result { try produce(feed) }
        }
    }

    /// What the scanning thread throws to stop, once the storing one has.
    private struct Stopped: Error {}
}

/// A value an `ImportChunk` holds for a scanned line.
enum FormValue: Sendable {
    case null
    case integer(Int64)
    /// A range of the chunk's `text`.
    case text(Range<Int>)
}

/// Makes `ImportChunk`s of lines: copies each line, and scans it against the export's forms.
struct ImportScanner {
    private(set) var chunk = ImportChunk(firstLine: 1)
    private var scanned: [ScannedValue] = []
    /// The callback names met so far: by the hash of an event line's bytes from its `kind` to its
    /// `name`, those bytes and the name's number.
    private var names: [Int: (bytes: [UInt8], number: Int)] = [:]
    private var nameCount = 0

    static let eventForm = ExportLineForm(type: "event", keys: AuditStore.eventFields)
    static let sessionForm = ExportLineForm(type: "session", keys: AuditStore.sessionFields, labels: "labels")
    static let widgetForm = ExportLineForm(type: "widget", keys: widgetFields)
    static let widgetFields = ["id", "path", "kind", "parent"]
    /// The size past which a chunk is full, unless told otherwise.
    static let chunkBytes = 1 << 20
    let chunkBytes: Int

    init(chunkBytes: Int = Self.chunkBytes) { self.chunkBytes = chunkBytes }

    var isFull: Bool { chunk.bytes.count >= chunkBytes }

    mutating func add(_ line: UnsafeRawBufferPointer) {
        let start = chunk.bytes.count
        chunk.bytes.append(contentsOf: line)
        let form = form(of: line)
        chunk.lines.append(ImportChunk.Line(bytes: start..<chunk.bytes.count, form: form))
    }

    /// The chunk made so far; the next one starts empty, in `spare`'s memory when given one (a
    /// chunk of 1 MB allocated anew comes as pages the system must clear, and grows by copies).
    /// `spare` is consumed: held anywhere else, its memory would be shared, and emptying it would
    /// copy it.
    mutating func take(refilling spare: consuming ImportChunk? = nil) -> ImportChunk {
        let full = chunk
        chunk = ImportChunk(firstLine: 0)  // empty arrays allocate nothing
        if let spare = spare.take() { chunk = spare }
        chunk.empty(firstLine: full.firstLine + full.lines.count)
        return full
    }

    private mutating func form(of line: UnsafeRawBufferPointer) -> ImportChunk.Form {
        if Self.eventForm.scan(line, into: &scanned), case .integer(let seq) = scanned[0].kind,
            case .integer = scanned[1].kind, case .integer = scanned[2].kind, case .text = scanned[8].kind,
            case .integer = scanned[12].kind, Self.isNullOrName(scanned[14], in: line, among: Self.answeredNames),
            Self.isNullOrName(scanned[15], in: line, among: Self.laterNames), scanned[16].isNullOrInteger
        {
            let first = chunk.values.count
            for index in 0...2 { add(scanned[index], of: line) }
            for index in 8...13 { add(scanned[index], of: line) }
            for index in 15...16 { add(scanned[index], of: line) }
            return .event(first: first, seq: seq, name: nameNumber(in: line))
        }
        if Self.widgetForm.scan(line, into: &scanned), case .integer(let id) = scanned[0].kind,
            case .text = scanned[1].kind, case .text = scanned[2].kind
        {
            let first = chunk.values.count
            for index in 0...3 { add(scanned[index], of: line) }
            return .widget(first: first, id: id)
        }
        if Self.sessionForm.scan(line, into: &scanned) {
            var fields = ["type": AuditValue.string("session")]
            for (key, value) in zip(AuditStore.sessionFields, scanned) { fields[key] = value.value(in: line) }
            return .fields(fields)
        }
        return .none
    }

    /// The names `callbacks.answered` and `events.later` may hold (their columns' CHECK): a line
    /// with another goes to the full reading, where storing it fails at that line.
    static let answeredNames = AnswerTiming.allCases.filter(\.isLater).map { Array($0.rawValue.utf8) }
    static let laterNames = LaterStep.allCases.map { Array($0.name.utf8) }

    private static func isNullOrName(_ value: ScannedValue, in line: UnsafeRawBufferPointer, among names: [[UInt8]])
        -> Bool
    {
        switch value.kind {
        case .null: true
        case .text(escaped: false): names.contains { $0.elementsEqual(line[value.bytes]) }
        default: false
        }
    }

    /// Adds a scanned value to the chunk, a string's bytes copied to its text, escapes decoded.
    private mutating func add(_ value: ScannedValue, of line: UnsafeRawBufferPointer) {
        switch value.kind {
        case .null: chunk.values.append(.null)
        case .integer(let number): chunk.values.append(.integer(number))
        case .text(let escaped):
            let start = chunk.text.count
            let bytes = UnsafeRawBufferPointer(rebasing: line[value.bytes])
            if escaped {
                ExportLineForm.unescape(bytes, appendingTo: &chunk.text)
            } else {
                chunk.text.append(contentsOf: bytes)
            }
            chunk.values.append(.text(start..<chunk.text.count))
        case .labels: preconditionFailure("only a session line's labels are an object")
        }
    }

    /// The number of the callback name of the event line just scanned.
    private mutating func nameNumber(in line: UnsafeRawBufferPointer) -> Int {
        let name = UnsafeRawBufferPointer(rebasing: line[scanned[3].bytes.lowerBound..<scanned[5].bytes.upperBound])
        var hasher = Hasher()
        hasher.combine(bytes: name)
        let hash = hasher.finalize()
        if let known = names[hash], known.bytes.count == name.count,
            known.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 })
        {
            return known.number
        }
        // A new name, or one whose hash another has: numbered again, it is stored once all the same.
        let number = nameCount
        nameCount += 1
        chunk.newNames.append(
            [3, 4, 5, 6, 7, 14].map { index in
                SQLValue(exported: scanned[index].value(in: line)) ?? .null
            })
        names[hash] = (Array(name), number)
        return number
    }
}
