import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// An event to open with `auditctl show --session SESSION`: its session and `seq`.
public struct EventReference: Sendable, Hashable, Comparable {
    public var session: Int64
    public var seq: Int64

    public init(session: Int64, seq: Int64) {
        self.session = session
        self.seq = seq
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.session, lhs.seq) < (rhs.session, rhs.seq) }
}

/// What a session (or every recorded session) did, callback by callback: how often each was
/// called, vetoed and answered by a default, and how long the app's delegate took.
public struct SessionReport: Sendable {
    /// The sessions summed up, oldest first.
    public var sessions: [Int64]
    public var inputs: Int
    public var callbacks: Int
    /// One row per protocol, widget and callback, in order of first call.
    public var rows: [CallbackStatistics]

    /// Rows whose callback can veto, most vetoed first.
    public var vetoRates: [CallbackStatistics] {
        rows.filter { $0.vetoable > 0 }.sorted { ($0.vetoRate ?? 0, $0.vetoes) > ($1.vetoRate ?? 0, $1.vetoes) }
    }

    /// Rows whose callback can override a proposal, most overridden first.
    public var overrideRates: [CallbackStatistics] {
        rows.filter { $0.overridable > 0 }.sorted {
            ($0.overrideRate ?? 0, $0.overrides) > ($1.overrideRate ?? 0, $1.overrides)
        }
    }

    /// Rows with calls the app did not implement, so the protocol's default answered.
    public var defaulted: [CallbackStatistics] { rows.filter { $0.defaulted > 0 } }

    /// Rows of callbacks answered later whose delegate misused the handler, most mistakes first.
    public var withMistakes: [CallbackStatistics] {
        rows.filter { $0.mistakes > 0 }.sorted { ($0.mistakes, $1.first) > ($1.mistakes, $0.first) }
    }

    /// Handler mistakes in all rows.
    public var mistakes: Int { rows.reduce(0) { $0 + $1.mistakes } }

    /// The `limit` rows with the slowest single call, slowest first.
    ///
    /// - Complexity: O(*c* log *c*) for the report's *c* rows.
    public func slowest(_ limit: Int = 10) -> [CallbackStatistics] {
        Array(rows.sorted { ($0.maxMicroseconds, $1.first) > ($1.maxMicroseconds, $0.first) }.prefix(limit))
    }

    /// Sums up `events` (callbacks and inputs of any sessions, in any order).
    ///
    /// - Complexity: O(*e* log *e*) for *e* events (sorted by session and `seq`, then each
    ///   callback's durations sorted for its percentiles).
    public init(sessions: [Int64], events: [(session: Int64, event: TimelineEvent)]) {
        var builder = Builder(sessions: sessions)
        for (session, event) in events.sorted(by: { ($0.session, $0.event.seq) < ($1.session, $1.event.seq) }) {
            builder.add(event, session: session)
        }
        self = builder.report
    }

    /// Sums up events given one at a time, in session and `seq` order, keeping only the figures
    /// (and each call's duration, for the percentiles): a database of millions of events is
    /// reported without holding its events.
    struct Builder {
        private struct Key: Hashable {
            let protocolName: String?
            let widget: String?
            let callback: String
        }

        private let sessions: [Int64]
        private var rows: [CallbackStatistics] = []
        private var index: [Key: Int] = [:]
        private var durations: [[Double]] = []
        private var inputs = 0

        init(sessions: [Int64]) {
            self.sessions = sessions
        }

        mutating func add(_ event: TimelineEvent, session: Int64) {
            guard event.kind == .callback else {
                inputs += 1
                return
            }
            let key = Key(protocolName: event.protocolName, widget: event.widget, callback: event.callback)
            let reference = EventReference(session: session, seq: event.seq)
            let row: Int
            if let found = index[key] {
                row = found
            } else {
                row = rows.count
                index[key] = row
                rows.append(
                    CallbackStatistics(
                        protocolName: event.protocolName, widget: event.widget, callback: event.callback,
                        first: reference, slowest: reference))
                durations.append([])
            }
            // A callback answered later counts once, at its ask; its answer says what it did, and
            // a mistake is counted apart.
            switch event.later {
            case .answered?, .gaveUp?: break
            case let step? where step.isMistake:
                rows[row].mistakes += 1
                if rows[row].mistakeEvents.count < CallbackStatistics.examples {
                    rows[row].mistakeEvents.append(reference)
                }
                return
            default: rows[row].calls += 1
            }
            if event.later == .gaveUp { return }
            if let overridden = event.overridden {
                rows[row].overridable += 1
                if overridden {
                    rows[row].overrides += 1
                    if rows[row].overriddenEvents.count < CallbackStatistics.examples {
                        rows[row].overriddenEvents.append(reference)
                    }
                }
            } else if let vetoed = event.vetoed {
                rows[row].vetoable += 1
                if vetoed {
                    rows[row].vetoes += 1
                    if rows[row].vetoedEvents.count < CallbackStatistics.examples {
                        rows[row].vetoedEvents.append(reference)
                    }
                }
            }
            if event.implemented == false && event.later != .answered {
                rows[row].defaulted += 1
                if rows[row].defaultedEvents.count < CallbackStatistics.examples {
                    rows[row].defaultedEvents.append(reference)
                }
            }
            if event.later == .answered { return }  // its time is the widget's, taking the answer
            if event.durationMicroseconds > rows[row].maxMicroseconds || rows[row].calls == 1 {
                rows[row].maxMicroseconds = event.durationMicroseconds
                rows[row].slowest = reference
            }
            durations[row].append(event.durationMicroseconds)
        }

