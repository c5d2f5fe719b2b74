import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// The package's widget kinds are registered through the public `WidgetKind` initializer, their
/// properties `Codable` values with a `check`: each mistake in a scenario's widget object is named
/// by its path and what was expected, as for a user's kind.
@Suite("Built-in kinds: property errors through the public registration")
struct BuiltInPropertyTests {
    static let cases: [(widget: String, error: String)] = [
        (#""kind":"SegmentedControl","segments":"a""#, "root.children[0].segments: expected an array"),
        (#""kind":"SegmentedControl","segments":["a",1]"#, "root.children[0].segments[1]: expected a string"),
        (
            #""kind":"SegmentedControl","segments":[]"#,
            "root.children[0].segments: a segmented control needs at least one segment"
        ),
        (
            #""kind":"SegmentedControl","segments":["a"],"selected":1.5"#,
            "root.children[0].selected: expected an integer"
        ),
        (
            #""kind":"SegmentedControl","segments":["a"],"selected":null"#,
            "root.children[0].selected: expected an integer"
        ),
        (
            #""kind":"SegmentedControl","segments":["a"],"selected":3"#,
            "root.children[0].selected: segment 3 is out of range 0..<1 (or -1 for none)"
        ),
        (#""kind":"SegmentedControl","segments":["a"],"selcted":0"#, "root.children[0].selcted: unknown field"),
        (#""kind":"ScrollView","contentSize":[1]"#, "root.children[0].contentSize: expected [a, b]"),
        (#""kind":"ScrollView","contentSize":[1,-1]"#, "root.children[0].contentSize[1]: must not be negative"),
        // The sign is judged before the size: -2e7 is told what -1 is told.
        (#""kind":"ScrollView","contentSize":[1,-2e7]"#, "root.children[0].contentSize[1]: must not be negative"),
        (#""kind":"View","frame":[0,0,-2e7,5]"#, "root.children[0].frame: width and height must not be negative"),
        (#""kind":"View","frame":[0,0,5,2e7]"#, "root.children[0].frame[3]: must be between -10000000 and 10000000"),
        (
            #""kind":"ScrollView","contentSize":[1,1],"contentOffset":[2e7,0]"#,
            "root.children[0].contentOffset[0]: must be between -10000000 and 10000000"
        ),
        (
            #""kind":"ScrollView","contentSize":[1,1],"scrollsToTop":1"#,
            "root.children[0].scrollsToTop: expected true or false"
        ),
        (#""kind":"TableView","rows":[3,-1]"#, "root.children[0].rows[1]: must be at least 0"),
        (
            #""kind":"TableView","rows":[3],"rowHeight":0"#,
            "root.children[0].rowHeight: must be more than 0 and at most 10000.0"
        ),
        (#""kind":"NoteTextView","characterLimit":-1"#, "root.children[0].characterLimit: must be at least 0"),
        (#""kind":"NoteTextView","text":7"#, "root.children[0].text: expected a string"),
        (#""kind":"TextView","secure":"yes""#, "root.children[0].secure: expected true or false"),
    ]

    @Test(arguments: cases)
    func aBadPropertyIsNamedByItsPath(widget: String, error: String) {
        let text =
            #"{"name":"s","root":{"kind":"View","id":"root","children":[{"id":"w","#
            + widget + "}]},\"steps\":[]}"
        #expect {
            try Scenario(data: Data(text.utf8), catalog: .builtIn)
        } throws: { thrown in
            "\(thrown)" == error
        }
    }

    /// What a kind describes of a live widget reads back as the same widget.
    @Test func describedPropertiesBuildTheSameWidget() throws {
        let scenario = try Scenario(
            data: Data(
                #"""
                {"name":"s","root":{"kind":"View","id":"root","children":[
                  {"kind":"SegmentedControl","id":"seg","segments":["a","b"],"selected":1},
                  {"kind":"NoteTextView","id":"note","text":"hi","secure":true,"characterLimit":5},
                  {"kind":"TableView","id":"table","rows":[2,3],"rowHeight":30,"contentOffset":[0,12],
                   "scrollsToTop":false}]},"steps":[]}
                """#.utf8), catalog: .builtIn)
        let root = scenario.root.build()
        for (path, kind) in [
            ("root/seg", WidgetKind.segmentedControl), ("root/note", .noteTextView), ("root/table", .tableView),
        ] {
            let view = try #require(root.view(atPath: path))
            var fields = kind.describe(view)
            fields["kind"] = .string(kind.name)
            fields["id"] = .string("copy")
            let copy = try WidgetSpec(.object(fields), at: "", catalog: .builtIn).build()
            expectEqual(kind.describe(copy), kind.describe(view), "\(path)")
        }
    }

    /// A built-in input performed in code with arguments its check refuses does nothing and is
    /// listed, as a user's widget's is (it used to stop the process, and to be checked twice).
    @Test func aBuiltInInputItsCheckRefusesIsListedNotRecorded() throws {
        let database = FileManager.default.temporaryDirectory
            .appendingPathComponent("builtin-refused-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        let root = View(identifier: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let scroll = ScrollView(
            identifier: "s", frame: Rect(x: 0, y: 0, width: 100, height: 100),
            contentSize: Size(width: 100, height: 500))
        let text = TextView(identifier: "t", frame: .zero, text: "abc")
        root.addSubview(scroll)
        root.addSubview(text)
        let recorder = try Recorder(
            databasePath: database, session: NewSession(recordedInCode: "refused", delegate: "none"), catalog: .builtIn)
        try recorder.attach(to: root)
        scroll.drag(by: Point(x: 0, y: 10))  // not dragging: refused
        text.select(TextRange(location: 2, length: 5))  // past the text: refused
        text.select(TextRange(location: 1, length: 1))
        recorder.detach(from: root)
        let summary = recorder.finish()
        expectEqual(
            summary.refusedInputs,
            [
                "drag on root/s refused: root/s is not being dragged (begin a drag first)",
                "selectText on root/t refused: range {2, 5} lies outside the text, which is 3 UTF-16 units long",
            ])
        #expect(summary.inputs == 1 && text.selectedRange == TextRange(location: 1, length: 1))
        expectEqual(scroll.contentOffset, Point(x: 0, y: 0))
    }
}
