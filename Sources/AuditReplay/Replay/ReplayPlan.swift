import AuditKit
import AuditModel
import AuditStorage
import Foundation
import Synchronization

/// Everything a replay needs from the stored session, checked before the candidate runs: the
/// scenario to rebuild the tree from, the recorded inputs as steps, and an invoker for every
/// recorded callback.
package struct ReplayPlan {
    let session: SessionSummary
    package let scenario: Scenario
    /// The events to compare against (for an interrupted session, those before its last input).
    let events: [StoredEvent]
    /// The fingerprints of all the session's events, read with them when the plan is a replay
    /// job's and asked for them (`fingerprinting`); nil otherwise, and the comparison reads them.
    let fingerprints: [EventFingerprint]?
    /// The top-level recorded inputs, as steps to drive again.
    package let steps: [ScenarioStep]
    /// For each of `events`, its callback's invoker (nil for inputs).
    let invokers: [CallbackInvoker?]
    /// For each of `events`, its input's declaration (nil for callbacks).
    let inputs: [CallbackDescriptor?]
    /// How many of `events` are callbacks.
    let callbacks: Int
    /// For an interrupted session: where the recording stops and what was replayed.
    let cutShort: ReplayReport.CutShort?
    /// The recorded session's widget ids, by path.
    let widgetIDs: [String: Int32]
    /// The inputs a delegate made from inside a callback (it selected a segment in code), by their
    /// index in `events`: isolated replay performs them itself when the candidate does not.
    let delegateInputs: [Int: ScenarioStep]

    /// The plan of session `id`, read through `store`. With `parsed` (a replay job's, whose
    /// sessions are the parallel work), the stored scenario is parsed once for every session that
    /// stores the same text, as are the inputs' arguments, and the events are read here, with their
    /// fingerprints unless `fingerprinting` is false (an isolated replay compares as it runs).
    /// Without, the events are read on another core while the scenario is parsed here, and the
    /// plan is built from each chunk of events as it comes (`chunkSize` events at a time).
    package init(
        session id: Int64, store: AuditStore, catalog: WidgetCatalog, parsed: ParsedOnce? = nil,
        fingerprinting: Bool = true, chunkSize: Int = EventFeed.chunkSize
    ) throws {
        session = try store.session(id)
        if let original = session.replayOf { throw ReplayError.replayOfReplay(session: id, of: original) }
        let source = try store.scenarioSource(of: id)
        let interrupted = session.status == .interrupted
        let feed = parsed == nil && !interrupted ? EventFeed(session: id, store: store, chunkSize: chunkSize) : nil
        defer { feed?.stop() }
        let parse = { () -> Result<Scenario, ScenarioError> in
            Result { () throws(ScenarioError) in
                guard !source.isEmpty, source != "{}" else {
                    throw ScenarioError(at: "", "it was recorded in code before its widget tree was stored")
                }
                return try Scenario(data: Data(source.utf8), includingSteps: false, catalog: catalog)
            }
        }
        switch parsed?.scenario(source, parse) ?? parse() {
        case .success(let value): scenario = value
        case .failure(let error): throw ReplayError.noScenario(session: id, reason: error.description)
        }
        let root = scenario.root
        var builder = try Builder(
            session: id, tree: parsed?.tree(source) { root.build() } ?? root.build(), catalog: catalog,
            expecting: session.events)
        var cutShort: ReplayReport.CutShort?
        var read: [EventFingerprint]? = parsed != nil && fingerprinting ? [] : nil
        if let feed {
            while let chunk = try feed.next() { try builder.add(chunk) }
        } else {
            var events =
                try parsed.map { try store.storedEvents(of: id, parsed: &$0.texts, fingerprints: &read) }
                ?? store.storedEvents(of: id)
            if interrupted {
                // The last input may have been cut off mid-way: replay and compare only the inputs
                // before it, whose events are complete.
                let lastInput = events.last { $0.kind == .input && $0.parent == nil }
                let kept = events.prefix { $0.seq < (lastInput?.seq ?? 1) }
                let inputs = kept.filter { $0.kind == .input && $0.parent == nil }.count
                cutShort = ReplayReport.CutShort(
                    session: id, lastEvent: events.last?.seq ?? 0, inputsReplayed: inputs,
                    replayedThrough: kept.last?.seq ?? 0)
                events = Array(kept)
                if inputs == 0 { throw ReplayError.nothingRecorded(session: id) }
            }
            try builder.add(events)
        }
        self.cutShort = cutShort
        fingerprints = read
        events = builder.events
        widgetIDs = builder.widgetIDs
        delegateInputs = builder.delegateInputs
        steps = builder.steps
        invokers = builder.invokers
        inputs = builder.inputs
        callbacks = builder.callbacks
    }

    /// Builds a plan's steps and look-ups from its events, in order, a chunk at a time.
    private struct Builder {
        let session: Int64
        let tree: View
        let catalog: WidgetCatalog
        /// The paths of the tree's secure text views.
        let securePaths: Set<String>
        var events: [StoredEvent] = []
        var steps: [ScenarioStep] = []
        var invokers: [CallbackInvoker?] = []
        var inputs: [CallbackDescriptor?] = []
        var callbacks = 0
        var widgetIDs: [String: Int32] = [:]
        var delegateInputs: [Int: ScenarioStep] = [:]
        // Found once per stored name, not once per event.
        var foundInvokers = IDTable<CallbackInvoker>()
        // By widget id: the tree is not driven here, so each id keeps its object.
        var objects = IDTable<AnyObject?>()
        // By widget id, then name id: input names belong to widget kinds.
        var foundInputs = IDTable<IDTable<InputAction>>()

        /// A secure text view's text is stored only as a keyed hash, which cannot be typed or set
        /// again: a session where one starts with a text, or that types into one, is not replayed.
        /// `expecting`: about how many events will be added (the session's count).
        init(session: Int64, tree: View, catalog: WidgetCatalog, expecting count: Int) throws {
            self.session = session
            self.tree = tree
            self.catalog = catalog
            events.reserveCapacity(count)
            invokers.reserveCapacity(count)
            inputs.reserveCapacity(count)
            var secure: [(path: String, text: String)] = []
            tree.visit { view in
                if let textView = view as? TextView, textView.isSecureTextEntry {
                    secure.append((view.path, textView.text))
                }
            }
            if let view = secure.first(where: { !$0.text.isEmpty }) {
                throw ReplayError.secureText(session: session, widget: view.path, seq: nil)
            }
            securePaths = Set(secure.map(\.path))
        }

        /// Adds the next events, in `seq` order.
        mutating func add(_ chunk: [StoredEvent]) throws {
            let start = events.count
            events += chunk
            for index in start..<events.count { try add(events[index], at: index) }
        }

        private mutating func add(_ event: StoredEvent, at index: Int) throws {
            if let path = event.widget, objects[event.widgetID] == nil {
                widgetIDs[path] = Int32(truncatingIfNeeded: event.widgetID)
                objects[event.widgetID] = .some(tree.auditedObject(atPath: path))
            }
            guard event.kind == .input else {
                guard
                    let invoker = foundInvokers[event.callbackID]
                        ?? catalog.invoker(protocolName: event.protocolName ?? "", name: event.callback)
                else {
                    let name = "\(event.protocolName ?? "").\(event.callback)"
                    throw ReplayError.unknownCallback(session: session, seq: event.seq, name: name)
                }
                foundInvokers[event.callbackID] = invoker
                invokers.append(invoker)
                inputs.append(nil)
                callbacks += 1
                // A callback asked outside any input (a property of the widget that asks its
                // delegate, layout) is asked again at its place, as an `ask` step.
                // The later steps of an ask are the delegate's, not asked again.
                if event.parent == nil, event.later == nil || event.later == .asked {
                    steps.append(try askStep(event, invoker))
                }
                return
            }
            // Input names belong to widget kinds (a slider's drag is not a scroll view's), so the
            // declaration is the one the widget at the event's path takes.
            let path = event.widget ?? ""
            if !securePaths.isEmpty, securePaths.contains(path),
                event.callback == TextView.Inputs.type.descriptor.name
                    || event.callback == TextView.Inputs.replace.descriptor.name
            {
                throw ReplayError.secureText(session: session, widget: path, seq: event.seq)
            }
            // A widget missing from the initial tree was added during the session (by a delegate):
            // its input is found by the widget's recorded kind, and checked when replay reaches it.
            let object = objects[event.widgetID] ?? nil
            let definition: InputAction
            if let found = foundInputs[event.widgetID]?[event.callbackID] {
                definition = found
            } else {
                let resolved: InputAction? =
                    object.map { catalog.input(named: event.callback, for: $0) }
                    ?? catalog.input(named: event.callback, kind: event.widgetKind ?? "")
                guard let resolved else {
                    throw ReplayError.unknownCallback(session: session, seq: event.seq, name: event.callback)
                }
                definition = resolved
                foundInputs[event.widgetID, default: IDTable()][event.callbackID] = resolved
            }
            inputs.append(definition.descriptor)
            invokers.append(nil)
            // Nested inputs are consequences of other events: replaying the top-level ones (touches
            // and timers at their times included) brings them about again. Those a delegate made are
            // kept as steps too, for the isolated mode.
            let madeByDelegate = event.parent.map { Int($0 - (events.first?.seq ?? 1)) }.map {
                events.indices.contains($0) && events[$0].kind == .callback
            }
            guard event.parent == nil || madeByDelegate == true else { return }
            let step: ScenarioStep
            do {
                step = try ScenarioStep(
                    recorded: definition, widget: path, arguments: event.arguments, object: object,
                    at: "input \(event.seq)")
            } catch {
                throw ReplayError.unreplayableInput(session: session, seq: event.seq, reason: error.message)
            }
            if event.parent == nil { steps.append(step) } else { delegateInputs[index] = step }
        }

        /// The `ask` step that asks `event`'s callback again, of the widget at its path.
        private func askStep(_ event: StoredEvent, _ invoker: CallbackInvoker) throws -> ScenarioStep {
            let object = objects[event.widgetID] ?? nil
            let arguments = AuditValue.object(
                Dictionary(zip(invoker.descriptor.argumentLabels, event.arguments)) { first, _ in first })
            do {
                return try ScenarioStep(
                    recorded: .asking(invoker, catalog: catalog), widget: event.widget ?? "",
                    arguments: [.string(invoker.descriptor.description), arguments], object: object,
                    at: "callback \(event.seq)")
            } catch {
                throw ReplayError.unreplayableInput(session: session, seq: event.seq, reason: error.message)
            }
        }
    }
}

