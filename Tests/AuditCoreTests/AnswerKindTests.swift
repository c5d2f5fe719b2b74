import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

// An app's own widget with the three kinds of answer: a veto, an override and a plain value.

protocol DialDelegate: AnyObject {
    func dial(_ dial: Dial, shouldTurnTo value: Int) -> Bool
    func dial(_ dial: Dial, willTurnTo value: Int) -> Int
    func dial(_ dial: Dial, titleFor value: Int) -> String?
}

extension DialDelegate {
    func dial(_ dial: Dial, shouldTurnTo value: Int) -> Bool { Dial.callbacks.shouldTurn.unimplemented(value) }
    func dial(_ dial: Dial, willTurnTo value: Int) -> Int { Dial.callbacks.willTurn.unimplemented(value) }
    func dial(_ dial: Dial, titleFor value: Int) -> String? { Dial.callbacks.title.unimplemented(value) }
}

struct DialCallbacks: CallbackTable {
    let shouldTurn = Callback<any DialDelegate, Dial, Int, Bool>(
        "dial(_:shouldTurnTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.dial($1, shouldTurnTo: $2) })
    let willTurn = Callback<any DialDelegate, Dial, Int, Int>(
        "dial(_:willTurnTo:)", arguments: .one("value", .int),
        answer: .override(proposal: { $0 }, coding: .int, described: "the proposed value"),
        invoke: { $0.dial($1, willTurnTo: $2) })
    let title = Callback<any DialDelegate, Dial, Int, String?>(
        "dial(_:titleFor:)", arguments: .one("value", .int),
        answer: .value(coding: .optional(.string), default: nil), invoke: { $0.dial($1, titleFor: $2) })
}

final class Dial: View {
    static let callbacks = DialCallbacks()
    static let turnInput = Input<Dial, Int>(
        "turn", of: "Dial", arguments: .one("to", .int), perform: { $0.turn(to: $1) })
    weak var delegate: (any DialDelegate)?
    private(set) var value = 0
    private(set) var title: String?

    func turn(to proposed: Int) {
        performInput(Self.turnInput, proposed) {
            if Self.callbacks.shouldTurn.ask(delegate, self, proposed) {
                value = Self.callbacks.willTurn.ask(delegate, self, proposed)
                title = Self.callbacks.title.ask(delegate, self, value)
            }
            return .int(value)
        }
    }
}

/// Refuses 3, caps at 5, titles odd values only.
final class CappedDial: DialDelegate {
    func dial(_ dial: Dial, shouldTurnTo value: Int) -> Bool { value != 3 }
    func dial(_ dial: Dial, willTurnTo value: Int) -> Int { min(value, 5) }
    func dial(_ dial: Dial, titleFor value: Int) -> String? { value % 2 == 1 ? "odd \(value)" : nil }
}

@Suite("Answers say what they are: veto, override, value")
struct AnswerKindTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// Turns to 2 (kept), 3 (vetoed), 7 (capped to 5: overridden), 4 (kept).
    func recordDial() throws -> (session: Int64, summary: RecordingSummary, dial: Dial) {
        let dial = Dial(identifier: "dial")
        let delegate = CappedDial()
        dial.delegate = delegate
        let recorder = try Recorder(
            databasePath: database, session: newSession(),
            catalog: .builtIn.adding(WidgetKind("Dial", make: { id, frame in Dial(identifier: id, frame: frame) })))
        try recorder.attach(to: dial)
        for value in [2, 3, 7, 4] { dial.turn(to: value) }
        let summary = recorder.finish()
        return (summary.session, summary, dial)
    }

    func events(_ session: Int64, _ callback: String) throws -> [TimelineEvent] {
        try AuditStore(path: database, access: .read).timeline(of: session).filter { $0.callback == callback }
    }

