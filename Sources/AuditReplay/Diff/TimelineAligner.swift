import AuditKit
import AuditModel
import AuditStorage

/// Aligns two event streams and classifies where they differ.
///
/// Events are reduced to fingerprints (`EventFingerprint`): an identity — kind, widget, protocol,
/// callback and arguments — and the answer. The two identity sequences are aligned with the
/// standard library's Myers difference (`difference(from:)`, O((N+M)·D) for D differences).
/// Aligned pairs are then compared on their answer (veto, result, implemented); unaligned runs
/// between two aligned pairs are paired by callback and widget (arguments changed), and what is
/// left is only in A or only in B. Times and durations are never compared.
enum TimelineAligner {
    /// One difference, by the `seq` of the event on each side.
    struct Found: Equatable {
        let kind: EventDifference.Kind
        let a: Int64?
        let b: Int64?

        var swapped: Found { Found(kind: kind.swapped, a: b, b: a) }
    }

    /// Aligns in two levels: first the blocks that each top-level event (an input) starts, by the
    /// identity of that event, then the events inside each pair of aligned blocks. A replay drives
    /// the same inputs, so its blocks align with few or no edits, and the O(N·D) cost of Myers is
    /// paid only inside blocks: a replay whose candidate changed a hundred thousand answers is
    /// compared in about the time of one that changed none. Unaligned blocks between two aligned
    /// ones are compared event by event together, so arguments-changed pairs are still found.
    ///
    /// Sessions whose inputs differ by more than `maximumBlockEdits` (other inputs altogether, not
    /// a changed delegate) are not aligned: their blocks are compared in order, the first with the
    /// first, and `Alignment.inOrder` says so.
    ///
    /// The later steps of an ask (its answer, a give-up, a mistake) are not aligned by their
    /// place: a delegate may answer at once or from another thread at any time. They are compared
    /// with the steps of the ask their ask is aligned with (`stepDifferences`), answer with answer,
    /// mistake with mistake of the same kind, and what one ask has that the other does not is only
    /// on that side.
    static func differences(_ a: [EventFingerprint], _ b: [EventFingerprint]) -> Alignment {
        var asks: [Int64: Int64] = [:]
        guard a.contains(where: \.isLaterStep) || b.contains(where: \.isLaterStep) else {
            return placed(a, b, asks: &asks)
        }
        var alignment = placed(a.filter { !$0.isLaterStep }, b.filter { !$0.isLaterStep }, asks: &asks)
        alignment.found = merged(
            alignment.found, stepDifferences(a.filter(\.isLaterStep), b.filter(\.isLaterStep), asks: asks))
        return alignment
    }

