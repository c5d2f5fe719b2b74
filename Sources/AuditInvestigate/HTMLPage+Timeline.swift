import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// The timeline: a legend, an overview of every event when not all are drawn, then the lanes.
extension HTMLPage {
    /// Sizes of the drawing, in CSS pixels.
    private enum Metrics {
        static let labelWidth = 250
        static let rulerHeight = 34
        static let rowHeight = 14
        static let markHeight = 10
        static let padding = 5
        static let sideGap = 3
        static let minimumLaneHeight = 34
        /// The width the columns share before the timeline scrolls sideways.
        static let fitWidth = 1060
    }

    /// Vertical positions of each lane and of each side's block inside it.
    private struct LaneGeometry {
        var top: [Int] = []
        var height: [Int] = []
        var sideTop: [[Int]] = []
        var total = 0

        init(_ layout: TimelineLayout) {
            var y = Metrics.rulerHeight
            for lane in layout.lanes.indices {
                top.append(y)
                var tops: [Int] = []
                for side in layout.sides.indices {
                    if side > 0 { y += Metrics.sideGap }
                    tops.append(y)
                    y += layout.rows(ofLane: lane) * Metrics.rowHeight + 2 * Metrics.padding
                }
                sideTop.append(tops)
                // Room for the lane's two lines of label (its path and its widget kind).
                y = max(y, top.last! + Metrics.minimumLaneHeight)
                height.append(y - top.last!)
            }
            total = y + 4
        }
    }

    /// Draws the timeline of `layout`, with a legend naming `differenceKinds`.
    mutating func timeline(_ layout: TimelineLayout, differenceKinds: [EventDifference.Kind]) {
        let labels = (a: layout.sides.first?.label ?? "A", b: layout.sides.last?.label ?? "B")
        section("Timeline")
        legend(differenceKinds, labels)
        if zip(layout.sides, layout.drawn).contains(where: { $0.events.count > $1 }) {
            overview(layout)
        }
        for (side, count) in zip(layout.sides, layout.drawn) {
            let name = side.label.map { "\($0): " } ?? ""
            let shown =
                count == side.events.count
                ? "all \(Self.grouped(count)) events drawn"
                : "showing events 1–\(Self.grouped(count)) of \(Self.grouped(side.events.count)); the "
                    + "\(Self.grouped(side.events.count - count)) later ones are left out of the lanes "
                    + "(counted in the overview, and in the tables below)"
            note(name + shown)
        }
        guard !layout.columns.isEmpty else { return }
        let geometry = LaneGeometry(layout)
        let width = Int((columnWidth(layout) * Double(layout.columns.count)).rounded(.up)) + 8
        append("<div class=\"timeline\">")
        laneLabels(layout, geometry)
        append("<div class=\"lanes\"><svg class=\"tl\" width=\"\(width)\" height=\"\(geometry.total)\">")
        lanes(layout, geometry)
        append("</svg></div></div>\n")
    }

    /// Columns share the fitting width, but are never narrower than 5 pixels (the timeline
    /// scrolls) nor wider than 18.
    private func columnWidth(_ layout: TimelineLayout) -> Double {
        max(5, min(18, (Double(Metrics.fitWidth) / Double(max(1, layout.columns.count)) * 10).rounded(.down) / 10))
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(Double(tenths) / 10)"
    }

    private mutating func legend(_ kinds: [EventDifference.Kind], _ labels: (a: String, b: String)) {
        append("<div class=\"legend\">")
        for (style, name) in [
            ("in", "input"), ("cb", "callback"), ("veto", "vetoed"), ("ovr", "overridden"),
            ("def", "not implemented (default used)"),
        ] {
            append("<span><i class=\"sw \(style)\"></i>\(name)</span>")
        }
        append("<span><i class=\"sw nest\"></i>calls nested in an input</span>")
        append("<span><i class=\"sw link\"></i>nested call at another widget</span>")
        for kind in kinds {
            append(
                "<span><i class=\"sw d\(Self.kindIndex(kind))\"></i>\(text(HTMLTimeline.kindName(kind, labels)))</span>"
            )
        }
        append("</div>\n")
    }

    static func kindIndex(_ kind: EventDifference.Kind) -> Int {
        EventDifference.Kind.allCases.firstIndex(of: kind)!
    }

