import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// The overview strip: every event of each side, counted in buckets of time, for sessions too
/// long to draw whole. Its size depends on the bucket count only, never on the session's length.
extension HTMLPage {
    private static let buckets = 240
    private static let barWidth = 4
    private static let stripHeight = 34
    private static let labelWidth = 170

    /// Events, vetoes and differences per bucket of each side's time, and the part drawn in the
    /// lanes below shaded.
    mutating func overview(_ layout: TimelineLayout) {
        let end = layout.sides.compactMap { $0.events.last?.milliseconds }.max() ?? 0
        let span = max(end, 0.001)
        let width = Self.labelWidth + Self.buckets * Self.barWidth + 8
        let height = layout.sides.count * (Self.stripHeight + 6) + 14
        append("<div class=\"overview\"><svg width=\"\(width)\" height=\"\(height)\">")
        for (side, info) in layout.sides.enumerated() {
            let top = side * (Self.stripHeight + 6)
            strip(info, drawn: layout.drawn[side], top: top, span: span)
        }
        let axis = layout.sides.count * (Self.stripHeight + 6) + 10
        append(
            "<text class=\"rt\" x=\"\(Self.labelWidth)\" y=\"\(axis)\">0 ms</text>"
                + "<text class=\"rt end\" x=\"\(width - 8)\" y=\"\(axis)\">\(Self.milliseconds(end))</text>")
        append("</svg></div>\n")
    }

    private mutating func strip(_ side: TimelineLayout.Side, drawn: Int, top: Int, span: Double) {
        var counts = Array(repeating: 0, count: Self.buckets)
        var vetoes = Array(repeating: 0, count: Self.buckets)
        var differences: [Int: EventDifference.Kind] = [:]
        func bucket(_ event: TimelineEvent) -> Int {
            min(Self.buckets - 1, max(0, Int(event.milliseconds / span * Double(Self.buckets))))
        }
        for event in side.events {
            let index = bucket(event)
            counts[index] += 1
            if event.effect == .vetoed { vetoes[index] += 1 }
            if let kind = side.differences[event.seq], differences[index] == nil { differences[index] = kind }
        }
        let most = max(1, counts.max() ?? 1)
        let left = Self.labelWidth
        let name = side.label.map { "\($0) · " } ?? ""
        append(
            "<text class=\"wname\" x=\"0\" y=\"\(top + 14)\">\(text(name))\(Self.grouped(side.events.count))</text>"
                + "<text class=\"wkind\" x=\"0\" y=\"\(top + 27)\">events over time</text>")
        if drawn > 0 {
            let last = min(drawn, side.events.count) - 1
            let shaded = (bucket(side.events[last]) + 1) * Self.barWidth
            append(
                "<rect class=\"drawn\" x=\"\(left)\" y=\"\(top)\" width=\"\(shaded)\" "
                    + "height=\"\(Self.stripHeight)\"><title>drawn below: events 1–\(Self.grouped(drawn))</title></rect>"
            )
        }
        for index in counts.indices where counts[index] > 0 {
            let x = left + index * Self.barWidth
            let bar = max(1, counts[index] * (Self.stripHeight - 8) / most)
            let veto = vetoes[index] == 0 ? 0 : max(1, vetoes[index] * (Self.stripHeight - 8) / most)
            append(
                "<rect class=\"ob\" x=\"\(x)\" y=\"\(top + Self.stripHeight - bar)\" width=\"\(Self.barWidth - 1)\" "
                    + "height=\"\(bar)\"/>")
            if veto > 0 {
                append(
                    "<rect class=\"ov\" x=\"\(x)\" y=\"\(top + Self.stripHeight - veto)\" "
                        + "width=\"\(Self.barWidth - 1)\" height=\"\(veto)\"/>")
            }
            if let kind = differences[index] {
                append(
                    "<rect class=\"dm d\(Self.kindIndex(kind))\" x=\"\(x)\" y=\"\(top)\" "
                        + "width=\"\(Self.barWidth - 1)\" height=\"5\"/>")
            }
        }
    }
}
