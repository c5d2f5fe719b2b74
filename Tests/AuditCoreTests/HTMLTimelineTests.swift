import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// `HTMLTimeline`: escaping, column alignment of two sessions, and the size bound of a page.
@Suite("HTML timeline")
struct HTMLTimelineTests {
    static func session(_ id: Int64, events: Int) -> SessionSummary {
        SessionSummary(
            id: id, name: nil, scenario: "generated", delegate: "checkout.v1", status: .complete,
            startedAt: "2026-11-30T00:00:00.000Z", endedAt: nil, replayOf: nil, replayMode: nil, events: events,
            inputs: 0, callbacks: 0, vetoes: 0, failures: 0)
    }

    /// An input and two nested callbacks per step, on `widgets` widgets in turn; every tenth
    /// step's first callback vetoes.
    static func events(steps: Int, widgets: Int = 12) -> [TimelineEvent] {
        var events: [TimelineEvent] = []
        events.reserveCapacity(steps * 3)
        for step in 0..<steps {
            let widget = "screen/widget\(step % widgets)"
            let input = Int64(events.count + 1)
            events.append(
                TimelineEvent(
                    seq: input, milliseconds: Double(step) * 0.01, kind: .input, widget: widget,
                    widgetKind: "SegmentedControl", protocolName: nil, callback: "tapSegment",
                    arguments: #"{"segment":\#(step % 3)}"#, result: #"{"selected":1}"#, answer: .input,
                    durationMicroseconds: 0, parentSeq: nil))
            for (offset, callback) in ["segmentedControl(_:shouldSelectSegmentAt:)", "segmentedControl(_:didSelect:)"]
                .enumerated()
            {
                events.append(
                    TimelineEvent(
                        seq: Int64(events.count + 1), milliseconds: Double(step) * 0.01 + 0.001, kind: .callback,
                        widget: widget, widgetKind: "SegmentedControl", protocolName: "SegmentedControlDelegate",
                        callback: callback, arguments: #"{"index":\#(step % 3)}"#, result: offset == 0 ? "true" : nil,
                        answer: AnswerOutcome(
                            implemented: true, vetoed: offset == 0 ? step % 10 == 0 : nil, overridden: nil),
                        durationMicroseconds: 1.5, parentSeq: input))
            }
        }
        return events
    }

    func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func escapingCoversTextAndAttributes() {
        expectEqual(
            #"<a href="x" title='y'>&amp;</a>"#.htmlEscaped,
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        expectEqual("请 👍🏽".htmlEscaped, "请 👍🏽")
        expectEqual(String(repeating: "x", count: 10).truncated(to: 5), "xxxx…")
        expectEqual("short".truncated(to: 5), "short")
    }

    @Test func everyEventOfASmallSessionIsAMark() {
        let events = Self.events(steps: 20)
        let html = HTMLTimeline.report(session: Self.session(1, events: events.count), events: events)
        expectEqual(occurrences(of: "class=\"m ", in: html), 60)
        expectEqual(occurrences(of: "class=\"m in", in: html), 20)
        expectEqual(occurrences(of: "class=\"m veto", in: html), 2)
        expectEqual(occurrences(of: "class=\"nest\"", in: html), 20)
        #expect(html.contains("all 60 events drawn"))
        #expect(!html.contains("class=\"overview\""))
    }

    /// A session of 250,000 events gives a page of bounded size that says what it left out.
    @Test func aLargeSessionIsCappedAndSaysSo() {
        let events = Self.events(steps: 83_334)
        expectEqual(events.count, 250_002)
        let html = HTMLTimeline.report(session: Self.session(1, events: events.count), events: events)
        expectEqual(occurrences(of: "class=\"m ", in: html), 2_000)
        #expect(html.contains("showing events 1–2,000 of 250,002"))
        #expect(html.contains("class=\"overview\""))
        #expect(html.utf8.count < 1_500_000, "\(html.utf8.count) bytes")
    }

    /// Events only in one session take columns of their own, so the rest stay paired: the same
    /// input in the same column on both sides.
    @Test func comparisonAlignsPairsAroundOneSidedEvents() throws {
        let a = Self.events(steps: 4)
        var b = a
        b.remove(at: 4)  // step 1's first callback is only in A
        for index in b.indices { b[index].seq = Int64(index + 1) }
        b.insert(b[0], at: 9)  // one extra event in B, after step 3's input
        for index in b.indices { b[index].seq = Int64(index + 1) }
        b[1].result = "false"
        let diff = SessionDiff(
            a: Self.session(1, events: a.count), b: Self.session(2, events: b.count),
            differences: [
                EventDifference(kind: .resultChanged, a: a[1], b: b[1]),
                EventDifference(kind: .onlyInA, a: a[4], b: nil),
                EventDifference(kind: .onlyInB, a: nil, b: b[9]),
            ], eventsA: a.count, eventsB: b.count)
        let layout = TimelineLayout(
            sides: [
                .init(label: "A", events: a, differences: [2: .resultChanged, 5: .onlyInA]),
                .init(label: "B", events: b, differences: [2: .resultChanged, 10: .onlyInB]),
            ], limits: .standard)
        expectEqual(layout.columns.count, 13)
        #expect(layout.columns[4][0]?.seq == 5 && layout.columns[4][1] == nil)
        #expect(layout.columns[10][0] == nil && layout.columns[10][1]?.seq == 10)
        for column in layout.columns {
            if let left = column[0], let right = column[1] { expectEqual(left.callback, right.callback) }
        }
        let html = HTMLTimeline.comparison(
            diff, eventsA: a, eventsB: b, labels: ("A", "B"), heading: "Diff of sessions 1 and 2")
        expectEqual(occurrences(of: "class=\"band d", in: html), 3)
        #expect(html.contains("</i>only in A</span>") && html.contains("</i>only in B</span>"))
    }

    @Test func aComparisonListsAtMostTheLimitOfDifferences() {
        let a = Self.events(steps: 2_000)
        var b = a
        var differences: [EventDifference] = []
        for index in stride(from: 1, to: b.count, by: 3) {
            b[index].result = "false"
            differences.append(EventDifference(kind: .resultChanged, a: a[index], b: b[index]))
        }
        let diff = SessionDiff(
            a: Self.session(1, events: a.count), b: Self.session(2, events: b.count), differences: differences,
            eventsA: a.count, eventsB: b.count)
        let html = HTMLTimeline.comparison(
            diff, eventsA: a, eventsB: b, labels: ("recorded", "candidate"), heading: "Replay")
        expectEqual(occurrences(of: "class=\"m ", in: html), 4_000)
        #expect(html.contains("listing the first 1,000 of 2,000 differences"))
        #expect(html.contains("recorded: showing events 1–2,000 of 6,000"))
    }
}
