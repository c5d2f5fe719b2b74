import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

// A widget of the tests' own, holding its delegate the way every widget does: in a plain weak
// `delegate`, asked through its callback table, which records the call while the widget is audited.

protocol KnobDelegate: AnyObject {
    func knob(_ knob: Knob, shouldTurnTo value: Int) -> Bool
}

extension KnobDelegate {
    func knob(_ knob: Knob, shouldTurnTo value: Int) -> Bool { Knob.callbacks.shouldTurn.unimplemented(value) }
}

struct KnobCallbacks: CallbackTable {
    let shouldTurn = Callback<any KnobDelegate, Knob, Int, Bool>(
        "knob(_:shouldTurnTo:)", arguments: .one("value", .int), answer: .veto(),
        invoke: { $0.knob($1, shouldTurnTo: $2) })
}

final class Knob: View {
    static let callbacks = KnobCallbacks()
    static let turnInput = Input<Knob, Int>(
        "turn", of: "Knob", arguments: .one("value", .int), perform: { $0.turn(to: $1) })
    weak var delegate: (any KnobDelegate)?
    private(set) var value = 0

    func turn(to newValue: Int) {
        performInput(Self.turnInput, newValue) {
            if Self.callbacks.shouldTurn.ask(delegate, self, newValue) { value = newValue }
            return .int(value)
        }
    }
}

/// Answers by a threshold and logs every question with its own name.
final class KnobLog: KnobDelegate {
    let name: String
    let limit: Int
    var calls: [String] = []

    init(_ name: String, limit: Int = .max) {
        self.name = name
        self.limit = limit
    }

    func knob(_ knob: Knob, shouldTurnTo value: Int) -> Bool {
        calls.append("\(name).should(\(value))")
        return value <= limit
    }
}

@Suite("A widget's weak delegate, asked through its callbacks: recorded while audited")
struct WeakDelegateTests {
    static let catalog = WidgetCatalog.builtIn.adding(
        WidgetKind("Knob", make: { id, frame in Knob(identifier: id, frame: frame) }))

    let folder = TemporaryDirectory()

    func recorder() throws -> Recorder {
        try Recorder(
            databasePath: folder.path("\(UUID().uuidString).sqlite"), session: newSession(), catalog: Self.catalog)
    }

    func callbacks(of summary: RecordingSummary) throws -> [TimelineEvent] {
        try AuditStore(path: folder.path("audit.sqlite"), access: .read).timeline(of: summary.session).filter {
            $0.kind == .callback
        }
    }

    @Test func notAuditedTheWidgetAsksItsDelegateOrTakesTheDefault() {
        let knob = Knob(identifier: "knob")
        #expect(knob.auditLink == nil && knob.delegate == nil)
        knob.turn(to: 9)
        expectEqual(knob.value, 9, "no delegate: the declared default (true) is used")

        let delegate = KnobLog("app", limit: 5)
        knob.delegate = delegate
        #expect(knob.delegate === delegate)
        knob.turn(to: 3)
        knob.turn(to: 7)
        expectEqual(delegate.calls, ["app.should(3)", "app.should(7)"])
        expectEqual(knob.value, 3)
        expectEqual(Knob.callbacks.shouldTurn.ask(delegate, knob, 6), false)
        expectEqual(delegate.calls.last, "app.should(6)")
    }

    @Test func attachingLinksTheWidgetAndDetachingUnlinksIt() throws {
        let recorder = try recorder()
        let knob = Knob(identifier: "knob")
        let delegate = KnobLog("app", limit: 5)
        knob.delegate = delegate

        try recorder.attach(to: knob)
        #expect(knob.auditLink != nil)
        #expect(knob.delegate === delegate, "auditing leaves the app's delegate in place")
        knob.turn(to: 3)
        knob.turn(to: 9)
        recorder.detach(from: knob)
        #expect(knob.auditLink == nil)
        #expect(knob.delegate === delegate)
        knob.turn(to: 4)

        let summary = recorder.finish()
        expectEqual(delegate.calls, ["app.should(3)", "app.should(9)", "app.should(4)"])
        expectEqual(knob.value, 4)
        expectEqual(summary.callbacks, 2, "only the calls made while attached are recorded")
        expectEqual(summary.vetoes, 1)
    }

