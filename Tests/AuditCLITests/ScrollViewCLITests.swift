import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// The scroll view's new callbacks and scenario field, through the built `auditctl`.
@Suite("auditctl: scroll view callbacks and fields")
struct ScrollViewCLITests {
    @Test func callbacksListsTheDecelerationCallbacks() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.run(["callbacks", "--format", "csv"])
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let records = parseCSV(run.stdout)
        for name in ["scrollViewWillBeginDecelerating(_:)", "scrollViewDidEndDecelerating(_:)"] {
            #expect(records.contains { $0[0] == "callback" && $0[1] == "ScrollViewDelegate" && $0[2] == name })
        }
    }

    @Test(arguments: [#""no""#, "1", "null"])
    func aScrollsToTopThatIsNotABooleanIsRefusedAndTheDatabaseIsUnchanged(value: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let text = BadInputTests.example(replacing: #""scrollsToTop": false,"#, with: #""scrollsToTop": \#(value),"#)
        try sandbox.write("s.json", text)
        let run = try sandbox.run(["record", "--scenario", "s.json"])
        expectError(run, "s.json: root.children[2].scrollsToTop: expected true or false")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test func aTouchDragOfTheExampleTermsIsRecordedUnderTheTouch() throws {
        let sandbox = try Sandbox()
        let drag = #"""
            { "action": "touches", "widget": "checkout", "events": [
              { "id": 9, "phase": "began", "x": 100, "y": 690, "t": 0 },
              { "id": 9, "phase": "moved", "x": 100, "y": 670, "t": 0.125 },
              { "id": 9, "phase": "moved", "x": 100, "y": 640, "t": 0.25 },
              { "id": 9, "phase": "ended", "x": 100, "y": 640, "t": 0.375 }
            ] },
            { "action": "tapStatusBar", "widget": "checkout/terms" },
            """#
        let text = BadInputTests.example(
            replacing: #"{ "action": "tapStatusBar", "widget": "checkout/terms" },"#, with: drag)
        try sandbox.write("s.json", text)
        let record = try sandbox.run(["record", "--scenario", "s.json"])
        expectEqual(record.status, 0, "\(record)")
        let query = try sandbox.run([
            "query", "--format", "csv",
            """
            select t.callback from timeline t join timeline p on p.session = t.session and p.seq = t.parent_seq
            where p.callback = 'touch' and p.widget = 'checkout/terms' and t.widget = 'checkout/terms'
            order by t.seq
            """,
        ])
        expectEqual(query.status, 0, "\(query)")
        let callbacks = parseCSV(query.stdout).dropFirst().map { $0[0] }
        expectEqual(callbacks.first, "scrollViewWillBeginDragging(_:)")
        #expect(callbacks.contains("scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)"))
        expectEqual(callbacks.last, "scrollViewDidEndDecelerating(_:)")
    }
}