/// What a replay job parses once for all its sessions: a corpus holds many recordings of few
/// scenarios, whose inputs repeat the same arguments.
///
/// Scenarios are kept by their stored text (a few dozen different texts at most: beyond, the
/// oldest are dropped); argument texts as `ParsedJSONCache` keeps them.
package final class ParsedOnce {
    var texts = ParsedJSONCache()
    private var parsed: [String: Result<Scenario, ScenarioError>] = [:]
    /// The widget trees a plan looks inputs up in, built from the scenarios: never driven, so one
    /// serves every session of its scenario.
    private var trees: [String: View] = [:]
    private var order: [String] = []
    static let limit = 32

    func scenario(_ source: String, _ parse: () -> Result<Scenario, ScenarioError>) -> Result<Scenario, ScenarioError> {
        if let known = parsed[source] { return known }
        let result = parse()
        if order.count == Self.limit {
            let oldest = order.removeFirst()
            parsed[oldest] = nil
            trees[oldest] = nil
        }
        order.append(source)
        parsed[source] = result
        return result
    }

    /// The tree of the scenario parsed from `source` (by `scenario(_:_:)` first), built once.
    func tree(_ source: String, _ build: () -> View) -> View {
        if let tree = trees[source] { return tree }
        let tree = build()
        if parsed[source] != nil { trees[source] = tree }
        return tree
    }
}

