import AuditCore  // public API only: an app's own widget whose delegate answers later
import Foundation
import SharedTestSupport
import Synchronization
import Testing

@Suite("Answers that come later: completion handlers and async methods")
struct LaterAnswerTests {
    static let catalog = WidgetCatalog.builtIn.adding(Gate.kind)
    static let registry: DelegateRegistry = {
        var registry = DelegateRegistry()
        registry.register("prompt", summary: "decides at once") { PromptDoorman() }
        registry.register("strict", summary: "decides at once, refuses Bob") { StrictDoorman() }
        registry.register("bell", summary: "decides when the bell rings") { BellDoorman() }
        registry.register("forgetful", summary: "never decides") { ForgetfulDoorman() }
        registry.register("stuttering", summary: "decides twice") { StutteringDoorman() }
        registry.register("threaded", summary: "decides at once, on a thread of its own") { ThreadedDoorman() }
        registry.register("after the run", summary: "decides on a thread of its own after the inputs") {
            AfterTheRunDoorman()
        }
        registry.register("shrugging", summary: "lets go of the decisions it holds when the bell rings") {
            BellDoorman(shrugging: true)
        }
        registry.register("handing off", summary: "hands each decision to a thread that drops it") {
            HandingOffDoorman()
        }
        return registry
    }()
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    typealias Drive = (Gate) -> Void

    /// Alice and Bob knock, the bell rings, Mallory knocks, the bell rings.
    static func visitors(_ gate: Gate) {
        gate.knock("alice")
        gate.knock("bob")
        gate.ring()
        gate.knock("mallory")
        gate.ring()
    }

    /// Drives a gate with `delegate`, recorded into `database` when `recorded`; returns what the
    /// delegate heard and what the gate did, and the session.
    func run(
        _ delegateName: String, recorded: Bool, waitsForDecision: Bool = false, _ drive: Drive = visitors
    ) throws -> (log: [String], admitted: [String], paid: Int, forgotten: [String], session: Int64) {
        let delegate = try #require(try Self.registry.entry(named: delegateName).make() as? LoggingGateDelegate)
        let gate = Gate(identifier: "gate", waitsForDecision: waitsForDecision)
        gate.delegate = delegate
        var session: Int64 = 0
        if recorded {
            let recorder = try Recorder(
                databasePath: database, session: NewSession(recordedInCode: "gate", delegate: delegateName),
                catalog: Self.catalog)
            try recorder.attach(to: gate)
            drive(gate)
            session = recorder.finish().session
        } else {
            drive(gate)
        }
        return (delegate.log, gate.admitted, gate.paid, gate.forgotten, session)
    }

    func timeline(_ session: Int64) throws -> [TimelineEvent] {
        try AuditStore(path: database, access: .read).timeline(of: session)
    }

    @Test(arguments: ["prompt", "strict", "bell", "forgetful", "stuttering"])
    func auditingChangesNothing(delegate: String) throws {
        let plain = try run(delegate, recorded: false)
        let audited = try run(delegate, recorded: true)
        expectEqual(plain.log, audited.log)
        expectEqual(plain.admitted, audited.admitted)
        expectEqual(plain.paid, audited.paid)
        expectEqual(plain.forgotten, audited.forgotten)
        #expect(audited.session > 0)
    }

    @Test func theWidgetHearsOfAHandlerLetGoOfUncalled() throws {
        for recorded in [false, true] {
            try expectEqual(run("forgetful", recorded: recorded).forgotten, ["alice", "bob", "mallory"])
            try expectEqual(run("prompt", recorded: recorded).forgotten, [])
            // Given up on, then answered with the bell: never forgotten.
            try expectEqual(run("bell", recorded: recorded).forgotten, [])
        }
    }