    @Test func theOutcomeSaysWhatTheAnswerDid() {
        func parts(_ outcome: AnswerOutcome) -> [Bool?] { [outcome.implemented, outcome.vetoed, outcome.overridden] }
        let veto = Dial.callbacks.shouldTurn.answer
        expectEqual(parts(veto.outcome(1, true, implemented: true)), [true, false, nil])
        expectEqual(parts(veto.outcome(1, false, implemented: true)), [true, true, nil])
        expectEqual(veto.outcome(1, false, implemented: false).effect, .vetoed)
        let override = Dial.callbacks.willTurn.answer
        expectEqual(parts(override.outcome(7, 7, implemented: true)), [true, nil, false])
        expectEqual(parts(override.outcome(7, 5, implemented: false)), [false, nil, true])
        expectEqual(override.outcome(7, 5, implemented: true).effect, .overridden)
        let value = Dial.callbacks.title.answer
        expectEqual(parts(value.outcome(1, nil, implemented: true)), [true, nil, nil])
        #expect(value.outcome(1, "one", implemented: true).effect == nil)
        expectEqual(value.kind, .value)
        expectEqual(Dial.callbacks.title.descriptor.defaultAnswer, "null")
        expectEqual(parts(.input), [nil, nil, nil])
        // As read back from the row's columns, every combination the columns can hold.
        for implemented in [nil, false, true] as [Bool?] {
            for vetoed in [nil, false, true] as [Bool?] {
                for overridden in [nil, false, true] as [Bool?] {
                    let outcome = AnswerOutcome(implemented: implemented, vetoed: vetoed, overridden: overridden)
                    expectEqual(parts(outcome), [implemented, vetoed, overridden])
                    expectEqual(parts(outcome.implemented(true)), [true, vetoed, overridden])
                }
            }
        }
    }