    /// The lanes' names (widget path and kind) and, on a two-session page, each block's side.
    private mutating func laneLabels(_ layout: TimelineLayout, _ geometry: LaneGeometry) {
        append("<svg class=\"labels\" width=\"\(Metrics.labelWidth)\" height=\"\(geometry.total)\">")
        for (lane, name) in layout.lanes.enumerated() {
            let top = geometry.top[lane]
            let shade = lane % 2 == 0 ? "even" : "odd"
            append(
                "<rect class=\"lane \(shade)\" x=\"0\" y=\"\(top)\" width=\"\(Metrics.labelWidth)\" "
                    + "height=\"\(geometry.height[lane])\"/>")
            let label = name.visiblyEscaped().truncated(to: 30)
            append(
                "<text class=\"wname\" x=\"8\" y=\"\(top + 15)\">\(label.htmlEscaped)<title>\(text(name))</title></text>"
            )
            if let kind = layout.laneKinds[lane] {
                append("<text class=\"wkind\" x=\"8\" y=\"\(top + 27)\">\(text(kind.truncated(to: 26)))</text>")
            }
            for (side, info) in layout.sides.enumerated() {
                guard let label = info.label else { continue }
                let y = geometry.sideTop[lane][side] + Metrics.padding + Metrics.rowHeight - 3
                append(
                    "<text class=\"side\" x=\"\(Metrics.labelWidth - 8)\" y=\"\(y)\">"
                        + "\(text(label.truncated(to: 10)))</text>")
            }
        }
        append("</svg>")
    }

    /// Lane backgrounds, the ruler, difference bands, nesting bands, cross-widget lines and marks.
    private mutating func lanes(_ layout: TimelineLayout, _ geometry: LaneGeometry) {
        let column = columnWidth(layout)
        let laneOf = Dictionary(uniqueKeysWithValues: layout.lanes.enumerated().map { ($1, $0) })
        for lane in layout.lanes.indices {
            append(
                "<rect class=\"lane \(lane % 2 == 0 ? "even" : "odd")\" x=\"0\" y=\"\(geometry.top[lane])\" "
                    + "width=\"100%\" height=\"\(geometry.height[lane])\"/>")
        }
        ruler(layout, column)
        func x(_ index: Int) -> Double { 4 + Double(index) * column }
        func y(_ side: Int, _ event: TimelineEvent) -> Int {
            let lane = laneOf[TimelineLayout.laneName(event)]!
            return geometry.sideTop[lane][side] + Metrics.padding + layout.row(of: event, side: side, lane: lane)
                * Metrics.rowHeight + (Metrics.rowHeight - Metrics.markHeight) / 2
        }
        // Difference bands span the whole lane, both sides, so a change stands out at a glance.
        for (index, events) in layout.columns.enumerated() {
            for (side, event) in events.enumerated() {
                guard let event, let kind = layout.sides[side].differences[event.seq] else { continue }
                let lane = laneOf[TimelineLayout.laneName(event)]!
                append(
                    "<rect class=\"band d\(Self.kindIndex(kind))\" x=\"\(Self.number(x(index) - 1))\" "
                        + "y=\"\(geometry.top[lane])\" width=\"\(Self.number(column + 1))\" height=\"\(geometry.height[lane])\"/>"
                )
                break
            }
        }
        for side in layout.sides.indices {
            for (seq, last) in layout.nestedSpans(side: side).sorted(by: { $0.key < $1.key }) {
                guard let first = layout.columnOfSeq[side][seq], let input = layout.columns[first][side] else {
                    continue
                }
                let lane = laneOf[TimelineLayout.laneName(input)]!
                let top = y(side, input) - 2
                let bottom =
                    geometry.sideTop[lane][side] + layout.rows(ofLane: lane) * Metrics.rowHeight
                    + 2 * Metrics.padding - 3
                append(
                    "<rect class=\"nest\" x=\"\(Self.number(x(first) - 1))\" y=\"\(top)\" "
                        + "width=\"\(Self.number(Double(last - first + 1) * column + 1))\" height=\"\(bottom - top)\" rx=\"3\"/>"
                )
            }
        }
        // One line from a parent to the first of its children in each other lane: enough to follow
        // the nesting without a fan of lines from every touch.
        var linked = Set<String>()
        for (index, events) in layout.columns.enumerated() {
            for (side, event) in events.enumerated() {
                guard let event, let parentSeq = event.parentSeq,
                    let parentColumn = layout.columnOfSeq[side][parentSeq],
                    let parent = layout.columns[parentColumn][side],
                    TimelineLayout.laneName(parent) != TimelineLayout.laneName(event),
                    linked.insert("\(side) \(parentSeq) \(TimelineLayout.laneName(event))").inserted
                else { continue }
                let half = Metrics.markHeight / 2
                append(
                    "<line class=\"link\" x1=\"\(Self.number(x(parentColumn) + column / 2))\" "
                        + "y1=\"\(y(side, parent) + half)\" x2=\"\(Self.number(x(index) + column / 2))\" "
                        + "y2=\"\(y(side, event) + half)\"/>")
            }
        }
        for (index, events) in layout.columns.enumerated() {
            for (side, event) in events.enumerated() {
                guard let event else { continue }
                mark(event, side: side, column: index, layout, x: x(index), y: y(side, event), width: column)
            }
        }
    }