    /// A handler held past the call and let go of uncalled later (when the bell rings) is never
    /// answered from that moment: the widget hears of it then, audited or not, and the mistake is
    /// recorded then, nested under the bell's callback. Bob's and Mallory's; Alice's was given
    /// up on when Bob knocked, so letting go of it is no mistake.
    @Test func aHandlerHeldThenLetGoOfIsNeverAnsweredWhenItIsLetGoOf() throws {
        let plain = try run("shrugging", recorded: false)
        let audited = try run("shrugging", recorded: true)
        expectEqual(plain.forgotten, ["bob", "mallory"])
        expectEqual(audited.forgotten, plain.forgotten)
        let events = try timeline(audited.session)
        let mistakes = events.filter { $0.later == .neverAnswered }
        let rings = events.filter { $0.callback == "gateDidRing(_:)" }.map(\.seq)
        expectEqual(mistakes.map(\.parentSeq), rings.map { Optional($0) })
        let asks = events.filter { $0.later == .asked }
        expectEqual(mistakes.map(\.answers), [asks[1].seq, asks[2].seq])
    }

    /// What the widget keeps of an ask (its `PendingAnswer`) does not keep the ask, so a closure
    /// of the widget's that holds the widget's owner makes no cycle through it: once the delegate
    /// lets go of the handler, the owner goes, audited or not.
    @Test func aPendingAnswerKeptByWhatItsClosureHoldsLeaksNothing() throws {
        final class Owner {
            var pending: PendingAnswer?
            var forgotten = 0
        }
        for recorded in [false, true] {
            let gate = Gate(identifier: "gate")
            let delegate = BellDoorman(shrugging: true)
            gate.delegate = delegate
            let recorder = try Recorder(
                databasePath: database, session: NewSession(recordedInCode: "gate", delegate: "shrugging"),
                catalog: Self.catalog)
            if recorded { try recorder.attach(to: gate) }
            weak var gone: Owner?
            do {
                let owner = Owner()
                gone = owner
                owner.pending = Gate.callbacks.shouldAdmit.ask(
                    delegate, gate, "alice", then: { _ in owner.pending = nil },
                    ifNeverAnswered: { owner.forgotten += 1 })
                #expect(owner.pending?.isWaiting == true)
            }
            gate.ring()  // the delegate lets go of the handler
            #expect(gone == nil, "recorded: \(recorded)")
            _ = recorder.finish()
        }
    }

