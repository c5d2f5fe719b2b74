import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// What stored sessions cover of the delegates' behaviour, and what they cannot catch: for every
/// widget of the sessions' trees and every callback its kind declares, whether it was called, by
/// the app's delegate or answered by the default, which answer branches were seen (allowed and
/// vetoed, overridden and kept, nil and a value), and the inputs that reached it; and for each
/// answer branch seen, the argument classes (``ArgumentClass``) and the states (``CallState``) it
/// was seen with, and for each argument, the classes no call had.
///
/// The argument classes say what was tried, not what the delegate read: a branch seen with
/// `replacementText: uppercase` and never with `lowercase` is a branch no stored session can tell
/// from one that changes on lowercase letters. Of the state a callback was asked in, the store
/// records only where it was asked from (an input, another callback, or neither); the widget's own
/// state (its text, its selection) and what the delegate read are not recorded, so not covered.
public struct CoverageReport: Sendable {
    /// Where a callback was asked from: what the store records of the state it was asked in (the
    /// event it is nested in, `parent_seq`). Declaration order is the order states are listed in.
    public enum CallState: String, Sendable, CaseIterable, Comparable {
        /// Asked while an input was handled, and by the widget itself (a tap asks should-select).
        case input = "in an input"
        /// Asked inside another callback: what a delegate's code did while it answered (a selection
        /// made in code from a did-select) asks again, re-entrantly.
        case callback = "in a callback"
        /// Asked with no recorded event around it: by the app's code outside any input.
        case outside = "outside any input"

        public static func < (lhs: CallState, rhs: CallState) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

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
        /// For each branch seen, the classes of the arguments it was seen with, each once, sorted;
        /// a callback without arguments has none.
        public var argumentClasses: [String: [ArgumentClass]] = [:]
        /// For each argument path and type seen, the classes of that type no call had, sorted:
        /// what was never tried (``ArgumentClass/untried(_:)``).
        public var untriedClasses: [ArgumentClass] = []
        /// For each branch seen, where it was asked from, each once, sorted.
        public var states: [String: [CallState]] = [:]
        /// For each branch seen, the other widgets its arguments named
        /// (`otherGestureRecognizer checkout/items#reorder`), each once, sorted. An argument whose
        /// text is the path of a widget of the sessions' trees is such a reference: its text is not
        /// classified (its letters say nothing of what was tried).
        public var widgetArguments: [String: [String]] = [:]
        /// For a callback answered later: the delegate's handler mistakes (never answered,
        /// answered twice, answered after the widget gave up).
        public var mistakes = 0

        public var defaulted: Int { calls - implemented }
        public var missingBranches: [String] { branches.filter { $0.value == 0 }.map(\.key).sorted() }
        /// The argument classes some call had, whatever its answer, sorted.
        public var triedClasses: [ArgumentClass] { Set(argumentClasses.values.joined()).sorted() }
    }

    /// Counts for one protocol, or for all (`total`).
    public struct Tally: Sendable, Equatable {
        public var callbacks = 0
        public var called = 0
        public var branches = 0
        public var branchesSeen = 0
        /// The argument classes of every argument seen, tried or not (``Row/untriedClasses``).
        public var argumentClasses = 0
        public var argumentClassesTried = 0

        public var calledPercent: Double { callbacks == 0 ? 100 : 100 * Double(called) / Double(callbacks) }
        public var branchPercent: Double { branches == 0 ? 100 : 100 * Double(branchesSeen) / Double(branches) }
        public var argumentClassPercent: Double {
            argumentClasses == 0 ? 100 : 100 * Double(argumentClassesTried) / Double(argumentClasses)
        }

        mutating func add(_ row: Row) {
            callbacks += 1
            if row.calls > 0 { called += 1 }
            branches += row.branches.count
            branchesSeen += row.branches.values.count { $0 > 0 }
            let tried = row.triedClasses.count
            argumentClassesTried += tried
            argumentClasses += tried + row.untriedClasses.count
        }
    }

    public var sessions: [Int64]
    /// By widget path, then the callback's order in its kind's table.
    public var rows: [Row]
    /// The widget kinds of the sessions that the catalog does not register, sorted: none of
    /// their callbacks is counted, as none is known (a runner without the app's kinds).
    public var unregisteredKinds: [String] = []

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