    /// Seq and time every few columns, and a tick above each column with a difference.
    private mutating func ruler(_ layout: TimelineLayout, _ column: Double) {
        let step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000].first { Double($0) * column >= 64 } ?? 5000
        for index in stride(from: 0, to: layout.columns.count, by: step) {
            // A label needs about 50 pixels: none that the timeline's end would cut.
            guard let event = layout.columns[index].compactMap({ $0 }).first,
                Double(layout.columns.count - index) * column >= 50 || index == 0
            else { continue }
            let x = Self.number(4 + Double(index) * column)
            append(
                "<line class=\"tick\" x1=\"\(x)\" y1=\"2\" x2=\"\(x)\" y2=\"\(Metrics.rulerHeight)\"/>"
                    + "<text class=\"rl\" x=\"\(x)\" dx=\"3\" y=\"11\">#\(event.seq)</text>"
                    + "<text class=\"rt\" x=\"\(x)\" dx=\"3\" y=\"21\">\(Self.milliseconds(event.milliseconds))</text>")
        }
        for (index, events) in layout.columns.enumerated() {
            for (side, event) in events.enumerated() {
                guard let event, let kind = layout.sides[side].differences[event.seq] else { continue }
                append(
                    "<rect class=\"dm d\(Self.kindIndex(kind))\" x=\"\(Self.number(4 + Double(index) * column))\" "
                        + "y=\"25\" width=\"\(Self.number(max(2, column - 1)))\" height=\"7\" rx=\"1\"/>")
                break
            }
        }
    }

    /// One event's mark, its tooltip the event in full (texts cut to the limit).
    private mutating func mark(
        _ event: TimelineEvent, side: Int, column: Int, _ layout: TimelineLayout, x: Double, y: Int, width: Double
    ) {
        var style = event.kind == .input ? "in" : "cb"
        if let effect = event.effect {
            style = effect == .vetoed ? "veto" : "ovr"
        } else if event.implemented == false {
            style = "def"
        }
        let info = layout.sides[side]
        let kind = info.differences[event.seq]
        if let kind { style += " x\(Self.kindIndex(kind))" }
        let identifier = kind == nil ? "" : " id=\"\(side == 0 ? "a" : "b")\(event.seq)\""
        append(
            "<rect\(identifier) class=\"m \(style)\" x=\"\(Self.number(x))\" y=\"\(y)\" "
                + "width=\"\(Self.number(max(1, width - 1)))\" "
                + "height=\"\(Metrics.markHeight)\" rx=\"1.5\"><title>")
        var lines: [String] = []
        let place = [
            info.label, "#\(event.seq)", Self.milliseconds(event.milliseconds),
            (event.widget ?? "-").visiblyEscaped().truncated(to: limits.textLength),
        ]
        lines.append(place.compactMap { $0 }.joined(separator: " · "))
        let name =
            event.kind == .input
            ? "input \(event.callback)" : event.protocolName.map { "\($0).\(event.callback)" } ?? event.callback
        lines.append(name.visiblyEscaped().truncated(to: limits.textLength))
        lines.append("arguments \(event.arguments.visiblyEscaped(json: true).truncated(to: limits.textLength))")
        var answer = "→ \((event.result?.visiblyEscaped(json: true) ?? "()").truncated(to: limits.textLength))"
        if let effect = event.effect { answer += "  \(effect.label)" }
        if event.implemented == false { answer += "  (not implemented, default used)" }
        lines.append(answer)
        if let parent = event.parentSeq { lines.append("nested in #\(parent)") }
        if let kind {
            let labels = (a: layout.sides.first?.label ?? "A", b: layout.sides.last?.label ?? "B")
            var line = "difference: \(HTMLTimeline.kindName(kind, labels))"
            if layout.sides.count == 2, let other = layout.columns[column][1 - side] {
                line +=
                    "; \(layout.sides[1 - side].label ?? "other") #\(other.seq) → "
                    + (other.result?.visiblyEscaped(json: true) ?? "()").truncated(to: limits.textLength)
                    + (other.effect.map { "  \($0.label)" } ?? "")
                    + (other.implemented == false ? "  (default)" : "")
            }
            lines.append(line)
        }
        append(lines.joined(separator: "\n").htmlEscaped)
        append("</title></rect>\n")
    }

    /// A time offset for the ruler and tooltips: "0.297 ms", "1.52 s".
    static func milliseconds(_ value: Double) -> String {
        if value >= 1000 { return "\(Double(Int((value / 10).rounded())) / 100) s" }
        return "\(Double(Int((value * 1000).rounded())) / 1000) ms"
    }
}
