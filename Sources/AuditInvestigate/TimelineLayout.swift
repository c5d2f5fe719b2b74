import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// Where each event of one or two sessions goes on an HTML timeline: its column, its widget's
/// lane and its row (nesting depth) in that lane.
///
/// Columns follow event order. With two sessions, each column holds an aligned pair — the events
/// the differ paired, in order — or an event found in one session only, so the same input stands
/// in the same column on both sides. Only the first `Limits.events` columns are laid out; an
/// event past them is only counted.
struct TimelineLayout {
    /// One session of the page.
    struct Side {
        /// "A", "recorded", …; nil on a one-session page.
        var label: String?
        var events: [TimelineEvent]
        /// The difference at each event of this side, by `seq`.
        var differences: [Int64: EventDifference.Kind]
    }

    /// The deepest row a lane shows; events nested deeper share it.
    static let maximumDepth = 5

    let sides: [Side]
    /// Each column's event on each side (nil where that side has none).
    private(set) var columns: [[TimelineEvent?]] = []
    /// Widget paths, in order of first appearance in the columns.
    private(set) var lanes: [String] = []
    /// Each lane's widget kind, as its first event names it.
    private(set) var laneKinds: [String?] = []
    /// For each side, the column of each drawn event, by `seq`.
    private(set) var columnOfSeq: [[Int64: Int]]
    /// For each side, each drawn event's nesting depth, by `seq` (0: top level).
    private(set) var depthOfSeq: [[Int64: Int]]
    /// For each lane, the row of each nesting depth its events have (on either side): deeper
    /// events lower, and no empty row for a depth no event of the lane has.
    private(set) var rowOfDepth: [[Int: Int]] = []
    /// For each side, how many of its events are drawn.
    private(set) var drawn: [Int]

    init(sides: [Side], limits: HTMLTimeline.Limits) {
        self.sides = sides
        columnOfSeq = Array(repeating: [:], count: sides.count)
        depthOfSeq = Array(repeating: [:], count: sides.count)
        drawn = Array(repeating: 0, count: sides.count)
        columns =
            sides.count == 2
            ? Self.aligned(sides[0], sides[1], limit: limits.events) : Self.single(sides[0], limits.events)
        place()
    }

    /// The lane of a widget path (events without one share the lane "-").
    static func laneName(_ event: TimelineEvent) -> String { event.widget ?? "-" }

    private static func single(_ side: Side, _ limit: Int) -> [[TimelineEvent?]] {
        side.events.prefix(limit).map { [$0] }
    }

    /// Merges two sessions into columns: an event only in one session gets a column of its own,
    /// and the remaining events of both sessions pair up in order (the differ paired them so).
    private static func aligned(_ a: Side, _ b: Side, limit: Int) -> [[TimelineEvent?]] {
        let onlyA = Set(a.differences.filter { $0.value == .onlyInA }.keys)
        let onlyB = Set(b.differences.filter { $0.value == .onlyInB }.keys)
        var columns: [[TimelineEvent?]] = []
        var i = a.events.startIndex
        var j = b.events.startIndex
        while columns.count < limit && (i < a.events.endIndex || j < b.events.endIndex) {
            let eventA = i < a.events.endIndex ? a.events[i] : nil
            let eventB = j < b.events.endIndex ? b.events[j] : nil
            if let eventA, eventB == nil || onlyA.contains(eventA.seq) {
                columns.append([eventA, nil])
                i += 1
            } else if let eventB, eventA == nil || onlyB.contains(eventB.seq) {
                columns.append([nil, eventB])
                j += 1
            } else {
                columns.append([eventA, eventB])
                i += 1
                j += 1
            }
        }
        return columns
    }

    /// Fills lanes, columns by seq, depths and rows from `columns`.
    private mutating func place() {
        var laneIndex: [String: Int] = [:]
        for (column, events) in columns.enumerated() {
            for (side, event) in events.enumerated() {
                guard let event else { continue }
                let lane = Self.laneName(event)
                if laneIndex[lane] == nil {
                    laneIndex[lane] = lanes.count
                    lanes.append(lane)
                    laneKinds.append(event.widgetKind)
                    rowOfDepth.append([:])
                }
                let depth = event.parentSeq.flatMap { depthOfSeq[side][$0].map { $0 + 1 } } ?? 0
                columnOfSeq[side][event.seq] = column
                depthOfSeq[side][event.seq] = depth
                drawn[side] += 1
                rowOfDepth[laneIndex[lane]!][min(depth, Self.maximumDepth)] = 0
            }
        }
        for lane in rowOfDepth.indices {
            for (row, depth) in rowOfDepth[lane].keys.sorted().enumerated() { rowOfDepth[lane][depth] = row }
        }
    }

    /// How many rows each side's block of a lane has.
    func rows(ofLane lane: Int) -> Int { max(1, rowOfDepth[lane].count) }

    /// The row of a drawn event in its lane's block.
    func row(of event: TimelineEvent, side: Int, lane: Int) -> Int {
        rowOfDepth[lane][min(depthOfSeq[side][event.seq] ?? 0, Self.maximumDepth)] ?? 0
    }

    /// For each drawn input, the last column of the events nested under it in its own lane.
    ///
    /// Walks each event's ancestors (at most `maximumDepth` * 4 levels), so O(events · depth).
    func nestedSpans(side: Int) -> [Int64: Int] {
        var drawnEvents: [Int64: TimelineEvent] = [:]
        for column in columns { if let event = column[side] { drawnEvents[event.seq] = event } }
        var spans: [Int64: Int] = [:]
        for (column, events) in columns.enumerated() {
            guard let event = events[side] else { continue }
            var ancestor = event.parentSeq.flatMap { drawnEvents[$0] }
            var levels = 0
            while let current = ancestor, levels < Self.maximumDepth * 4 {
                if current.kind == .input && Self.laneName(current) == Self.laneName(event) {
                    spans[current.seq] = max(spans[current.seq] ?? column, column)
                }
                ancestor = current.parentSeq.flatMap { drawnEvents[$0] }
                levels += 1
            }
        }
        return spans
    }
}