/// A session's events read on a thread of the global queue, handed over a chunk at a time.
///
/// The reader has `store` to itself until it is done: its owner leaves the store alone between
/// making the feed and `stop()` (SQLite's connections are opened for one thread at a time).
package final class EventFeed: Sendable {
    static let chunkSize = 8_192
    /// Chunks read ahead, at most 4 waiting: the reader's memory is bounded, not the session's.
    private let handoff = ChunkHandoff<[StoredEvent], StoreError>(waiting: 4)

    init(session: Int64, store: AuditStore, chunkSize: Int = EventFeed.chunkSize) {
        let reading = UncheckedStore(store: store)
        let handoff = handoff
        DispatchQueue.global().async {
            handoff.finish(
                Result { () throws(StoreError) in
                    var parsed = ParsedJSONCache()
                    var fingerprints: [EventFingerprint]?
                    return try reading.store.storedEvents(
                        of: session, inChunksOf: chunkSize, parsed: &parsed, fingerprints: &fingerprints
                    ) {
                        handoff.put($0)
                    }
                })
        }
    }

    /// The store, used by the reader only until it says it is done (`ChunkHandoff.finish`).
    private struct UncheckedStore: @unchecked Sendable {
        let store: AuditStore
    }

    /// The next chunk, waiting for it; nil after the last. Throws what the read threw.
    func next() throws(StoreError) -> [StoredEvent]? { try handoff.next() }

    /// Asks the reader to stop after its current chunk, and waits until it has let go of the store.
    func stop() { handoff.stop() }
}