    /// Aligns events by their place, as `differences` describes, noting in `asks` each pair of
    /// aligned asks (A's seq to B's).
    private static func placed(_ a: [EventFingerprint], _ b: [EventFingerprint], asks: inout [Int64: Int64])
        -> Alignment
    {
        let blocksA = blocks(a)
        let blocksB = blocks(b)
        let identitiesA = blocksA.map { a[$0.lowerBound].identity }
        let identitiesB = blocksB.map { b[$0.lowerBound].identity }
        guard editDistance(from: identitiesA, to: identitiesB, isAtMost: maximumBlockEdits) else {
            var result: [Found] = []
            for index in 0..<max(blocksA.count, blocksB.count) {
                align(
                    a, blocksA.indices.contains(index) ? blocksA[index] : 0..<0, b,
                    blocksB.indices.contains(index) ? blocksB[index] : 0..<0, into: &result, asks: &asks)
            }
            return Alignment(found: result, inOrder: true)
        }
        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in edits(from: identitiesA, to: identitiesB) {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        var result: [Found] = []
        var pendingA: Range<Int>?
        var pendingB: Range<Int>?
        func flushPending() {
            if pendingA != nil || pendingB != nil {
                align(a, pendingA ?? 0..<0, b, pendingB ?? 0..<0, into: &result, asks: &asks)
            }
            pendingA = nil
            pendingB = nil
        }
        var i = 0
        var j = 0
        while i < blocksA.count || j < blocksB.count {
            if i < blocksA.count && removed.contains(i) {
                pendingA = (pendingA?.lowerBound ?? blocksA[i].lowerBound)..<blocksA[i].upperBound
                i += 1
            } else if j < blocksB.count && inserted.contains(j) {
                pendingB = (pendingB?.lowerBound ?? blocksB[j].lowerBound)..<blocksB[j].upperBound
                j += 1
            } else {
                flushPending()
                align(a, blocksA[i], b, blocksB[j], into: &result, asks: &asks)
                i += 1
                j += 1
            }
        }
        flushPending()
        return Alignment(found: result, inOrder: false)
    }

    /// What `differences` found, and whether it compared the blocks in order instead of aligning.
    struct Alignment: Equatable {
        var found: [Found]
        var inOrder: Bool

        var swapped: Alignment { Alignment(found: found.map(\.swapped), inOrder: inOrder) }
    }

    /// Block edits beyond which two sessions are compared in order rather than aligned. Aligning
    /// costs O(N·D), so two unrelated recordings of many inputs each (D close to N) would take
    /// time in N²; a replay drives the recorded inputs again, so its blocks differ by none or a few.
    static let maximumBlockEdits = 1_000

    /// Whether the shortest edit script from `a` to `b` has at most `limit` insertions and
    /// removals: the forward pass of Myers' algorithm, stopped after `limit` rounds, in
    /// O((N+M)·limit) time and O(limit) memory.
    static func editDistance(from a: [UInt64], to b: [UInt64], isAtMost limit: Int) -> Bool {
        let bound = min(limit, a.count + b.count)
        // furthest[offset + k]: the furthest x reached on diagonal k = x − y.
        let offset = bound + 1
        var furthest = [Int](repeating: 0, count: 2 * bound + 3)
        for d in 0...bound {
            for k in stride(from: -d, through: d, by: 2) {
                var x =
                    k == -d || (k != d && furthest[offset + k - 1] < furthest[offset + k + 1])
                    ? furthest[offset + k + 1] : furthest[offset + k - 1] + 1
                var y = x - k
                while x < a.count && y < b.count && a[x] == b[y] {
                    x += 1
                    y += 1
                }
                furthest[offset + k] = x
                if x >= a.count && y >= b.count { return true }
            }
        }
        return false
    }

    /// The insertions and removals that turn `a` into `b`: none when they are equal, the common
    /// case of a replay, without running `difference(from:)`, which the standard library runs
    /// unspecialized here, looking up its types' metadata on each call (once per block of every
    /// session `replay --all` compares).
    private static func edits(from a: [UInt64], to b: [UInt64]) -> CollectionDifference<UInt64> {
        a == b ? CollectionDifference([])! : b.difference(from: a)
    }

    /// The ranges of events that each top-level event starts (it and what follows it until the
    /// next top-level event).
    private static func blocks(_ events: [EventFingerprint]) -> [Range<Int>] {
        var starts = events.indices.filter { events[$0].parent == 0 }
        if starts.first != 0 && !events.isEmpty { starts.insert(0, at: 0) }
        return starts.indices.map {
            starts[$0]..<(starts.index(after: $0) < starts.count ? starts[$0 + 1] : events.count)
        }
    }

    /// Aligns `a[rangeA]` with `b[rangeB]` event by event and appends what differs.
    private static func align(
        _ a: [EventFingerprint], _ rangeA: Range<Int>, _ b: [EventFingerprint], _ rangeB: Range<Int>,
        into result: inout [Found], asks: inout [Int64: Int64]
    ) {
        // The common case, a block of one event on each side, needs no alignment.
        if rangeA.count == 1 && rangeB.count == 1 && a[rangeA.lowerBound].identity == b[rangeB.lowerBound].identity {
            let (x, y) = (a[rangeA.lowerBound], b[rangeB.lowerBound])
            aligned(x, y, into: &result, asks: &asks)
            return
        }
        var removed: [Int] = []
        var inserted: [Int] = []
        for change in edits(from: a[rangeA].map(\.identity), to: b[rangeB].map(\.identity)) {
            switch change {
            case .remove(let offset, _, _): removed.append(rangeA.lowerBound + offset)
            case .insert(let offset, _, _): inserted.append(rangeB.lowerBound + offset)
            }
        }
        removed.sort()
        inserted.sort()
        var pendingA: [Int] = []
        var pendingB: [Int] = []
        var i = rangeA.lowerBound
        var j = rangeB.lowerBound
        var nextRemoved = 0
        var nextInserted = 0
        while i < rangeA.upperBound || j < rangeB.upperBound {
            if nextRemoved < removed.count && removed[nextRemoved] == i {
                pendingA.append(i)
                i += 1
                nextRemoved += 1
            } else if nextInserted < inserted.count && inserted[nextInserted] == j {
                pendingB.append(j)
                j += 1
                nextInserted += 1
            } else {
                pair(pendingA, pendingB, a, b, into: &result, asks: &asks)
                pendingA.removeAll(keepingCapacity: true)
                pendingB.removeAll(keepingCapacity: true)
                aligned(a[i], b[j], into: &result, asks: &asks)
                i += 1
                j += 1
            }
        }
        pair(pendingA, pendingB, a, b, into: &result, asks: &asks)
    }

    /// Compares two aligned events (same identity) by their answers, and notes two asks.
    private static func aligned(
        _ x: EventFingerprint, _ y: EventFingerprint, into result: inout [Found], asks: inout [Int64: Int64]
    ) {
        if let kind = answerDifference(x, y) { result.append(Found(kind: kind, a: x.seq, b: y.seq)) }
        if x.later == .asked { asks[x.seq] = y.seq }
    }

    /// Classifies two aligned events (same identity) by their answers.
    private static func answerDifference(_ a: EventFingerprint, _ b: EventFingerprint) -> EventDifference.Kind? {
        .answer(a.answer, b.answer, resultDiffers: a.result != b.result)
    }

    /// Pairs the unaligned events between two aligned ones: the same callback on the same widget
    /// with other arguments is one change; the rest are only on one side.
    private static func pair(
        _ pendingA: [Int], _ pendingB: [Int], _ a: [EventFingerprint], _ b: [EventFingerprint],
        into result: inout [Found], asks: inout [Int64: Int64]
    ) {
        // Candidates on B's side by shape, each list in order, consumed from the front.
        var candidates: [UInt64: (indexes: [Int], next: Int)] = [:]
        for index in pendingB { candidates[b[index].shape, default: ([], 0)].indexes.append(index) }
        var paired = Set<Int>()
        for index in pendingA {
            let shape = a[index].shape
            if let entry = candidates[shape], entry.next < entry.indexes.count {
                let other = entry.indexes[entry.next]
                candidates[shape]!.next += 1
                paired.insert(other)
                result.append(Found(kind: .argumentsChanged, a: a[index].seq, b: b[other].seq))
                if a[index].later == .asked { asks[a[index].seq] = b[other].seq }
            } else {
                result.append(Found(kind: .onlyInA, a: a[index].seq, b: nil))
            }
        }
        for index in pendingB where !paired.contains(index) {
            result.append(Found(kind: .onlyInB, a: nil, b: b[index].seq))
        }
    }
}

extension TimelineAligner {
    /// The later steps of each pair of asks `asks` aligned, compared: an answer with the answer, a
    /// give-up with the give-up, a mistake with a mistake of the same kind, each with its result
    /// and answer. A step without its match, or of an ask aligned with none, is only on its side.
    /// Each difference comes with its place in A: its own seq, or its ask's (`.max` for none).
    private static func stepDifferences(_ a: [EventFingerprint], _ b: [EventFingerprint], asks: [Int64: Int64])
        -> [(place: Int64, found: Found)]
    {
        var stepsB = Dictionary(grouping: b, by: \.answers)
        var found: [(place: Int64, found: Found)] = []
        for (ask, steps) in Dictionary(grouping: a, by: \.answers).sorted(by: { $0.key < $1.key }) {
            var others = asks[ask].flatMap { stepsB.removeValue(forKey: $0) } ?? []
            for step in steps {
                guard let match = others.firstIndex(where: { $0.later == step.later }) else {
                    found.append((step.seq, Found(kind: .onlyInA, a: step.seq, b: nil)))
                    continue
                }
                let other = others.remove(at: match)
                // Two mistakes of a kind differ by their results alone: the widget took neither
                // answer (sessions stored before that was recorded mark a veto on them).
                let difference =
                    step.later?.isMistake == true
                    ? (step.result != other.result ? .resultChanged : nil) : answerDifference(step, other)
                if let kind = difference {
                    found.append((step.seq, Found(kind: kind, a: step.seq, b: other.seq)))
                }
            }
            found += others.map { (ask, Found(kind: .onlyInB, a: nil, b: $0.seq)) }
        }
        for (_, others) in stepsB.sorted(by: { $0.key < $1.key }) {
            found += others.map { (.max, Found(kind: .onlyInB, a: nil, b: $0.seq)) }
        }
        return found
    }

