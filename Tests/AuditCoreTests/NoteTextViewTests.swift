import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Note text view: a subclass that relays its delegate")
struct NoteTextViewTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }
    let delegate = LoggingTextDelegate()

    func note(_ text: String = "", limit: Int? = nil, editing: Bool = false) -> NoteTextView {
        let note = NoteTextView(identifier: "n", text: text, characterLimit: limit)
        if editing { note.beginEditing() }
        note.delegate = delegate
        return note
    }

    /// Drives `view` through every input, so every inherited callback fires.
    func driveEveryInput(_ view: TextView) {
        view.beginEditing()
        view.type("请")
        view.select(TextRange(location: 0, length: 4))
        view.replace(TextRange(location: 0, length: 4), with: "👍")
        view.endEditing()
    }

    @Test func delegateIsTheAppsWhileTheSuperclassSlotHoldsTheNote() {
        let note = note("👍🏽 ok")
        #expect(note.delegate === delegate)
        #expect((note as TextView).delegate === delegate)
        expectEqual(note.widgetKind, "NoteTextView")
        let other = LoggingTextDelegate()
        (note as TextView).delegate = other
        #expect(note.delegate === other)
        note.beginEditing()
        #expect(delegate.calls.isEmpty)
        expectEqual(other.calls, ["n.shouldBegin -> true", "n.didBegin editing=true"])
    }

    @Test func withoutALimitEveryCallReachesTheAppOnceAsFromATextView() {
        driveEveryInput(note("👍🏽 ok"))
        let plain = TextView(identifier: "n", text: "👍🏽 ok")
        let plainDelegate = LoggingTextDelegate()
        plain.delegate = plainDelegate
        driveEveryInput(plain)
        expectEqual(delegate.calls, plainDelegate.calls)
        expectEqual(delegate.calls.count, 11)
    }

    @Test func theLimitRefusesAChangeWithoutAskingTheApp() {
        let note = note("请在门口", limit: 5, editing: true)
        note.type("ab")
        expectEqual(note.text, "请在门口")
        expectEqual(note.selectedRange, .caret(at: 4))
        #expect(delegate.calls.isEmpty)
    }

    @Test func reachingTheLimitIsReportedAfterDidChangeAndBeforeTheSelection() {
        let note = note("abc", limit: 4, editing: true)
        note.type("d")
        expectEqual(
            delegate.calls,
            [
                #"n.shouldChange {3, 0} "d" in "abc" -> true"#, #"n.didChange "abcd" {4, 0}"#, "n.didReachLimit 4",
                "n.didChangeSelection {4, 0}",
            ])
        delegate.calls.removeAll()
        note.type("e")  // refused by the limit: the app hears nothing
        note.replace(TextRange(location: 3, length: 1), with: "")
        note.type("D")  // reaches the limit again
        expectEqual(note.text, "abcD")
        expectEqual(
            delegate.calls,
            [
                #"n.shouldChange {3, 1} "" in "abcd" -> true"#, #"n.didChange "abc" {3, 0}"#,
                "n.didChangeSelection {3, 0}", #"n.shouldChange {3, 0} "D" in "abc" -> true"#,
                #"n.didChange "abcD" {4, 0}"#, "n.didReachLimit 4",
                "n.didChangeSelection {4, 0}",
            ])
    }

    @Test func withinTheLimitTheAppDecides() {
        let note = note("abc", limit: 4, editing: true)
        delegate.allowsChange = { _, _, _ in false }
        note.type("d")
        expectEqual(note.text, "abc")
        expectEqual(delegate.calls, [#"n.shouldChange {3, 0} "d" in "abc" -> false"#])
    }

    @Test func changesThatAddNoCharactersAlwaysReachTheApp() {
        // Over the limit from the start: cutting and shrinking replacements are the app's to decide.
        let note = note("abcdef", limit: 3, editing: true)
        note.replace(TextRange(location: 0, length: 1), with: "")
        note.type("x")  // 6 characters: more than the limit and than now
        note.replace(TextRange(location: 0, length: 2), with: "z")
        expectEqual(note.text, "zdef")
        expectEqual(
            delegate.calls.filter { $0.contains("shouldChange") },
            [
                #"n.shouldChange {0, 1} "" in "abcdef" -> true"#, #"n.shouldChange {0, 2} "z" in "bcdef" -> true"#,
            ])
        #expect(!delegate.calls.contains { $0.contains("didReachLimit") })
    }

    @Test func aModifierThatMergesIntoTheLastCharacterCountsItsUnits() {
        // "👍" is 2 UTF-16 units, "👍🏽" 4: one Character either way, but the modifier reaches the limit.
        let note = note("👍", limit: 4, editing: true)
        note.type("🏽")
        expectEqual(note.text, "👍🏽")
        expectEqual(delegate.calls.count, 4)  // should, did, reached, selection
        #expect(delegate.calls.contains("n.didReachLimit 4"))
    }

    @Test func underAuditEachCallTheAppSeesIsRecordedOnceWithItsProtocol() throws {
        let note = note("ab", limit: 3)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: note)
        note.type("c")  // begins editing and reaches the limit
        note.type("d")  // refused by the limit: only the input is recorded
        note.select(TextRange(location: 0, length: 1))
        note.endEditing()
        let summary = recorder.finish()
        expectEqual(summary.vetoes, 0)

        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let state = { (editing: Bool, location: Int, length: Int) in
            #"{"editing":\#(editing),"length":3,"selection":{"length":\#(length),"location":\#(location)},"textHash":"\#(TextDigest.hexadecimal("abc"))"}"#
        }
        expectEqual(
            timelineLines(events),
            [
                #"1 - input n typeText {"text":"c"} \#(state(true, 3, 0)) - -"#,
                #"2 1 callback n textViewShouldBeginEditing(_:) {} true false true"#,
                #"3 1 callback n textViewDidBeginEditing(_:) {} void - true"#,
                #"4 1 callback n textView(_:shouldChangeTextIn:replacementText:) {"range":{"length":0,"location":2},"replacementText":"c"} true false true"#,
                #"5 1 callback n textViewDidChange(_:) {} void - true"#,
                #"6 1 callback n noteTextView(_:didReachCharacterLimit:) {"limit":3} void - true"#,
                #"7 1 callback n textViewDidChangeSelection(_:) {} void - true"#,
                #"8 - input n typeText {"text":"d"} \#(state(true, 3, 0)) - -"#,
                #"9 - input n selectText {"range":{"length":1,"location":0}} \#(state(true, 0, 1)) - -"#,
                #"10 9 callback n textViewDidChangeSelection(_:) {} void - true"#,
                #"11 - input n endEditing {} \#(state(false, 0, 1)) - -"#,
                #"12 11 callback n textViewShouldEndEditing(_:) {} true false true"#,
                #"13 11 callback n textViewDidEndEditing(_:) {} void - true"#,
            ])
        let protocols = events.filter { $0.kind == .callback }.map(\.protocolName)
        expectEqual(protocols.filter { $0 == "NoteTextViewDelegate" }.count, 1)
        expectEqual(protocols.filter { $0 == "TextViewDelegate" }.count, 8)
        expectEqual(events[5].protocolName, "NoteTextViewDelegate")
        #expect(events.allSatisfy { $0.widgetKind == "NoteTextView" })
        expectEqual(events.filter { $0.kind == .callback }.map { "\($0.widget!) \($0.callback)" }, delegate.selectors)
    }

    @Test func aPlainTextViewDelegateGetsTheNewCallbacksDefault() throws {
        let note = NoteTextView(identifier: "n", characterLimit: 1)
        let plain = DidChangeOnlyTextDelegate()
        note.delegate = plain
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: note)
        note.type("a")
        let session = recorder.finish().session
        expectEqual(plain.texts, ["a"])
        let events = try AuditStore(path: database, access: .read).timeline(of: session)
        let reached = try #require(events.first { $0.callback == "noteTextView(_:didReachCharacterLimit:)" })
        expectEqual(reached.protocolName, "NoteTextViewDelegate")
        expectEqual(reached.implemented, false)
        expectEqual(reached.arguments, #"{"limit":1}"#)
        expectEqual(events.first { $0.callback == "textViewDidChange(_:)" }?.implemented, true)
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func recordedCallbacksAreExactlyWhatTheAppSaw(seed: UInt64) throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let run = runRandomTextInputs(seed: seed, count: 400, recorder: recorder)
        let summary = recorder.finish()
        let callbacks = try AuditStore(path: database, access: .read).timeline(of: summary.session)
            .filter { $0.kind == .callback }
        expectEqual(callbacks.map { "\($0.widget!) \($0.callback)" }, run.delegate.selectors)
        for event in callbacks {
            let expected =
                event.callback == "noteTextView(_:didReachCharacterLimit:)"
                ? "NoteTextViewDelegate" : "TextViewDelegate"
            expectEqual(event.protocolName, expected)
        }
        #expect(callbacks.contains { $0.widget == "root/note" && $0.protocolName == "NoteTextViewDelegate" })
    }

    @Test func reassigningTheDelegateRetargetsAtOnceAndDetachStopsRecording() throws {
        let note = note("ab", limit: 3)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: note)
        let second = LoggingTextDelegate()
        note.delegate = second
        note.type("c")
        #expect(delegate.calls.isEmpty)
        expectEqual(second.calls.count, 6)
        recorder.detach(from: note)
        note.replace(TextRange(location: 0, length: 1), with: "")
        expectEqual(second.calls.count, 9)
        let summary = recorder.finish()
        expectEqual(summary.callbacks, 6)
        expectEqual(summary.inputs, 1)
    }

    @Test func adoptsATextViewDelegate() {
        let note = NoteTextView(identifier: "n")
        ScenarioRunner.adopt(delegate, in: note, catalog: .builtIn)
        #expect(note.delegate === delegate)
    }

    @Test func delegateIsHeldWeakly() {
        let note = NoteTextView(identifier: "n")
        do {
            let delegate = LoggingTextDelegate()
            note.delegate = delegate
        }
        #expect(note.delegate == nil)
        note.type("a")  // the relay passes calls on to no one: defaults apply
        expectEqual(note.text, "a")
    }

    @Test func noteAndDelegateLeaveNoRetainCycle() throws {
        weak var weakNote: NoteTextView?
        weak var weakDelegate: LoggingTextDelegate?
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        do {
            let note = NoteTextView(identifier: "n", characterLimit: 1)
            let delegate = LoggingTextDelegate()
            note.delegate = delegate
            try recorder.attach(to: note)
            note.type("a")
            note.endEditing()
            #expect(delegate.calls.contains("n.didReachLimit 1"))
            weakNote = note
            #expect(note.auditLink != nil)
            weakDelegate = delegate
        }
        #expect(weakNote == nil)
        #expect(weakDelegate == nil)
        recorder.finish()
    }
}
