import AuditCore
import Foundation

/// `--html FILE` (`Options.html`) of `report`, `diff`, `replay` and `coverage`: the page is made
/// by `HTMLTimeline` and written as every output file is (`OutputFile`): atomically, 0600, never
/// through a link.
enum HTMLOutput {
    static let what = "the HTML page"

    /// Writes `page()` to the invocation's `--html` file, when one was given; nothing otherwise.
    static func write(_ invocation: Invocation, _ page: () throws -> String) throws {
        guard let path = try invocation[Options.html] else { return }
        try OutputFile.write(Data(try page().utf8), to: path, what: what)
    }

    /// The page for one session, for `report --session N --html FILE`, read through the command's
    /// `store`.
    static func writeReport(session id: Int64, from store: AuditStore, _ invocation: Invocation) throws {
        try write(invocation) {
            HTMLTimeline.report(session: try store.session(id), events: try store.timeline(of: id))
        }
    }

    /// The page of two sessions side by side, for `diff --html` and `replay --html`, read through
    /// the command's `store`.
    static func writeComparison(
        _ diff: SessionDiff, _ sides: DifferenceOutput.Sides, heading: String, from store: AuditStore,
        _ invocation: Invocation
    ) throws {
        try write(invocation) {
            HTMLTimeline.comparison(
                diff, eventsA: try store.timeline(of: diff.a.id), eventsB: try store.timeline(of: diff.b.id),
                labels: (sides.a, sides.b), heading: heading)
        }
    }
}
