import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Inputs nested inside delegate callbacks, deeper than `InputNesting.limit`: refused the same way
/// with and without a recorder, reported as an error naming the step, never a crash.
@Suite("Input nesting limit")
struct NestingLimitTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// A row of `count` two-segment controls `c0`…, and one step tapping segment 1 of `c0`: with
    /// `LinkedControlsDelegate` each selection selects in the next control, `count` inputs deep.
    static func chain(_ count: Int) throws -> Scenario {
        let controls = (0..<count).map { index in
            #"{"kind":"SegmentedControl","id":"c\#(index)","frame":[0,\#(index),100,1],"segments":["a","b"],"selected":0}"#
        }
        let text = #"""
            {"name":"chain","delegate":"linked","root":{"kind":"View","id":"root","frame":[0,0,100,\#(count)],
             "children":[\#(controls.joined(separator: ","))]},
             "steps":[{"action":"tapSegment","widget":"root/c0","segment":1}]}
            """#
        return try Scenario(data: Data(text.utf8), catalog: .builtIn)
    }

    /// `LinkedControlsDelegate`, logging each call and the stack address at each did-callback.
    final class LoggingLinkedDelegate: SegmentedControlDelegate {
        let linked = LinkedControlsDelegate()
        var calls: [String] = []
        var stackAddresses: [UInt] = []

        func segmentedControl(_ segmentedControl: SegmentedControl, shouldSelectSegmentAt index: Int) -> Bool {
            calls.append("\(segmentedControl.identifier).should(\(index))")
            return true
        }

        func segmentedControl(
            _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
        ) {
            calls.append("\(segmentedControl.identifier).did(\(index))")
            var marker = 0
            stackAddresses.append(withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) })
            linked.segmentedControl(segmentedControl, didSelectSegmentAt: index, userInteracted: userInteracted)
        }
    }

    /// Runs `scenario` with a fresh logging delegate, under `recorder` when given.
    static func run(_ scenario: Scenario, recorder: Recorder?) -> (
        calls: [String], error: ScenarioError?, stack: [UInt]
    ) {
        let delegate = LoggingLinkedDelegate()
        do {
            try ScenarioRunner.run(scenario, delegate: delegate, recorder: recorder)
            return (delegate.calls, nil, delegate.stackAddresses)
        } catch {
            return (delegate.calls, error, delegate.stackAddresses)
        }
    }

    @Test func theLimitIsReachedTheSameWithAndWithoutARecorder() throws {
        let scenario = try Self.chain(100)
        let plain = Self.run(scenario, recorder: nil)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let audited = Self.run(scenario, recorder: recorder)
        let summary = recorder.finish()

        expectEqual(audited.calls, plain.calls)
        expectEqual(audited.error?.description, plain.error?.description)
        let error = try #require(plain.error)
        expectEqual(error.location, "steps[0]")
        expectEqual(
            error.message,
            "input selectSegment on root/c32 would nest 33 inputs deep, past the limit of 32 "
                + "(delegates that drive widgets from inside their callbacks)")
        // c0 … c31 each asked and told; c31's selection of c32 is the 33rd input, refused.
        expectEqual(plain.calls.count, 2 * InputNesting.limit)
        expectEqual(plain.calls.suffix(2), ["c31.should(1)", "c31.did(1)"])
        expectEqual(summary.inputs, InputNesting.limit)
        expectEqual(summary.callbacks, plain.calls.count)
        expectEqual(InputNesting.depth, 0)
        #expect(InputNesting.takeRefusal() == nil)
    }

    @Test func aChainExactlyAtTheLimitRuns() throws {
        let plain = Self.run(try Self.chain(InputNesting.limit), recorder: nil)
        #expect(plain.error == nil)
        expectEqual(plain.calls.last, "c31.did(1)")
    }

    @Test func aChainThousandsDeepIsRefusedBeforeTheDatabaseIsOpened() throws {
        #expect {
            try ScenarioRunner.record(
                try Self.chain(3000), delegate: { LoggingLinkedDelegate() }, named: "linked", databasePath: database)
        } throws: { error in
            (error as? ScenarioError)?.location == "steps[0]"
        }
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// Two controls whose delegate selects the other's other segment from every did-callback: a
    /// chain without end, stopped at the limit the same way audited or not.
    @Test func aPingPongWithoutEndStopsAtTheLimit() throws {
        func pingPong(recorder: Recorder?) -> (calls: [String], refusal: InputNestingError?, selected: [Int]) {
            let root = View(identifier: "root")
            let a = SegmentedControl(identifier: "a", segments: ["x", "y"], selectedSegmentIndex: 0)
            let b = SegmentedControl(identifier: "b", segments: ["x", "y"], selectedSegmentIndex: 0)
            root.addSubview(a)
            root.addSubview(b)
            let delegate = LoggingDelegate()
            delegate.onDidSelect = { control, index in
                let other = control === a ? b : a
                other.setSelectedSegmentIndex(1 - other.selectedSegmentIndex, notify: true)
            }
            a.delegate = delegate
            b.delegate = delegate
            try? recorder?.attach(to: root)
            a.tapSegment(1)
            recorder?.detach(from: root)
            return (delegate.calls, InputNesting.takeRefusal(), [a.selectedSegmentIndex, b.selectedSegmentIndex])
        }
        let plain = pingPong(recorder: nil)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let audited = pingPong(recorder: recorder)
        let summary = recorder.finish()
        expectEqual(audited.calls, plain.calls)
        expectEqual(audited.refusal, plain.refusal)
        expectEqual(audited.selected, plain.selected)
        expectEqual(plain.refusal?.depth, InputNesting.limit + 1)
        expectEqual(plain.calls.count, 2 * InputNesting.limit)
        expectEqual(summary.inputs, InputNesting.limit)
    }

    /// `LinkedControlsDelegate` that does not select past control `last`.
    final class StoppingLinkedDelegate: SegmentedControlDelegate {
        let linked = LinkedControlsDelegate()
        let last: String

        init(last: String) { self.last = last }

        func segmentedControl(
            _ segmentedControl: SegmentedControl, didSelectSegmentAt index: Int, userInteracted: Bool
        ) {
            guard segmentedControl.identifier != last else { return }
            linked.segmentedControl(segmentedControl, didSelectSegmentAt: index, userInteracted: userInteracted)
        }
    }

    /// Recorded exactly at the limit; the candidate would go one level deeper. Its refused input
    /// leaves no event, so the events compare equal, but the replay is not identical.
    @Test(arguments: [ReplayMode.interaction, .isolated])
    func aCandidateRefusedOneLevelPastTheRecordingIsNotIdentical(mode: ReplayMode) throws {
        let summary = try ScenarioRunner.record(
            try Self.chain(40), delegate: { StoppingLinkedDelegate(last: "c31") }, named: "stopping",
            databasePath: database)
        expectEqual(summary.inputs, InputNesting.limit)
        let replayer = Replayer(databasePath: database, registry: DelegateRegistry(), catalog: .builtIn)
        let same = try replayer.replay(
            session: summary.session, candidate: { StoppingLinkedDelegate(last: "c31") }, named: "stopping",
            mode: mode)
        #expect(same.identical)
        #expect(same.nestingRefused == nil)
        let deeper = try replayer.replay(
            session: summary.session, candidate: { LinkedControlsDelegate() }, named: "linked", mode: mode)
        #expect(deeper.diff.identical)
        expectEqual(
            deeper.nestingRefused?.description,
            "steps[0]: input selectSegment on root/c32 would nest 33 inputs deep, past the limit of 32 "
                + "(delegates that drive widgets from inside their callbacks)")
        #expect(!deeper.identical)
    }

    /// Outside a scenario, the refused input simply does not happen and is reported once.
    @Test func aRefusalOutsideARunIsReportedByTakeRefusal() throws {
        let root = try Self.chain(40).root.build()
        let delegate = LoggingLinkedDelegate()
        ScenarioRunner.adopt(delegate, in: root, catalog: .builtIn)
        (root.subviews[0] as! SegmentedControl).tapSegment(1)
        let refusal = try #require(InputNesting.takeRefusal())
        expectEqual(refusal, InputNestingError(input: "selectSegment", widget: "root/c32", depth: 33))
        expectEqual((root.subviews[31] as! SegmentedControl).selectedSegmentIndex, 1)
        expectEqual((root.subviews[32] as! SegmentedControl).selectedSegmentIndex, 0)
        #expect(InputNesting.takeRefusal() == nil)
    }

    /// The justification of the limit: its levels, audited, fit with room to spare in the
    /// smallest default stack the library may run on, a 512 KiB secondary thread.
    @Test func theLimitsLevelsRunAuditedOnAThreadWithA512KiBStack() throws {
        let scenario = try Self.chain(200)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: (calls: [String], error: ScenarioError?, stack: [UInt])?
        let thread = Thread {
            outcome = Self.run(scenario, recorder: recorder)
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        _ = recorder.finish()
        let result = try #require(outcome)
        expectEqual(result.error?.location, "steps[0]")
        expectEqual(result.calls.count, 2 * InputNesting.limit)
        let used = result.stack.first! - result.stack.last!
        #expect(used < 384 * 1024, "\(InputNesting.limit) audited levels used \(used) bytes of stack")
    }

    /// Prints the stack each level takes, with and without a recorder: the figures the limit's
    /// comment gives (`swift test --filter stackUsedPerLevel`).
    @Test func stackUsedPerLevel() throws {
        let scenario = try Self.chain(InputNesting.limit)
        let plain = Self.run(scenario, recorder: nil).stack
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let audited = Self.run(scenario, recorder: recorder).stack
        _ = recorder.finish()
        func perLevel(_ addresses: [UInt]) -> UInt { (addresses.first! - addresses.last!) / UInt(addresses.count - 1) }
        print("stack per nested input: \(perLevel(plain)) bytes plain, \(perLevel(audited)) bytes audited")
        #expect(perLevel(audited) * UInt(InputNesting.limit) < 384 * 1024)
    }
}
