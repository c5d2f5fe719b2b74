import AuditCLI
import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Testing

@Suite("auditctl coverage")
struct CoverageCommandTests {
    @Test func everyFormatAgreesOnTheTotals() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let text = try sandbox.run(["coverage"])
        expectEqual(text.status, 0, "\(text)")
        let json = try decodeJSON(try sandbox.run(["coverage", "--format", "json"]).stdout)
        guard case .int(let callbacks)? = json["total"]?["callbacks"], case .int(let called)? = json["total"]?["called"]
        else { throw SandboxError(description: "\(json)") }
        #expect(
            text.stdoutLines[0].hasPrefix("coverage of 1 session: \(called) of \(callbacks) widget callbacks called"))
        #expect(text.stdout.contains("  SegmentedControlDelegate: "))
        let csv = try sandbox.run(["coverage", "--format", "csv"]).stdoutLines.filter { !$0.isEmpty }
        expectEqual(csv.count, callbacks + 1)
        expectError(
            try sandbox.run(["coverage", "--session", "9"]),
            "no session 9 in the database (auditctl sessions lists them)")
    }

    /// A runner whose catalog lacks the sessions' widget kinds cannot count their callbacks: it
    /// refuses, rather than report 100 % of nothing.
    @Test func aRunnerWithoutTheSessionsKindsRefuses() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let bare = AuditCommandLine(
            registry: .examples, catalog: WidgetCatalog([]), environment: [:], programName: "bare-tool")
        let run = bare.capture(["coverage", "--db", sandbox.path("audit.sqlite")])
        expectEqual(run.status, 2)
        expectEqual(run.stdout, "")
        expectEqual(
            run.stderr,
            "bare-tool: error: the sessions have widgets of kinds bare-tool's catalog does not register "
                + "(SegmentedControl), whose callbacks it cannot count; run coverage with the runner that "
                + "registers them\n")
    }

    /// `--html FILE`: the same report as one page, every row of it, the text from the database
    /// escaped; written as every output file is (0600, never through a link); stdout unchanged.
    @Test func theHTMLPageHoldsEveryRowEscaped() throws {
        let sandbox = try Sandbox()
        // The shipped checkout, whose session leaves callbacks never called.
        try FileManager.default.copyItem(
            at: Sandbox.packageRoot.appendingPathComponent("Examples/checkout.json"),
            to: sandbox.directory.appendingPathComponent("shipped.json"))
        try sandbox.run(["record", "--scenario", "shipped.json"]).expectSuccess()
        let plain = try sandbox.run(["coverage"])
        let run = try sandbox.run(["coverage", "--html", "coverage.html"])
        #expect(run.status == 0 && run.stdout == plain.stdout, "\(run)")
        let page = try String(contentsOfFile: sandbox.path("coverage.html"), encoding: .utf8)
        let csv = try sandbox.run(["coverage", "--format", "csv"]).stdoutLines.dropFirst().filter { !$0.isEmpty }
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<h1>Coverage of session 1</h1>"))
        #expect(page.components(separatedBy: "<tr>").count - 1 >= csv.count, "every callback is a row")
        // Every callback never called, as the text lists it, is in the page's first table of them.
        let never = plain.stdoutLines.drop { !$0.hasPrefix("never called") }.dropFirst().prefix { $0.hasPrefix("  ") }
        #expect(!never.isEmpty)
        for line in never {
            let callback = line.split(separator: " ").last.map(String.init) ?? ""
            #expect(page.contains(callback.replacingOccurrences(of: "&", with: "&amp;")), "\(callback)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: sandbox.path("coverage.html"))[.posixPermissions]
        expectEqual(mode as? Int, 0o600)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("link.html"), withDestinationPath: sandbox.path("elsewhere.html"))
        expectError(try sandbox.run(["coverage", "--html", "link.html"]), startingWith: "cannot write the HTML page")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("elsewhere.html")))
    }

    /// `--arguments` adds, per callback called, each answer with where it was asked from and its
    /// argument classes, then the classes never tried; json has the same as fields added to each
    /// row (and csv as two columns), the existing ones unchanged.
    @Test func argumentClassesInTextJSONAndCSV() throws {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(
            at: Sandbox.packageRoot.appendingPathComponent("Examples/checkout.json"),
            to: sandbox.directory.appendingPathComponent("shipped.json"))
        try sandbox.run(["record", "--scenario", "shipped.json"]).expectSuccess()
        let plain = try sandbox.run(["coverage"])
        let text = try sandbox.run(["coverage", "--arguments"])
        expectEqual(text.status, 0, "\(text)")
        #expect(text.stdout.hasPrefix(plain.stdout), "the default output is unchanged, the section added after it")
        #expect(!plain.stdout.contains("answers by argument class"))
        let lines = text.stdoutLines
        let start = try #require(
            lines.firstIndex { $0.hasPrefix("  checkout/coupon  TextViewDelegate.textView(_:shouldChangeTextIn:") })
        expectEqual(
            Array(lines[(start + 1)...(start + 3)]),
            [
                "    allowed (1, in an input): range.length zero; range.location zero; replacementText longer, "
                    + "uppercase, digit",
                "    vetoed (1, in an input): range.length zero; range.location positive; replacementText one "
                    + "character, lowercase",
                "    never tried: range.length negative, positive; range.location negative; replacementText empty, "
                    + "whitespace, line break, other ASCII, non-ASCII",
            ])
        #expect(lines.contains("    overridden (2, in an input): otherGestureRecognizer checkout/items#reorder"))
        #expect(lines[0].hasSuffix(" argument classes tried (38%)"), "\(lines[0])")

        let json = try decodeJSON(try sandbox.run(["coverage", "--format", "json"]).stdout)
        guard case .array(let rows)? = json["callbacks"] else { throw SandboxError(description: "\(json)") }
        let coupon = try #require(
            rows.first {
                $0["widget"] == .string("checkout/coupon")
                    && $0["callback"] == .string("textView(_:shouldChangeTextIn:replacementText:)")
            })
        expectEqual(coupon["branches"], .object(["allowed": .int(1), "vetoed": .int(1)]))
        expectEqual(
            coupon["arguments"]?["replacementText"],
            .object([
                "types": .array([.string("string")]),
                "seen": .object([
                    "allowed": .array([.string("longer"), .string("uppercase"), .string("digit")]),
                    "vetoed": .array([.string("one character"), .string("lowercase")]),
                ]),
                "untried": .array(
                    ["empty", "whitespace", "line break", "other ASCII", "non-ASCII"].map(AuditValue.string)),
            ]))
        expectEqual(
            coupon["states"],
            .object(["allowed": .array([.string("in an input")]), "vetoed": .array([.string("in an input")])]))
        guard case .int(let classes)? = json["total"]?["argument_classes"],
            case .int(let tried)? = json["total"]?["argument_classes_tried"]
        else { throw SandboxError(description: "\(json)") }
        #expect(lines[0].contains(", \(tried) of \(classes) argument classes tried"))

        let csv = try sandbox.run(["coverage", "--format", "csv"]).stdoutLines
        #expect(csv[0].hasSuffix(",inputs,argument_classes_tried,argument_classes_untried,mistakes"))
    }

    /// What replay of the shipped session misses, `coverage --arguments` shows: the first row is
    /// never selected with its answer kept (row zero only with the override), and no line break is
    /// ever typed in the note, though the mutants that hang on them pass replay.
    @Test func argumentClassesShowWhatReplayMisses() throws {
        let sandbox = try Sandbox()
        let database = sandbox.path("audit.sqlite")
        let scenario = try Examples.checkout()
        let recording = try ScenarioRunner.record(
            scenario, delegate: "checkout.v1", registry: CheckoutMutant.registry, databasePath: database)
        for mutation in [CheckoutMutant.Mutation.firstRowVetoed, .noteRefusesNewlines] {
            let candidate = try ScenarioRunner.record(
                scenario, delegate: { CheckoutMutant(mutation) }, named: mutation.delegateName, databasePath: database,
                invalid: .skip)
            let diff = try SessionDiffer(AuditStore(path: database, access: .read)).diff(
                recording.session, candidate.session)
            #expect(diff.identical, "replay misses \(mutation)")
        }
        let text = try sandbox.run(["coverage", "--session", "\(recording.session)", "--arguments"]).stdoutLines
        func block(_ header: String) throws -> [String] {
            let start = try #require(text.firstIndex(of: header), "\(header)")
            return Array(text[(start + 1)...].prefix { $0.hasPrefix("    ") })
        }
        try expectEqual(
            block("  checkout/items  TableViewDelegate.tableView(_:willSelectRowAt:)"),
            [
                "    kept (2, in an input): indexPath.row positive; indexPath.section zero",
                "    overridden (1, in an input): indexPath.row zero; indexPath.section positive",
                "    never tried: indexPath.row negative; indexPath.section negative",
            ])
        let note = try block("  checkout/note  TextViewDelegate.textView(_:shouldChangeTextIn:replacementText:)")
        #expect(
            note.last?.hasPrefix("    never tried: ") == true && note.last?.contains("line break") == true, "\(note)")
    }
}