    /// `range.location zero, positive`: one entry per path, its classes in order, as the text
    /// output and the HTML page print them (`Row.seenWith(_:)`).
    package static func argumentText(_ classes: [ArgumentClass]) -> [String] {
        var entries: [(path: String, names: [String])] = []
        for found in classes {
            if entries.last?.path == found.path {
                if !entries[entries.count - 1].names.contains(found.valueClass.rawValue) {
                    entries[entries.count - 1].names.append(found.valueClass.rawValue)
                }
            } else {
                entries.append((found.path, [found.valueClass.rawValue]))
            }
        }
        return entries.map { ($0.path.isEmpty ? "" : $0.path + " ") + $0.names.joined(separator: ", ") }
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

    /// Whether `text` names a widget of `paths`, or a recognizer of one (`path#recognizer`): an
    /// argument that refers to another widget, listed by name rather than classified as text.
    static func names(_ paths: Set<String>, _ text: String) -> Bool {
        paths.contains(text) || text.lastIndex(of: "#").map { paths.contains(String(text[..<$0])) } ?? false
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
    /// - Complexity: O(*w* + *a*) time for the *w* widgets of the sessions and the *a* bytes of their
    ///   events' arguments, each session read once in order (each callback's arguments parsed once,
    ///   a repeated text from a cache); memory O(*c* · *k*) for the *c* callbacks the catalog
    ///   declares for them and the at most *k* argument classes of each, and O(*e*₁) for the
    ///   largest session's *e*₁ events (the input each event came from).
    public init(sessions ids: [Int64], catalog: WidgetCatalog, in store: AuditStore) throws(StoreError) {
        var rows: [String: CoverageReport.Row] = [:]
        var order: [String] = []
        func key(_ widget: String, _ protocolName: String, _ callback: String) -> String {
            widget + "\u{0}" + protocolName + "\u{0}" + callback
        }
        let gestureCallbacks = GestureRecognizer.callbacks.descriptors
        var widgetPaths = Set<String>()
        var unregistered = Set<String>()
        /// Whether `text` is the path of a widget of the trees, or of a recognizer a widget of them
        /// owns that is not recorded as a widget (a scroll view's own pan, `checkout/items#pan…`).
        try storeOperation {
            let widgets = try store.connection.prepare("SELECT path, kind FROM widgets WHERE session = ? ORDER BY id")
            let (widgetPath, widgetKind) = (widgets.column("path"), widgets.column("kind"))
            let events = try store.connection.prepare(
                """
                SELECT seq, kind, widget, protocol, callback, args, result, \(store.timelineAnswers), implemented,
                    parent_seq
                FROM timeline WHERE session = ? ORDER BY seq
                """)
            let columns = CoveredEventColumns(events)
            // By row: the argument classes each branch was seen with, and the states.
            var classes: [String: [String: Set<ArgumentClass>]] = [:]
            var states: [String: [String: Set<CoverageReport.CallState>]] = [:]
            var references: [String: [String: Set<String>]] = [:]
            var parsed = ParsedJSONCache()
            /// Each ask of a callback answered later, until its answer comes: its arguments, where
            /// it was asked from, and its input.
            var asks: [Int64: (arguments: AuditValue?, state: CoverageReport.CallState, origin: String)] = [:]
            for id in ids {
                asks.removeAll()
                _ = try store.session(id)
                for (path, kind) in try widgets.rows(
                    [.integer(id)], { ($0.string(widgetPath) ?? "", $0.string(widgetKind) ?? "") })
                {
                    widgetPaths.insert(path)
                    if kind != "View", catalog.gestureKind(named: kind) == nil, catalog.kind(named: kind) == nil {
                        unregistered.insert(kind)
                    }
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
                // Each event, the top-level input that led to it, and whether it is an input.
                var origins: [Int64: (origin: String, isInput: Bool)] = [:]
                try events.forEachRow([.integer(id)]) { row in
                    let seq = row.int64(columns.seq)
                    let widget = row.string(columns.widget) ?? ""
                    let callback = row.string(columns.callback) ?? ""
                    let parent = row.isNull(columns.parentSeq) ? nil : row.int64(columns.parentSeq)
                    let enclosing = parent.flatMap { origins[$0] }
                    let origin = enclosing?.origin ?? "\(callback) on \(widget)"
                    let isCallback = row.string(columns.kind) == EventKind.callback.rawValue
                    origins[seq] = (origin, !isCallback)
                    let protocolName = row.string(columns.protocolName) ?? ""
                    let rowKey = key(widget, protocolName, callback)
                    guard isCallback, var found = rows[rowKey] else { return }
                    let answer = AnswerOutcome(
                        row, implemented: columns.implemented, vetoed: columns.vetoed, overridden: columns.overridden)
                    // A parent not read (before the session's first event) counts as an input's.
                    var state: CoverageReport.CallState =
                        parent == nil ? .outside : enclosing?.isInput == false ? .callback : .input
                    var arguments = row.withBytes(columns.arguments, { parsed.value(of: $0).value })
                    var input = origin
                    // A callback answered later is a call at its ask; its branch comes with its
                    // answer, seen with the ask's arguments, state and input. A mistake is counted.
                    switch row.laterStep(columns.later) {
                    case .asked?:
                        found.calls += 1
                        if answer.implemented == true { found.implemented += 1 }
                        asks[seq] = (arguments, state, input)
                        rows[rowKey] = found
                        return
                    case .answered?:
                        guard let ask = asks.removeValue(forKey: row.int64(columns.answers)) else { return }
                        (arguments, state, input) = ask
                    case let step? where step.isMistake:
                        found.mistakes += 1
                        rows[rowKey] = found
                        return
                    case _?: return  // gave up
                    case nil:
                        found.calls += 1
                        if answer.implemented == true { found.implemented += 1 }
                    }
                    let branch = CoverageReport.branch(
                        of: found.answer, answer, resultIsNil: (row.string(columns.result) ?? "null") == "null")
                    found.branches[branch, default: 0] += 1
                    // An argument naming a widget of the trees is a reference, not text: listed, not classified.
                    if case .object(let arguments)? = arguments {
                        for (label, argument) in arguments {
                            if case .string(let text) = argument, CoverageReport.names(widgetPaths, text) {
                                references[rowKey, default: [:]][branch, default: []].insert("\(label) \(text)")
                            } else {
                                ArgumentClass.insertClasses(
                                    of: .object([label: argument]),
                                    into: &classes[rowKey, default: [:]][branch, default: []])
                            }
                        }
                    }
                    states[rowKey, default: [:]][branch, default: []].insert(state)
                    if state != .outside, !found.inputs.contains(input) {
                        found.inputs.append(input)
                        found.inputs.sort()
                    }
                    rows[rowKey] = found
                }
            }
            for (rowKey, byBranch) in classes {
                rows[rowKey]?.argumentClasses = byBranch.mapValues { $0.sorted() }
                rows[rowKey]?.untriedClasses = ArgumentClass.untried(
                    byBranch.values.reduce(into: []) { $0.formUnion($1) })
            }
            for (rowKey, byBranch) in states { rows[rowKey]?.states = byBranch.mapValues { $0.sorted() } }
            for (rowKey, byBranch) in references { rows[rowKey]?.widgetArguments = byBranch.mapValues { $0.sorted() } }
        }
        self.init(sessions: ids, rows: order.compactMap { rows[$0] })
        unregisteredKinds = unregistered.sorted()
    }
}

/// Where the coverage query has each `timeline` column it reads, found by name once per statement.
private struct CoveredEventColumns {
    let seq, kind, widget, protocolName, callback, arguments, result, vetoed, overridden, implemented, parentSeq: Int
    let later, answers: Int

    init(_ statement: Statement) {
        seq = statement.column("seq")
        kind = statement.column("kind")
        widget = statement.column("widget")
        protocolName = statement.column("protocol")
        callback = statement.column("callback")
        arguments = statement.column("args")
        result = statement.column("result")
        vetoed = statement.column("vetoed")
        overridden = statement.column("overridden")
        implemented = statement.column("implemented")
        parentSeq = statement.column("parent_seq")
        later = statement.column("later")
        answers = statement.column("answers")
    }
}

extension CoverageReport.Row {
    /// What answer `branch` was seen with, one entry per argument: its classes
    /// (`CoverageReport.argumentText(_:)`), then the widgets a reference argument named; "no
    /// arguments" when there are none. What the text output and the HTML page print.
    package func seenWith(_ branch: String) -> String {
        let entries = CoverageReport.argumentText(argumentClasses[branch] ?? []) + (widgetArguments[branch] ?? [])
        return entries.isEmpty ? "no arguments" : entries.joined(separator: "; ")
    }
}