    /// A gate that waits for each decision, whose delegate hands the handler to another thread
    /// that lets go of it: each wait ends, however the two threads interleave (the widget's hold
    /// on an ask does not keep it alive while it sleeps, so the handler's end still ends it).
    @Test func aWaitEndsWhenAnotherThreadLetsGoOfTheHandler() throws {
        let database = database
        let session = Mutex<Int64?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            let gate = Gate(identifier: "gate", waitsForDecision: true)
            let delegate = HandingOffDoorman()
            gate.delegate = delegate
            guard
                let recorder = try? Recorder(
                    databasePath: database, session: NewSession(recordedInCode: "gate", delegate: "handing off"),
                    catalog: Self.catalog),
                (try? recorder.attach(to: gate)) != nil
            else { return }
            for _ in 0..<20 { gate.knock("alice") }
            session.withLock { $0 = recorder.finish().session }
        }.start()
        // The limit only keeps a regression from hanging the suite: a wait that never ends fails.
        try #require(done.wait(timeout: .now() + 120) == .success, "a knock still waits")
        let recorded = try #require(session.withLock { $0 })
        expectEqual(try timeline(recorded).filter { $0.later == .neverAnswered }.count, 20)
    }

    /// A gate that waits for each decision: a delegate that lets go of the handler uncalled ends
    /// the wait, recorded and in both replay modes (isolated replay tells the widget where the
    /// recording has the mistake). The time limit only keeps a regression from hanging the suite.
    @Test(.timeLimit(.minutes(1))) func aWaitingWidgetHearsOfADroppedHandlerInEveryMode() throws {
        let forgetful = try run("forgetful", recorded: true, waitsForDecision: true)
        expectEqual(forgetful.forgotten, ["alice", "bob", "mallory"])
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            let same = try replayer.replay(session: forgetful.session, delegate: "forgetful", mode: mode)
            #expect(same.identical, "\(mode): \(same.diff.differences)")
            let prompt = try replayer.replay(session: forgetful.session, delegate: "prompt", mode: mode)
            #expect(prompt.diff.differences.contains { $0.kind == .mistake }, "\(mode): \(prompt.diff.differences)")
        }
    }

    /// A decision from another thread whose widget lets the app go on from inside its closure,
    /// before the answer's event is queued: `finish()` waits for the step, so the answer and what
    /// the gate did on taking it (the fee) are recorded, every time.
    @Test func finishWaitsForAnAnswerBeingRecordedOnAnotherThread() throws {
        for _ in 0..<20 {
            let delegate = ThreadedDoorman()
            let gate = Gate(identifier: "gate")
            gate.delegate = delegate
            let decided = DispatchSemaphore(value: 0)
            gate.heard = { decided.signal() }
            let recorder = try Recorder(
                databasePath: database, session: NewSession(recordedInCode: "gate", delegate: "threaded"),
                catalog: Self.catalog)
            try recorder.attach(to: gate)
            gate.knock("alice")
            decided.wait()
            let events = try timeline(recorder.finish().session).filter { $0.later != nil }
            expectEqual(events.map(\.later), [.asked, .answered, .asked, .answered], "\(events)")
        }
    }

    /// A decision given on a thread of the delegate's own once the inputs are done: an
    /// interaction replay waits for it before it ends, as the recording did and as an isolated
    /// replay does, and records it answered, not "never answered".
    @Test func anInteractionReplayWaitsForAnAnswerStillOnItsWay() throws {
        let delegate = AfterTheRunDoorman()
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "gate", delegate: "after the run"),
            catalog: Self.catalog)
        do {
            let gate = Gate(identifier: "gate")
            gate.delegate = delegate
            try recorder.attach(to: gate)
            gate.knock("alice")
        }  // the gate goes away: the doorman decides now
        delegate.decided.wait()
        let session = recorder.finish().session
        try expectEqual(timeline(session).compactMap(\.later), [.asked, .answered])

        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        let report = try replayer.replay(session: session, delegate: "after the run", mode: .interaction)
        #expect(report.identical, "\(report.diff.differences)")
        try expectEqual(timeline(report.candidate.id).compactMap(\.later), [.asked, .answered])
    }

    @Test func withNoDelegateTheDefaultAnswerIsRecordedAsTheDefault() throws {
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "gate", delegate: "none"), catalog: Self.catalog
        )
        let gate = Gate(identifier: "gate")
        try recorder.attach(to: gate)
        gate.knock("alice")
        let events = try timeline(recorder.finish().session).filter { $0.later != nil }
        expectEqual(events.map(\.later), [.asked, .answered, .asked, .answered])
        #expect(events.allSatisfy { $0.implemented == false }, "\(events)")
        #expect(gate.admitted == ["alice"] && gate.paid == 0)
    }

    /// A decision given on another thread is compared with the decision of the same ask, wherever
    /// it comes in the timeline: against one given at once it is no difference, in `diff` and in
    /// both replay modes, whichever of the two recorded.
    @Test func anAnswerFromAnotherThreadIsComparedWithItsAskNotByItsPlace() throws {
        let threaded = try run("threaded", recorded: true, waitsForDecision: true)
        let prompt = try run("prompt", recorded: true, waitsForDecision: true)
        #expect(threaded.admitted == prompt.admitted && threaded.paid == prompt.paid)
        let answers = try timeline(threaded.session).filter { $0.later == .answered && $0.answers != nil }
        #expect(answers.filter { $0.callback.hasPrefix("gate(_:shouldAdmit") }.allSatisfy { $0.parentSeq == nil })
        let diff = try SessionDiffer(AuditStore(path: database, access: .read)).diff(prompt.session, threaded.session)
        #expect(diff.differences.isEmpty, "\(diff.differences)")
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            for (session, candidate) in [(prompt.session, "threaded"), (threaded.session, "prompt")] {
                let report = try replayer.replay(session: session, delegate: candidate, mode: mode)
                #expect(report.identical, "\(mode) \(candidate): \(report.diff.differences)")
            }
            // Bob refused: his decision changes; driven again, he pays no fee, and the three knocks
            // and rings from his on count one visitor fewer.
            let strict = try replayer.replay(session: threaded.session, delegate: "strict", mode: mode)
            let kinds = strict.diff.differences.map(\.kind)
            let driven: [EventDifference.Kind] = [
                .resultChanged, .vetoChanged, .onlyInA, .onlyInA, .resultChanged, .resultChanged, .resultChanged,
            ]
            expectEqual(kinds, (mode == .isolated ? [.vetoChanged] : driven), "\(mode): \(strict.diff.differences)")
        }
    }

    @Test func anAnswerGivenAtOnceIsNestedUnderItsAskAndNamesIt() throws {
        let (_, admitted, paid, _, session) = try run("prompt", recorded: true)
        #expect(admitted == ["alice", "bob"] && paid == 8)
        let events = try timeline(session)
        let asks = events.filter { $0.callback == "gate(_:shouldAdmit:decisionHandler:)" && $0.later == .asked }
        expectEqual(asks.map(\.arguments), [#"{"visitor":"alice"}"#, #"{"visitor":"bob"}"#, #"{"visitor":"mallory"}"#])
        #expect(asks.allSatisfy { $0.result == nil && $0.vetoed == nil && $0.implemented == true })
        for ask in asks {
            let answer = try #require(events.first { $0.answers == ask.seq })
            expectEqual(answer.later, .answered)
            expectEqual(answer.parentSeq, ask.seq)  // called inside the ask
            #expect(answer.seq > ask.seq)
        }
        let answers = events.filter { $0.later == .answered && $0.callback.hasPrefix("gate(_:shouldAdmit") }
        expectEqual(answers.map(\.result), ["true", "true", "false"])
        expectEqual(answers.map(\.vetoed), [false, false, true])
        // The async fee: asked, then answered with the value, before the ask returned.
        let fees = events.filter { $0.callback == "gate(_:feeFor:)" }
        expectEqual(fees.map(\.later), [.asked, .answered, .asked, .answered])
        expectEqual(fees.map(\.result), [nil, "5", nil, "3"])
        #expect(fees[1].answers == fees[0].seq && fees[1].parentSeq == fees[0].seq)
        // The same through SQL: each answer joined to its ask.
        let joined = try ReadOnlyQuery.run(
            """
            SELECT ask.args, answer.result FROM timeline AS ask
            JOIN timeline AS answer ON answer.session = ask.session AND answer.answers = ask.seq
            WHERE ask.session = \(session) AND ask.later = 'asked' AND ask.callback LIKE 'gate(_:shouldAdmit%'
            ORDER BY ask.seq
            """, databasePath: database)
        expectEqual(
            joined.rows,
            [
                [.text(#"{"visitor":"alice"}"#), .text("true")], [.text(#"{"visitor":"bob"}"#), .text("true")],
                [.text(#"{"visitor":"mallory"}"#), .text("false")],
            ])
    }

    @Test func anAnswerGivenLaterComesWhereTheDelegateGaveItAndAGiveUpIsRecorded() throws {
        let (_, admitted, _, _, session) = try run("bell", recorded: true)
        // Alice's decision was given up on when Bob knocked; Bob's came with the bell.
        expectEqual(admitted, ["bob", "mallory"])
        let events = try timeline(session)
        let steps = events.filter { $0.callback.hasPrefix("gate(_:shouldAdmit") }.map { ($0.later, $0.result) }
        expectEqual(
            steps.map(\.0),
            [
                .asked, .gaveUp, .asked, .answeredAfterGivingUp, .answered, .asked, .answered,
            ])
        let ring = try #require(events.first { $0.callback == "gateDidRing(_:)" })
        let bobsAnswer = try #require(events.first { $0.later == .answered })
        expectEqual(bobsAnswer.parentSeq, ring.seq)  // given while the delegate heard the bell
        let aliceAsk = try #require(events.first { $0.later == .asked })
        expectEqual(events.filter { $0.answers == aliceAsk.seq }.map(\.later), [.gaveUp, .answeredAfterGivingUp])
    }

    @Test func eachMistakeIsRecorded() throws {
        let forgetful = try timeline(try run("forgetful", recorded: true).session)
        expectEqual(forgetful.filter { $0.later == .neverAnswered }.count, 3)
        // Dropped at once, inside the ask.
        for mistake in forgetful where mistake.later == .neverAnswered {
            expectEqual(mistake.parentSeq, mistake.answers)
        }
        let stutteringSession = try run("stuttering", recorded: true).session
        let stuttering = try timeline(stutteringSession)
        expectEqual(stuttering.filter { $0.later == .answeredTwice }.map(\.result), ["false", "false", "false"])
        // Each second answer would veto, but the widget never takes it: it vetoed nothing, and the
        // session counts no veto (the first answers let everyone in).
        expectEqual(stuttering.filter { $0.later == .answeredTwice }.map(\.vetoed), [false, false, false])
        try expectEqual(AuditStore(path: database, access: .read).session(stutteringSession).vetoes, 0)
        // Still waiting when the recording ends: never answered, recorded at the end.
        let session = try run("bell", recorded: true) { $0.knock("carol") }.session
        let held = try timeline(session).filter { $0.callback.hasPrefix("gate(_:shouldAdmit") }
        expectEqual(held.map(\.later), [.asked, .neverAnswered])
        #expect(held[1].parentSeq == nil)
        expectEqual(held[1].laterNote, "MISTAKE: never answered (#\(held[0].seq))")
    }

    /// Sessions stored before a mistake's answer was recorded as vetoing nothing mark a veto on
    /// it: two mistakes of a kind compare by their results alone, so such a session diffs with a
    /// new one as identical.
    @Test func mistakesStoredWithAVetoCompareByTheirResultsAlone() throws {
        let older = try run("stuttering", recorded: true).session
        let newer = try run("stuttering", recorded: true).session
        // As such a session stores them: through the system's sqlite3, as a user would look.
        let sqlite3 = Process()
        sqlite3.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite3.arguments = [
            database, "UPDATE events SET vetoed = 1 WHERE session = \(older) AND later = 'answered twice'",
        ]
        try sqlite3.run()
        sqlite3.waitUntilExit()
        try #require(sqlite3.terminationStatus == 0)
        let vetoed = try timeline(older).filter { $0.later == .answeredTwice }.map(\.vetoed)
        expectEqual(vetoed, [true, true, true])
        let diff = try SessionDiffer(AuditStore(path: database, access: .read)).diff(older, newer)
        #expect(diff.differences.isEmpty, "\(diff.differences)")
    }

    @Test func replayCatchesAChangedLaterAnswerInBothModes() throws {
        let session = try run("prompt", recorded: true).session
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            let same = try replayer.replay(session: session, delegate: "prompt", mode: mode)
            #expect(same.identical, "\(mode): \(same.diff.differences.prefix(2))")
            let strict = try replayer.replay(session: session, delegate: "strict", mode: mode)
            let vetoes = strict.diff.differences.filter { $0.kind == .vetoChanged }
            expectEqual(vetoes.count, 1, "\(mode): \(strict.diff.differences)")
            #expect(vetoes.first?.a?.later == .answered && vetoes.first?.a?.result == "true")
        }
    }

    @Test func aLaterAnswerReplaysIdenticallyAgainstItself() throws {
        let session = try run("bell", recorded: true).session
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            let report = try replayer.replay(session: session, delegate: "bell", mode: mode)
            #expect(report.identical, "\(mode): \(report.diff.differences.prefix(3))")
        }
    }

    @Test func aMistakeIsADifferenceOfItsOwnKind() throws {
        let session = try run("prompt", recorded: true).session
        let replayer = Replayer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
        for mode in [ReplayMode.interaction, .isolated] {
            for candidate in ["stuttering", "forgetful"] {
                let report = try replayer.replay(session: session, delegate: candidate, mode: mode)
                #expect(
                    report.diff.differences.contains { $0.kind == .mistake }, "\(mode) \(candidate)")
            }
        }
    }

    /// The report and coverage count a callback answered later once per ask, its branch from its
    /// answer; search, the report, coverage and both HTML pages list the handler mistakes.
    @Test func mistakesAreFoundBySearchAndCountedByReportCoverageAndThePages() throws {
        let forgetful = try run("forgetful", recorded: true).session
        let stuttering = try run("stuttering", recorded: true).session
        let store = try AuditStore(path: database, access: .read)
        var search = EventSearch(session: stuttering)
        search.mistakes = true
        let found = try search.matches(in: store)
        expectEqual(found.map(\.event.later), [.answeredTwice, .answeredTwice, .answeredTwice])
        search.mistakes = false
        let others = try search.matches(in: store)
        expectEqual(others.count, (try timeline(stuttering)).count - 3)

        let report = try SessionReport(session: forgetful, in: store)
        let admit = try #require(report.rows.first { $0.callback.hasPrefix("gate(_:shouldAdmit") })
        #expect((admit.calls, admit.mistakes, admit.vetoable) == (3, 3, 0))
        #expect(report.withMistakes.map(\.callback) == [admit.callback] && report.mistakes == 3)
        let prompt = try SessionReport(session: try run("prompt", recorded: true).session, in: store)
        let decided = try #require(prompt.rows.first { $0.callback.hasPrefix("gate(_:shouldAdmit") })
        #expect((decided.calls, decided.vetoable, decided.vetoes, decided.defaulted) == (3, 3, 1, 0))
        expectEqual(prompt.mistakes, 0)

        let coverage = try CoverageReport(sessions: [stuttering], catalog: Self.catalog, in: store)
        let covered = try #require(coverage.rows.first { $0.callback.hasPrefix("gate(_:shouldAdmit") })
        // Each ask answered yes first: the widget took that; the second answers are mistakes.
        #expect((covered.calls, covered.mistakes) == (3, 3))
        expectEqual(covered.branches, ["allowed": 3, "vetoed": 0])
        expectEqual(covered.argumentClasses["allowed"]?.isEmpty, false)

        let session = try store.session(forgetful)
        let page = HTMLTimeline.report(session: session, events: try timeline(forgetful))
        #expect(page.contains("Handler mistakes") && page.contains("handler mistakes"))
        #expect(HTMLTimeline.coverage(coverage).contains("Handler mistakes"))
    }

    /// `minimize` and `explore` drive a widget that asks later as any other: the changed decision
    /// is found, and its reproducer is Bob's knock alone.
    @Test func minimizeAndExploreFindAChangedLaterDecision() throws {
        let session = try run("prompt", recorded: true).session
        let minimal = try Minimizer(databasePath: database, registry: Self.registry, catalog: Self.catalog)
            .minimize(session: session, delegate: "strict")
        #expect(minimal.steps.map(\.action) == ["knock"] && minimal.steps.count < minimal.originalCount)
        expectEqual(minimal.steps.first?.arguments, [.string("bob")], "\(minimal.steps)")

        let visitors = ["alice", "bob", "mallory"]
        let catalog = WidgetCatalog.builtIn.adding(
            Gate.kind.exploring(
                Gate.knockInput.generator { _, random in visitors[random.value(in: 0...2, orNear: [])] },
                Gate.ringInput.generator(weight: 0.3) { _, _ in () }))
        let scenario = try Scenario(
            data: Data(#"{"name": "gate", "root": {"kind": "Gate", "id": "gate"}, "steps": []}"#.utf8),
            catalog: catalog)
        var options = Explorer.Options()
        options.seed = 1
        options.runs = 20
        options.stepsPerRun = 6
        let found = try #require(
            try Explorer(scenario: scenario, registry: Self.registry, options: options)
                .explore(delegate: "prompt", candidate: "strict").finding)
        expectEqual(found.minimized.steps.map(\.action), ["knock"], "\(found.minimized.steps)")
        #expect(found.signature.contains("shouldAdmit"), "\(found.signature)")
    }
}
