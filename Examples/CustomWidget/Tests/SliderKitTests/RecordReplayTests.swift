import AuditCore
import Foundation
import SliderKit
import Testing

private let shouldBegin = "slider(_:shouldBeginTrackingTo:)"
private let proposed = "slider(_:proposedValue:)"
private let label = "slider(_:accessibilityLabelFor:)"
private let didChange = "slider(_:didChange:)"

@Suite("The slider recorded, replayed and minimized")
struct RecordReplayTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("audit.sqlite") }

    init() throws { folder = try TemporaryDirectory() }

    func timeline(_ session: Int64) throws -> [TimelineEvent] {
        try AuditStore(path: database, access: .read).timeline(of: session)
    }

    func replay(_ session: Int64, _ delegate: String, _ mode: ReplayMode) throws -> ReplayReport {
        try Replayer(databasePath: database, registry: .volume, catalog: catalog)
            .replay(session: session, delegate: delegate, mode: mode)
    }

    // MARK: 1. Recording

    @Test func theScenarioIsRecordedWithEveryAnswerKind() throws {
        let summary = try recordScenario(database: database)
        #expect((summary.inputs, summary.vetoes) == (8, 1))
        let events = try timeline(summary.session)
        func calls(_ name: String) -> [TimelineEvent] { events.filter { $0.callback == name && $0.kind == .callback } }
        #expect(calls(shouldBegin).map(\.vetoed) == [false, true, false, false])
        #expect(calls(shouldBegin).map(\.overridden) == [nil, nil, nil, nil])
        #expect(calls(proposed).map(\.result) == ["0.4", "0.6", "0.5"])
        #expect(calls(proposed).map(\.overridden) == [true, true, false])
        #expect(calls(proposed).map(\.effect) == [.overridden, .overridden, nil])
        #expect(calls(label).map(\.result) == [#""40%""#, #""60%""#, #""50%""#, #""muted""#])
        #expect(calls(label).map(\.vetoed) == [nil, nil, nil, nil])
        let changes = try calls(didChange).map { event in
            try JSONDecoder().decode([String: SliderChange].self, from: Data(event.arguments.utf8))["change"]
        }
        #expect(changes.map { $0?.from } == [0.3, 0.4, 0.6, 0.5])
        #expect(changes.map { $0?.to } == [0.4, 0.6, 0.5, 0])
        #expect(changes.map { $0?.reason } == [.drag, .drag, .drag, .reset])
        // Both `drag`s, each its own widget kind's input.
        let drags = events.filter { $0.kind == .input && $0.callback == "drag" }
        #expect(drags.map(\.widgetKind) == ["Slider", "ScrollView", "Slider", "Slider", "Slider"])
        // The scroll view's callbacks: the volume controls do not implement them.
        #expect(
            events.filter { $0.widgetKind == "ScrollView" && $0.kind == .callback }.allSatisfy {
                $0.implemented == false
            })
    }

    @Test func aSessionIsRecordedInCode() throws {
        let summary = try recordInCode(database: database)
        #expect((summary.inputs, summary.vetoes) == (4, 1))
        let session = try AuditStore(path: database, access: .read).session(summary.session)
        #expect(session.delegate == "volume.v1")
        let events = try timeline(summary.session)
        #expect(events.filter { $0.kind == .input }.map(\.callback) == ["drag", "drag", "drag", "reset"])
        #expect(events.filter { $0.kind == .input }.map(\.result) == ["0.4", "0.4", "0.6", "0.0"])
        #expect(events.filter { $0.callback == proposed }.map(\.overridden) == [true, true])
        // The label the app read after the inputs: asked outside any input, at the top level.
        let read = try #require(events.last)
        #expect((read.callback, read.kind, read.parentSeq, read.result) == (label, .callback, nil, #""muted""#))
    }

    // MARK: 2. Replaying against the recording delegate

    @Test(arguments: [ReplayMode.interaction, .isolated])
    func bothSessionsReplayIdenticallyAgainstV1(mode: ReplayMode) throws {
        let fromFile = try recordScenario(database: database).session
        let inCode = try recordInCode(database: database).session
        for session in [fromFile, inCode] {
            let report = try replay(session, "volume.v1", mode)
            #expect(report.identical, "session \(session): \(report.diff.differences.map(describe))")
            #expect(report.inputsSkipped == 0)
        }
    }

    // MARK: 3. Replaying against the changed delegate

    @Test func isolatedReplayFindsExactlyThePlantedChanges() throws {
        let planted = [
            "result_changed \(proposed)", "result_changed \(proposed)", "result_changed \(label)",
        ]
        // The in-code session also has the label the app read after the reset, asked again at its
        // place (outside any input): at 0, V2 has none.
        let sessions = [
            (try recordScenario(database: database).session, planted),
            (try recordInCode(database: database).session, planted + ["result_changed \(label)"]),
        ]
        for (session, planted) in sessions {
            let report = try replay(session, "volume.v2", .isolated)
            #expect(report.diff.differences.map(describe) == planted, "session \(session)")
            // Pinned answers keep the slider's state as recorded: the veto (which reads it) agrees.
            #expect(report.diff.differences.allSatisfy { $0.event.callback != shouldBegin })
            let first = try #require(report.firstDivergence)
            #expect(first.difference.event.callback == proposed)
            #expect(first.difference.a?.result == "0.4" && first.difference.b?.result == "0.25")
            let atZero = try #require(report.diff.differences.last)
            #expect(atZero.a?.result == #""muted""# && atZero.b?.result == "null")
        }
    }

    @Test func interactionReplayDivergesFirstAtThePlantedCallback() throws {
        let session = try recordScenario(database: database).session
        let report = try replay(session, "volume.v2", .interaction)
        #expect(!report.identical)
        let first = try #require(report.firstDivergence)
        #expect(first.difference.kind == .resultChanged)
        #expect(first.difference.event.callback == proposed)
        #expect(first.input?.callback == "drag")
        #expect(first.input?.arguments == #"{"value":0.37}"#)
        // Driving on with other answers: the slider's own state differs from then on.
        #expect(report.diff.differences.contains { $0.kind == .argumentsChanged && $0.event.callback == didChange })
        #expect(report.diff.differences.contains { describe($0) == "result_changed \(label)" })
    }

    // MARK: 4. Minimizing

    @Test func theDivergenceMinimizesToOneDrag() throws {
        let session = try recordScenario(database: database).session
        let result = try Minimizer(databasePath: database, registry: .volume, catalog: catalog)
            .minimize(session: session, delegate: "volume.v2")
        #expect(result.originalCount == 8)
        #expect(result.steps.count < result.originalCount)
        #expect(result.steps.count == 1)
        let step = try #require(result.steps.first)
        #expect((step.action, step.widget) == ("drag", "screen/volume"))
        #expect(!result.stoppedAtBound)

        // The minimized scenario still diverges the same way.
        let minimized = try Scenario(data: Data(result.scenario.utf8), catalog: catalog)
        #expect(minimized.steps.count == 1)
        let scratch = try TemporaryDirectory()
        let recorded = try ScenarioRunner.record(
            minimized, delegate: "volume.v1", registry: .volume, databasePath: scratch.path("min.sqlite"))
        let report = try Replayer(databasePath: scratch.path("min.sqlite"), registry: .volume, catalog: catalog)
            .replay(session: recorded.session, delegate: "volume.v2", mode: .interaction)
        #expect(report.firstDivergence?.difference.event.callback == proposed)
        #expect(report.firstDivergence?.difference.kind == .resultChanged)
    }

    @Test func thereIsNothingToMinimizeAgainstTheSameDelegate() throws {
        let session = try recordScenario(database: database).session
        #expect(throws: Minimizer.Failure.self) {
            try Minimizer(databasePath: database, registry: .volume, catalog: catalog)
                .minimize(session: session, delegate: "volume.v1")
        }
    }
}
