import SharedTestSupport
import Testing

/// `expectEqual` carries most of the suites' comparisons: a difference must be an issue, at the
/// caller's line, naming both values, as `#expect(a == b)` would record it.
@Suite("expectEqual fails as #expect(a == b) does")
struct ExpectEqualTests {
    @Test func aDifferenceIsAnIssueAtTheCallersLineNamingBothValues() {
        let line = #line + 2
        withKnownIssue {
            expectEqual([1, 2], [1, 3], "compared")
        } matching: { issue in
            let text = String(describing: issue)
            return issue.sourceLocation?.line == line && text.contains("[1, 2]") && text.contains("[1, 3]")
        }
    }

    @Test func equalValuesAreNoIssue() {
        expectEqual("请", "请")
        expectEqual(Optional(3), 3)
    }
}
