import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Text view under audit")
struct TextViewAuditTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    @Test func everyCallbackIsRecordedWithArgumentsResultAndVeto() throws {
        let view = TextView(identifier: "t", text: "请在门口")
        let delegate = LoggingTextDelegate()
        var asked = (begin: 0, end: 0)
        delegate.allowsBegin = { _ in
            asked.begin += 1
            return asked.begin > 1
        }
        delegate.allowsChange = { _, _, text in text != "!" }
        delegate.allowsEnd = { _ in
            asked.end += 1
            return asked.end > 1
        }
        view.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.beginEditing()  // vetoed
        view.type("!")  // begins editing first; the change is vetoed
        view.select(TextRange(location: 1, length: 2))
        view.type("到")
        view.replace(TextRange(location: 0, length: 1), with: "您")
        view.select(.caret(at: 1))  // already the selection: no callback
        view.endEditing()  // vetoed
        view.endEditing()
        let summary = recorder.finish()
        expectEqual(summary.vetoes, 3)
        expectEqual(summary.inputs, 8)
        expectEqual(summary.callbacks, delegate.calls.count)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        // A state records the text's UTF-16 length and digest, not the text.
        let state = { (editing: Bool, location: Int, length: Int, text: String) in
            #"{"editing":\#(editing),"length":\#(text.utf16.count),"selection":{"length":\#(length),"location":\#(location)},"textHash":"\#(TextDigest.hexadecimal(text))"}"#
        }
        expectEqual(
            timelineLines(events),
            [
                #"1 - input t beginEditing {} \#(state(false, 4, 0, "请在门口")) - -"#,
                #"2 1 callback t textViewShouldBeginEditing(_:) {} false true true"#,
                #"3 - input t typeText {"text":"!"} \#(state(true, 4, 0, "请在门口")) - -"#,
                #"4 3 callback t textViewShouldBeginEditing(_:) {} true false true"#,
                #"5 3 callback t textViewDidBeginEditing(_:) {} void - true"#,
                #"6 3 callback t textView(_:shouldChangeTextIn:replacementText:) {"range":{"length":0,"location":4},"replacementText":"!"} false true true"#,
                #"7 - input t selectText {"range":{"length":2,"location":1}} \#(state(true, 1, 2, "请在门口")) - -"#,
                #"8 7 callback t textViewDidChangeSelection(_:) {} void - true"#,
                #"9 - input t typeText {"text":"到"} \#(state(true, 2, 0, "请到口")) - -"#,
                #"10 9 callback t textView(_:shouldChangeTextIn:replacementText:) {"range":{"length":2,"location":1},"replacementText":"到"} true false true"#,
                #"11 9 callback t textViewDidChange(_:) {} void - true"#,
                #"12 9 callback t textViewDidChangeSelection(_:) {} void - true"#,
                #"13 - input t replaceText {"range":{"length":1,"location":0},"text":"您"} \#(state(true, 1, 0, "您到口")) - -"#,
                #"14 13 callback t textView(_:shouldChangeTextIn:replacementText:) {"range":{"length":1,"location":0},"replacementText":"您"} true false true"#,
                #"15 13 callback t textViewDidChange(_:) {} void - true"#,
                #"16 13 callback t textViewDidChangeSelection(_:) {} void - true"#,
                #"17 - input t selectText {"range":{"length":0,"location":1}} \#(state(true, 1, 0, "您到口")) - -"#,
                #"18 - input t endEditing {} \#(state(true, 1, 0, "您到口")) - -"#,
                #"19 18 callback t textViewShouldEndEditing(_:) {} false true true"#,
                #"20 - input t endEditing {} \#(state(false, 1, 0, "您到口")) - -"#,
                #"21 20 callback t textViewShouldEndEditing(_:) {} true false true"#,
                #"22 20 callback t textViewDidEndEditing(_:) {} void - true"#,
            ])
        #expect(events.allSatisfy { $0.protocolName == ($0.kind == .input ? nil : "TextViewDelegate") })
        #expect(events.allSatisfy { $0.widgetKind == "TextView" })
        // What was recorded is what the app's delegate saw, in order.
        expectEqual(events.filter { $0.kind == .callback }.map { "\($0.widget!) \($0.callback)" }, delegate.selectors)
    }

    @Test func unimplementedCallbacksAreRecordedAsDefaultUsed() throws {
        let view = TextView(identifier: "t", text: "ab")
        let delegate = DidChangeOnlyTextDelegate()
        view.delegate = delegate
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.type("c")
        view.select(.caret(at: 0))
        view.endEditing()
        let session = recorder.finish().session
        expectEqual(delegate.texts, ["abc"])
        let callbacks = try AuditStore(path: database, access: .read).timeline(of: session)
            .filter { $0.kind == .callback }
        expectEqual(
            callbacks.map(\.callback),
            [
                "textViewShouldBeginEditing(_:)", "textViewDidBeginEditing(_:)",
                "textView(_:shouldChangeTextIn:replacementText:)", "textViewDidChange(_:)",
                "textViewDidChangeSelection(_:)", "textViewDidChangeSelection(_:)", "textViewShouldEndEditing(_:)",
                "textViewDidEndEditing(_:)",
            ])
        expectEqual(callbacks.map(\.implemented), [false, false, false, true, false, false, false, false])
        // Defaults are UIKit's: every should-callback allows.
        expectEqual(callbacks.map(\.result), ["true", nil, "true", nil, nil, nil, "true", nil])
        expectEqual(callbacks.map(\.vetoed), [false, nil, false, nil, nil, nil, false, nil])
    }

    @Test func withoutAnAppDelegateDefaultsAreRecorded() throws {
        let view = TextView(identifier: "t")
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        view.type("a")
        let session = recorder.finish().session
        expectEqual(view.text, "a")
        let callbacks = try AuditStore(path: database, access: .read).timeline(of: session)
            .filter { $0.kind == .callback }
        expectEqual(callbacks.count, 5)
        #expect(callbacks.allSatisfy { $0.implemented == false })
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func auditingNeverChangesBehaviour(seed: UInt64) throws {
        let (plain, summary) = try expectAuditingChangesNothing(database: database) { recorder in
            let run = runRandomTextInputs(seed: seed, count: 400, recorder: recorder)
            return (run.delegate.calls, run.state)
        }
        #expect(summary.inputs >= 400)
        // The run is rich enough to mean something: every kind of call, vetoes and nested inputs.
        let calls = plain.calls.joined(separator: "\n")
        for needle in ["shouldBegin -> false", "shouldChange", "-> false", "shouldEnd -> false", "didReachLimit"] {
            #expect(calls.contains(needle), "\(needle)")
        }
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        #expect(events.contains { $0.kind == .input && $0.parentSeq != nil })
    }

    @Test func reassigningTheDelegateRetargetsAtOnceAndDetachStopsRecording() throws {
        let view = TextView(identifier: "t")
        let first = LoggingTextDelegate()
        view.delegate = first
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: view)
        let second = LoggingTextDelegate()
        second.allowsBegin = { _ in false }
        view.delegate = second
        #expect(view.delegate === second)
        view.beginEditing()
        #expect(first.calls.isEmpty)
        expectEqual(second.calls, ["t.shouldBegin -> false"])
        recorder.detach(from: view)
        second.allowsBegin = { _ in true }
        view.beginEditing()
        expectEqual(second.calls, ["t.shouldBegin -> false", "t.shouldBegin -> true", "t.didBegin editing=true"])
        let summary = recorder.finish()
        expectEqual(summary.callbacks, 1)
        expectEqual(summary.inputs, 1)
    }

    @Test func viewAndDelegateLeaveNoRetainCycle() throws {
        weak var weakView: TextView?
        weak var weakDelegate: LoggingTextDelegate?
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        do {
            let view = TextView(identifier: "t")
            let delegate = LoggingTextDelegate()
            view.delegate = delegate
            try recorder.attach(to: view)
            view.type("a")
            view.endEditing()
            weakView = view
            #expect(view.auditLink != nil)
            weakDelegate = delegate
        }
        #expect(weakView == nil)
        #expect(weakDelegate == nil)
        recorder.finish()
    }
}
