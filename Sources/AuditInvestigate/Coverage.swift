import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// What stored sessions cover of the delegates' behaviour, and what they cannot catch: for every
/// widget of the sessions' trees and every callback its kind declares, whether it was called, by
/// the app's delegate or answered by the default, which answer branches were seen (allowed and
/// vetoed, overridden and kept, nil and a value), and the inputs that reached it.
public struct CoverageReport: Sendable {
    /// One callback of one widget.
    public struct Row: Sendable, Equatable {
        public var widget: String
        public var widgetKind: String
        public var protocolName: String
        public var callback: String
        public var answer: AnswerKind
        public var calls = 0
        /// Calls the app's delegate answered (the rest got the default).
        public var implemented = 0
        /// How often each branch of the answer was seen, for every branch the answer kind has.
        public var branches: [String: Int]
        /// The inputs that led to it (`tapSegment on checkout/shipping`), each once, sorted.
        public var inputs: [String] = []

        public var defaulted: Int { calls - implemented }
        public var missingBranches: [String] { branches.filter { $0.value == 0 }.map(\.key).sorted() }
    }

    /// Counts for one protocol, or for all (`total`).
    public struct Tally: Sendable, Equatable {
        public var callbacks = 0
        public var called = 0
        public var branches = 0
        public var branchesSeen = 0

        public var calledPercent: Double { callbacks == 0 ? 100 : 100 * Double(called) / Double(callbacks) }
        public var branchPercent: Double { branches == 0 ? 100 : 100 * Double(branchesSeen) / Double(branches) }

        mutating func add(_ row: Row) {
            callbacks += 1
            if row.calls > 0 { called += 1 }
            branches += row.branches.count
            branchesSeen += row.branches.values.count { $0 > 0 }
        }
    }

    public var sessions: [Int64]
    /// By widget path, then the callback's order in its kind's table.
    public var rows: [Row]

    public var byProtocol: [(protocolName: String, tally: Tally)] {
        Dictionary(grouping: rows, by: \.protocolName).map { name, rows in
            var tally = Tally()
            rows.forEach { tally.add($0) }
            return (name, tally)
        }.sorted { $0.protocolName < $1.protocolName }
    }

    public var total: Tally {
        var tally = Tally()
        rows.forEach { tally.add($0) }
        return tally
    }

    /// The branches an answer of `kind` has.
    static func branchNames(_ kind: AnswerKind) -> [String] {
        switch kind {
        case .none: ["called"]
        case .veto: ["allowed", "vetoed"]
        case .override: ["kept", "overridden"]
        case .value: ["nil", "value"]
        }
    }

    /// The branch an answer of `kind` took: its `outcome`, and for a value whether it was nil.
    static func branch(of kind: AnswerKind, _ outcome: AnswerOutcome, resultIsNil: Bool) -> String {
        switch kind {
        case .none: "called"
        case .veto: outcome.vetoed == true ? "vetoed" : "allowed"
        case .override: outcome.overridden == true ? "overridden" : "kept"
        case .value: resultIsNil ? "nil" : "value"
        }
    }
}

extension CoverageReport {
    /// The coverage of sessions `ids` against the callbacks `catalog` declares for their widgets.
    ///
    /// - Complexity: O(*w* + *e*) time for the *w* widgets and *e* events of the sessions, each
    ///   session read once in order; memory O(*c*) for the *c* callbacks the catalog declares for
    ///   them, and O(*e*₁) for the largest session's *e*₁ events (the input each event came from).
    public init(sessions ids: [Int64], catalog: WidgetCatalog, in store: AuditStore) throws(StoreError) {
        var rows: [String: CoverageReport.Row] = [:]
        var order: [String] = []
        func key(_ widget: String, _ protocolName: String, _ callback: String) -> String {
            widget + "\u{0}" + protocolName + "\u{0}" + callback
        }
        let gestureCallbacks = GestureRecognizer.callbacks.descriptors
        try storeOperation {
            let widgets = try store.connection.prepare("SELECT path, kind FROM widgets WHERE session = ? ORDER BY id")
            let (widgetPath, widgetKind) = (widgets.column("path"), widgets.column("kind"))
            let events = try store.connection.prepare(
                """
                SELECT seq, kind, widget, protocol, callback, result, \(store.timelineAnswers), implemented, parent_seq
                FROM timeline WHERE session = ? ORDER BY seq
                """)
            let columns = CoveredEventColumns(events)
            for id in ids {
                _ = try store.session(id)
                for (path, kind) in try widgets.rows(
                    [.integer(id)], { ($0.string(widgetPath) ?? "", $0.string(widgetKind) ?? "") })
                {
                    let declared =
                        catalog.gestureKind(named: kind) != nil
                        ? gestureCallbacks
                        : kind == "View" ? [] : catalog.kind(named: kind)?.callbacks.map(\.descriptor) ?? []
                    for descriptor in declared {
                        let rowKey = key(path, descriptor.protocolName, descriptor.name)
                        guard rows[rowKey] == nil else { continue }
                        order.append(rowKey)
                        rows[rowKey] = CoverageReport.Row(
                            widget: path, widgetKind: kind, protocolName: descriptor.protocolName,
                            callback: descriptor.name, answer: descriptor.answer,
                            branches: Dictionary(
                                uniqueKeysWithValues: CoverageReport.branchNames(descriptor.answer).map { ($0, 0) }))
                    }
                }
                widgets.reset()
                // Each event, and the top-level input that led to it.
                var origins: [Int64: String] = [:]
                try events.forEachRow([.integer(id)]) { row in
                    let seq = row.int64(columns.seq)
                    let widget = row.string(columns.widget) ?? ""
                    let callback = row.string(columns.callback) ?? ""
                    let parent = row.isNull(columns.parentSeq) ? nil : row.int64(columns.parentSeq)
                    let origin = parent.flatMap { origins[$0] } ?? "\(callback) on \(widget)"
                    origins[seq] = origin
                    let protocolName = row.string(columns.protocolName) ?? ""
                    guard row.string(columns.kind) == EventKind.callback.rawValue,
                        var found = rows[key(widget, protocolName, callback)]
                    else { return }
                    found.calls += 1
                    let answer = AnswerOutcome(
                        row, implemented: columns.implemented, vetoed: columns.vetoed, overridden: columns.overridden)
                    if answer.implemented == true { found.implemented += 1 }
                    let branch: String
                    switch found.answer {
                    case .none: branch = "called"
                    case .veto: branch = answer.vetoed == true ? "vetoed" : "allowed"
                    case .override: branch = answer.overridden == true ? "overridden" : "kept"
                    case .value: branch = (row.string(columns.result) ?? "null") == "null" ? "nil" : "value"
                    }
                    found.branches[branch, default: 0] += 1
                    if parent != nil, !found.inputs.contains(origin) {
                        found.inputs.append(origin)
                        found.inputs.sort()
                    }
                    rows[key(widget, protocolName, callback)] = found
                }
            }
        }
        self.init(sessions: ids, rows: order.compactMap { rows[$0] })
    }
}

/// Where the coverage query has each `timeline` column it reads, found by name once per statement.
private struct CoveredEventColumns {
    let seq, kind, widget, protocolName, callback, result, vetoed, overridden, implemented, parentSeq: Int

    init(_ statement: Statement) {
        seq = statement.column("seq")
        kind = statement.column("kind")
        widget = statement.column("widget")
        protocolName = statement.column("protocol")
        callback = statement.column("callback")
        result = statement.column("result")
        vetoed = statement.column("vetoed")
        overridden = statement.column("overridden")
        implemented = statement.column("implemented")
        parentSeq = statement.column("parent_seq")
    }
}