    @Test func aValueAnswerIsRecordedWithItsResultAndNeverVetoes() throws {
        let (session, summary, dial) = try recordDial()
        #expect(dial.value == 4 && dial.title == nil)
        expectEqual(summary.vetoes, 1)
        let titles = try events(session, "dial(_:titleFor:)")
        expectEqual(titles.map(\.arguments), [#"{"value":2}"#, #"{"value":5}"#, #"{"value":4}"#])
        expectEqual(titles.map(\.result), ["null", #""odd 5""#, "null"])
        expectEqual(titles.map(\.vetoed), [nil, nil, nil])
        expectEqual(titles.map(\.overridden), [nil, nil, nil])
        #expect(titles.allSatisfy { $0.effect == nil })
        let nulls = try ReadOnlyQuery.run(
            "SELECT count(*) FROM timeline WHERE callback = 'dial(_:titleFor:)' AND vetoed IS NULL",
            databasePath: database)
        expectEqual(nulls.rows, [[.integer(3)]])
    }

    @Test func anOverrideIsOverriddenOnlyWhenItDiffersFromTheProposal() throws {
        let (session, _, _) = try recordDial()
        let overrides = try events(session, "dial(_:willTurnTo:)")
        expectEqual(overrides.map(\.result), ["2", "5", "4"])
        expectEqual(overrides.map(\.overridden), [false, true, false])
        expectEqual(overrides.map(\.effect), [nil, .overridden, nil])
        // `vetoed` means vetoed: an override that overrode is `overridden`, and no veto.
        expectEqual(overrides.map(\.vetoed), [nil, nil, nil])
        let vetoes = try events(session, "dial(_:shouldTurnTo:)")
        expectEqual(vetoes.map(\.effect), [nil, .vetoed, nil, nil])
        expectEqual(vetoes.map(\.overridden), [nil, nil, nil, nil])
        try expectEqual(AuditStore(path: database, access: .read).session(session).vetoes, 1)
    }

    @Test func callbacksKeepTheirAnswerKind() throws {
        let (_, _, _) = try recordDial()
        let kinds = try ReadOnlyQuery.run(
            "SELECT name, answer FROM callbacks WHERE protocol IN ('DialDelegate', 'Dial') ORDER BY name",
            databasePath: database)
        expectEqual(
            kinds.rows,
            [
                [.text("dial(_:shouldTurnTo:)"), .text("veto")], [.text("dial(_:titleFor:)"), .text("value")],
                [.text("dial(_:willTurnTo:)"), .text("override")], [.text("turn"), .null],
            ])
    }

    @Test func theTimelineViewTellsVetoesFromOverridesFromValues() throws {
        let (session, _, _) = try recordDial()
        let rows = try ReadOnlyQuery.run(
            """
            SELECT callback, answer_kind, vetoed, overridden FROM timeline
            WHERE session = \(session) AND callback <> 'turn' AND args ->> 'value' = 7 ORDER BY seq
            """, databasePath: database)
        expectEqual(
            rows.rows,
            [
                [.text("dial(_:shouldTurnTo:)"), .text("veto"), .integer(0), .null],
                [.text("dial(_:willTurnTo:)"), .text("override"), .null, .integer(1)],
            ])
        let kinds = try ReadOnlyQuery.run(
            "SELECT answer_kind, count(*), sum(vetoed), sum(overridden) FROM timeline GROUP BY 1 ORDER BY 1",
            databasePath: database)
        expectEqual(
            kinds.rows,
            [
                [.null, .integer(4), .null, .null], [.text("override"), .integer(3), .null, .integer(1)],
                [.text("value"), .integer(3), .null, .null], [.text("veto"), .integer(4), .integer(1), .null],
            ])
        let vetoes = try ReadOnlyQuery.run("SELECT callback FROM timeline WHERE vetoed", databasePath: database)
        expectEqual(vetoes.rows, [[.text("dial(_:shouldTurnTo:)")]])
    }

    @Test func theRowSaysWhatTheAnswerIsNotTheCallbackName() throws {
        let (session, _, _) = try recordDial()
        try sqlite(database, "UPDATE callbacks SET answer = NULL")
        let overrides = try events(session, "dial(_:willTurnTo:)")
        expectEqual(overrides.map(\.overridden), [false, true, false])
        expectEqual(overrides.map(\.effect), [nil, .overridden, nil])
    }

    @Test func theReportCountsOnlyVetoesInVetoRates() throws {
        let (session, _, _) = try recordDial()
        let report = try SessionReport(session: session, in: AuditStore(path: database, access: .read))
        func row(_ callback: String) -> CallbackStatistics? { report.rows.first { $0.callback == callback } }
        let veto = try #require(row("dial(_:shouldTurnTo:)"))
        #expect((veto.vetoable, veto.vetoes, veto.vetoRate) == (4, 1, 0.25))
        expectEqual(veto.vetoedEvents.map(\.seq), [6])
        let override = try #require(row("dial(_:willTurnTo:)"))
        #expect((override.vetoable, override.vetoes, override.vetoRate) == (0, 0, nil))
        #expect((override.overridable, override.overrides, override.overrideRate) == (3, 1, 1.0 / 3))
        expectEqual(override.overriddenEvents.map(\.seq), [9])
        let value = try #require(row("dial(_:titleFor:)"))
        #expect((value.vetoable, value.overridable) == (0, 0))
        expectEqual(report.vetoRates.map(\.callback), ["dial(_:shouldTurnTo:)"])
        expectEqual(report.overrideRates.map(\.callback), ["dial(_:willTurnTo:)"])
    }

    @Test func theHTMLPageMarksOverridesApartFromVetoes() throws {
        let (session, _, _) = try recordDial()
        let store = try AuditStore(path: database, access: .read)
        let html = HTMLTimeline.report(session: try store.session(session), events: try store.timeline(of: session))
        expectEqual(html.components(separatedBy: "  VETOED").count - 1, 1)
        expectEqual(html.components(separatedBy: "  OVERRIDDEN").count - 1, 1)
        #expect(html.contains("class=\"m ovr\""))
        #expect(html.contains("Override rates"))
    }

    @Test func theReplayerAsksWithTheSameFlags() throws {
        let dial = Dial(identifier: "dial")
        let invoke = { (callback: CallbackInvoker, value: Int) in
            callback.invoke(on: CappedDial(), widget: dial, arguments: .object(["value": .int(value)]), root: nil)
        }
        let title = try #require(invoke(Dial.callbacks.title.invoker, 3))
        #expect((title.result, title.vetoed, title.overridden) == (.string("odd 3"), nil, nil))
        let kept = try #require(invoke(Dial.callbacks.willTurn.invoker, 4))
        #expect((kept.vetoed, kept.overridden) == (nil, false))
        let capped = try #require(invoke(Dial.callbacks.willTurn.invoker, 9))
        #expect((capped.result, capped.vetoed, capped.overridden) == (.int(5), nil, true))
        let refused = try #require(invoke(Dial.callbacks.shouldTurn.invoker, 3))
        #expect((refused.vetoed, refused.overridden) == (true, nil))
    }
}