    /// The differences found by place with those of the later steps, each step's difference
    /// after the differences found before its place in A.
    private static func merged(_ placed: [Found], _ steps: [(place: Int64, found: Found)]) -> [Found] {
        guard !steps.isEmpty else { return placed }
        let steps = steps.sorted { $0.place < $1.place }
        var result: [Found] = []
        result.reserveCapacity(placed.count + steps.count)
        var next = 0
        for found in placed {
            if let seq = found.a {
                while next < steps.count && steps[next].place < seq {
                    result.append(steps[next].found)
                    next += 1
                }
            }
            result.append(found)
        }
        result += steps[next...].map(\.found)
        return result
    }
}

extension EventFingerprint {
    /// The fingerprint of an event already read through the `timeline` view (for callers that
    /// hold `TimelineEvent`s rather than a store).
    init(_ event: TimelineEvent) {
        var shape = FNV1a()
        for text in [event.kind.rawValue, event.widget ?? "", event.protocolName ?? "", event.callback] {
            var copy = text
            copy.withUTF8 { shape.add(UnsafeRawBufferPointer($0)) }
        }
        var identity = shape
        var arguments = event.arguments
        arguments.withUTF8 { identity.add(UnsafeRawBufferPointer($0)) }
        var result = FNV1a()
        if var text = event.result { text.withUTF8 { result.add(UnsafeRawBufferPointer($0)) } } else { result.add(0) }
        if let later = event.later {
            shape.add(UInt64(later.rawValue))
            identity.add(UInt64(later.rawValue))
        }
        self.init(
            seq: event.seq, parent: event.parentSeq ?? 0, identity: identity.value, shape: shape.value,
            result: result.value, answer: event.answer, later: event.later, answers: event.answers ?? 0)
    }
}