    /// Audited, the app's delegate is called exactly once per ask, with the same arguments, and the
    /// widget gets its answer; the call is recorded with those arguments and that answer, inside an
    /// input or outside any.
    @Test func anAuditedCallReachesTheDelegateOnceAndReturnsItsAnswer() throws {
        let recorder = try Recorder(
            databasePath: folder.path("audit.sqlite"), session: newSession(), catalog: Self.catalog)
        let knob = Knob(identifier: "knob")
        let delegate = KnobLog("app", limit: 5)
        knob.delegate = delegate
        try recorder.attach(to: knob)

        expectEqual(Knob.callbacks.shouldTurn.ask(knob.delegate, knob, 7), false)
        expectEqual(Knob.callbacks.shouldTurn.ask(knob.delegate, knob, 2), true)
        expectEqual(delegate.calls, ["app.should(7)", "app.should(2)"])
        knob.turn(to: 4)
        expectEqual(delegate.calls, ["app.should(7)", "app.should(2)", "app.should(4)"])
        expectEqual(knob.value, 4)
        let summary = recorder.finish()

        let events = try callbacks(of: summary)
        expectEqual(events.map(\.protocolName), ["KnobDelegate", "KnobDelegate", "KnobDelegate"])
        expectEqual(events.map(\.callback), Array(repeating: "knob(_:shouldTurnTo:)", count: 3))
        expectEqual(events.map(\.arguments), [#"{"value":7}"#, #"{"value":2}"#, #"{"value":4}"#])
        expectEqual(events.map(\.result), ["false", "true", "true"])
        expectEqual(events.map(\.vetoed), [true, false, false])
        expectEqual(events.map(\.implemented), [true, true, true])
        expectEqual(events.map { $0.parentSeq == nil }, [true, true, false], "the first two outside any input")
    }

    @Test func theDelegateStaysWeak() throws {
        let recorder = try recorder()
        let knob = Knob(identifier: "knob")
        weak var dropped: KnobLog?
        do {
            let delegate = KnobLog("app")
            knob.delegate = delegate
            dropped = delegate
        }
        #expect(dropped == nil, "the widget does not retain the delegate")
        #expect(knob.delegate == nil)

        // Audited too: neither the widget nor the recorder retains it.
        try recorder.attach(to: knob)
        do {
            let delegate = KnobLog("app")
            knob.delegate = delegate
            dropped = delegate
            knob.turn(to: 1)
            expectEqual(delegate.calls, ["app.should(1)"])
        }
        #expect(dropped == nil, "the audited widget does not retain the delegate")
        #expect(knob.delegate == nil)
        knob.turn(to: 2)  // the declared default
        expectEqual(knob.value, 2)
        let summary = recorder.finish()
        expectEqual(summary.callbacks, 2)
    }

    @Test func reassigningTheDelegateWhileAuditedRetargetsAtOnce() throws {
        let recorder = try Recorder(
            databasePath: folder.path("audit.sqlite"), session: newSession(), catalog: Self.catalog)
        let knob = Knob(identifier: "knob")
        let first = KnobLog("first", limit: 1)
        let second = KnobLog("second", limit: 10)
        knob.delegate = first
        try recorder.attach(to: knob)
        let widget = try #require(knob.auditLink?.widget)

        knob.turn(to: 5)  // vetoed by the first
        knob.delegate = second
        expectEqual(knob.auditLink?.widget, widget, "the widget stays in the same audit")
        knob.turn(to: 5)  // allowed by the second
        knob.delegate = nil
        knob.turn(to: 20)  // no delegate: the default, recorded as not implemented

        let summary = recorder.finish()
        expectEqual(first.calls, ["first.should(5)"])
        expectEqual(second.calls, ["second.should(5)"])
        expectEqual(knob.value, 20)
        expectEqual(summary.callbacks, 3)
        expectEqual(summary.vetoes, 1)
        try expectEqual(callbacks(of: summary).map(\.implemented), [true, true, false])
    }

    @Test func auditingAKnobChangesNothing() throws {
        _ = try expectAuditingChangesNothing(database: folder.path("same.sqlite"), catalog: Self.catalog) {
            recorder in
            let knob = Knob(identifier: "knob")
            let delegate = KnobLog("app", limit: 3)
            knob.delegate = delegate
            try! recorder?.attach(to: knob)
            for value in [1, 4, 2, 7, 3] { knob.turn(to: value) }
            return (delegate.calls, knob.value)
        }
    }
}