        var report: SessionReport {
            var rows = rows
            for row in rows.indices {
                let sorted = durations[row].sorted()
                rows[row].p50Microseconds = SessionReport.percentile(50, of: sorted)
                rows[row].p99Microseconds = SessionReport.percentile(99, of: sorted)
            }
            return SessionReport(
                sessions: sessions, inputs: inputs, callbacks: rows.reduce(0) { $0 + $1.calls }, rows: rows)
        }
    }

    private init(sessions: [Int64], inputs: Int, callbacks: Int, rows: [CallbackStatistics]) {
        self.sessions = sessions
        self.inputs = inputs
        self.callbacks = callbacks
        self.rows = rows
    }

    /// The nearest-rank percentile of sorted values: the smallest value with at least `p` percent
    /// of the values at or below it. O(1) on sorted input; 0 for no values.
    static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// The calls of one callback at one widget.
public struct CallbackStatistics: Sendable, Equatable {
    /// How many vetoed, overridden and defaulted events a row lists.
    public static let examples = 5

    public var protocolName: String?
    public var widget: String?
    public var callback: String
    public var calls = 0
    /// Calls whose answer could veto (and overrides not recorded since answers keep their kind).
    public var vetoable = 0
    public var vetoes = 0
    /// Calls whose answer could override a proposal.
    public var overridable = 0
    /// Calls whose answer differed from the proposal.
    public var overrides = 0
    /// Calls the app did not implement: the protocol's default answered.
    public var defaulted = 0
    public var p50Microseconds = 0.0
    public var p99Microseconds = 0.0
    public var maxMicroseconds = 0.0
    public var first: EventReference
    /// The call that took `maxMicroseconds`.
    public var slowest: EventReference
    /// The first few vetoed calls.
    public var vetoedEvents: [EventReference] = []
    /// The first few overridden calls.
    public var overriddenEvents: [EventReference] = []
    /// The first few calls answered by a default.
    public var defaultedEvents: [EventReference] = []
    /// For a callback answered later: the delegate's handler mistakes (never answered, answered
    /// twice, answered after the widget gave up).
    public var mistakes = 0
    /// The first few mistakes.
    public var mistakeEvents: [EventReference] = []

    /// Vetoes per call that could veto; nil when none could.
    public var vetoRate: Double? { vetoable == 0 ? nil : Double(vetoes) / Double(vetoable) }
    /// Overrides per call that could override; nil when none could.
    public var overrideRate: Double? { overridable == 0 ? nil : Double(overrides) / Double(overridable) }
}

extension SessionReport {
    /// The report of one session, or (with nil) of every recorded session that is not a replay, has
    /// all of `labels` and falls in `shard`.
    ///
    /// - Complexity: O(*e* log *e*) time for the *e* events of the sessions reported, read once in
    ///   order (each callback's durations sorted for its percentiles); memory O(*c*) for the *c*
    ///   callback events among them (their durations), not their events.
    public init(
        session id: Int64?, labels: [String: String] = [:], shard: SessionShard? = nil, in store: AuditStore
    ) throws(StoreError) {
        let ids: [Int64]
        if let id {
            _ = try store.session(id)
            ids = [id]
        } else {
            ids = try store.sessions().filter { $0.replayOf == nil && $0.has(labels) && shard.map($0.isIn) != false }
                .map(\.id)
        }
        var builder = SessionReport.Builder(sessions: ids)
        try storeOperation {
            let statement = try store.connection.prepare(
                """
                SELECT seq, t_ms, kind, widget, widget_kind, protocol, callback, '{}' AS args, NULL AS result,
                       \(store.timelineAnswers), implemented, duration_us, parent_seq
                FROM timeline WHERE session = ? ORDER BY seq
                """)
            let columns = TimelineEvent.Columns(statement)
            for session in ids {
                statement.reset()
                statement.bind([.integer(session)])
                while try statement.step() {
                    builder.add(TimelineEvent(row: statement, columns), session: session)
                }
            }
            statement.reset()
        }
        self = builder.report
    }
}

/// One of a report's rate tables: how often a callback's answer vetoed, or overrode, per callback.
public struct RateTable: Sendable {
    /// `veto rates`, `override rates (…)`.
    public let title: String
    public let effect: AnswerEffect
    /// Most affected first.
    public let rows: [CallbackStatistics]
}

extension SessionReport {
    /// The veto rates, and the override rates when the session has callbacks that can override.
    public var rateTables: [RateTable] {
        var tables = [RateTable(title: "veto rates", effect: .vetoed, rows: vetoRates)]
        if !overrideRates.isEmpty {
            tables.append(
                RateTable(
                    title: "override rates (answers that replaced the proposed value)", effect: .overridden,
                    rows: overrideRates))
        }
        return tables
    }
}

extension CallbackStatistics {
    /// The calls that could have `effect`, those that had it, their rate and the first few.
    public func tally(_ effect: AnswerEffect) -> (asked: Int, count: Int, rate: Double?, events: [EventReference]) {
        switch effect {
        case .vetoed: (vetoable, vetoes, vetoRate, vetoedEvents)
        case .overridden: (overridable, overrides, overrideRate, overriddenEvents)
        }
    }
}
