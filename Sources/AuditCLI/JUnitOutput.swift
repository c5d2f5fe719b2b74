import AuditCore

/// `--format junit` of `replay`, `replay --all` and `diff`: JUnit XML, which CI systems show as
/// test results. One `testsuite`; one `testcase` per compared session, failing with the first
/// divergence as its message and the differences (the text format's lines) as its text, or in
/// error when the session could not be replayed.
struct JUnitReport {
    struct Case {
        var name: String
        var className: String
        /// The first divergence and the differences, for a case that found some.
        var failure: (message: String, text: String)?
        /// Why the comparison could not be made.
        var error: String?
    }

    var name: String
    var cases: [Case] = []

    var xml: String {
        let failures = cases.count { $0.failure != nil }
        let errors = cases.count { $0.error != nil }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuite name="\#(Self.escaped(name))" tests="\#(cases.count)" failures="\#(failures)" "#
                + #"errors="\#(errors)">"#,
        ]
        for testCase in cases {
            let opening =
                #"  <testcase classname="\#(Self.escaped(testCase.className))" name="\#(Self.escaped(testCase.name))""#
            if let failure = testCase.failure {
                lines.append(opening + ">")
                lines.append(
                    #"    <failure message="\#(Self.escaped(failure.message))">"#
                        + Self.escaped(failure.text, inAttribute: false) + "</failure>")
                lines.append("  </testcase>")
            } else if let error = testCase.error {
                lines.append(opening + ">")
                lines.append(#"    <error message="\#(Self.escaped(error))"/>"#)
                lines.append("  </testcase>")
            } else {
                lines.append(opening + "/>")
            }
        }
        lines.append("</testsuite>")
        return lines.joined(separator: "\n")
    }

    /// Text as XML character data or (`inAttribute`) an attribute value: the markup characters as
    /// entities, in an attribute its line ends and tabs as character references (a parser would fold
    /// them to spaces), and the characters XML 1.0 cannot hold at all (C0 controls but tab and line
    /// ends, U+FFFE, U+FFFF) as visible escapes.
    static func escaped(_ text: String, inAttribute: Bool = true) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where inAttribute: result += "&quot;"
            case "\n" where inAttribute: result += "&#10;"
            case "\r": result += "&#13;"
            case "\t" where inAttribute: result += "&#9;"
            case "\n", "\t", "\"": result.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}":
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// What `print` writes, as one string.
    static func captured(_ print: (Output) -> Void) -> String {
        var text = ""
        print(Output(out: { text += $0 }, error: { text += $0 }))
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// The case of one replay.
    static func replayCase(_ report: ReplayReport) -> Case {
        let recorded = report.recorded
        var testCase = Case(
            name: "session \(recorded.id) (\(recorded.scenario), recorded with \(recorded.delegate))",
            className: "auditctl.replay.\(recorded.scenario)")
        if !report.identical {
            testCase.failure = (firstDivergence(report), captured { Command.printReplay(report, to: $0) })
        }
        return testCase
    }

    /// The failure message: the first divergence, on one line.
    static func firstDivergence(_ report: ReplayReport) -> String {
        guard let first = report.firstDivergence else {
            return report.nestingRefused.map { "the candidate's run refused an input: \($0)" } ?? "behaviour changed"
        }
        let event = first.difference.event
        return "first divergence: \(DifferenceOutput.describe(first.difference.kind, Command.replaySides)) at "
            + "\(event.widget ?? "-") \(DifferenceOutput.callbackName(event)) (recorded "
            + "\(DifferenceOutput.answer(first.difference.a)), candidate \(DifferenceOutput.answer(first.difference.b)))"
    }
}
