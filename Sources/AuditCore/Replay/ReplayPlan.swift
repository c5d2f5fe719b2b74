import Foundation
import Synchronization

/// Everything a replay needs from the stored session, checked before the candidate runs: the
/// scenario to rebuild the tree from, the recorded inputs as steps, and an invoker for every
/// recorded callback.
struct ReplayPlan {
    let session: SessionSummary
    let scenario: Scenario
    /// The events to compare against (for an interrupted session, those before its last input).
    let events: [StoredEvent]
    /// The top-level recorded inputs, as steps to drive again.
    let steps: [ScenarioStep]
    /// For each of `events`, its callback's invoker (nil for inputs).
    let invokers: [CallbackInvoker?]
    /// For each of `events`, its input's declaration (nil for callbacks).
    let inputs: [CallbackDescriptor?]
    /// How many of `events` are callbacks.
    let callbacks: Int
    /// For an interrupted session: where the recording stops and what was replayed.
    let cutShort: String?
    /// The recorded session's widget ids, by path.
    let widgetIDs: [String: Int32]
    /// The inputs a delegate made from inside a callback (it selected a segment in code), by their
    /// index in `events`: isolated replay performs them itself when the candidate does not.
    let delegateInputs: [Int: ScenarioStep]

    init(session id: Int64, databasePath: String, catalog: WidgetCatalog) throws {
        try self.init(session: id, store: AuditStore(path: databasePath, access: .read), catalog: catalog)
    }

    /// The plan of session `id`, read through `store`. With `scenarios` (a replay job's), the
    /// stored scenario is parsed once for every session that stores the same text; without, it is
    /// parsed on another core while the events are read here.
    init(session id: Int64, store: AuditStore, catalog: WidgetCatalog, scenarios: ParsedScenarios? = nil) throws {
        session = try store.session(id)
        if let original = session.replayOf { throw ReplayError.replayOfReplay(session: id, of: original) }
        let source = try store.scenarioSource(of: id)
        let parse = { @Sendable () -> Result<Scenario, ScenarioError> in
            Result { () throws(ScenarioError) in
                guard !source.isEmpty, source != "{}" else {
                    throw ScenarioError(at: "", "it was recorded in code before its widget tree was stored")
                }
                return try Scenario(data: Data(source.utf8), includingSteps: false, catalog: catalog)
            }
        }
        let parsing = scenarios == nil ? Background(parse) : nil
        let read = Result { () throws(StoreError) in try store.storedEvents(of: id) }
        switch parsing?.value ?? scenarios!.scenario(source, parse) {
        case .success(let value): scenario = value
        case .failure(let error): throw ReplayError.noScenario(session: id, reason: error.description)
        }
        var events = try read.get()
        var cutShort: String?
        if session.status == "interrupted" {
            // The last input may have been cut off mid-way: replay and compare only the inputs
            // before it, whose events are complete.
            let lastInput = events.last { $0.kind == .input && $0.parent == nil }
            let kept = events.prefix { $0.seq < (lastInput?.seq ?? 1) }
            let inputs = kept.filter { $0.kind == .input && $0.parent == nil }.count
            cutShort =
                "session \(id) is interrupted: its recording stops at event \(events.last?.seq ?? 0); "
                + "replayed the \(inputs) input\(inputs == 1 ? "" : "s") recorded completely (events 1–\(kept.last?.seq ?? 0))"
            events = Array(kept)
            if inputs == 0 { throw ReplayError.nothingRecorded(session: id) }
        }
        self.events = events
        self.cutShort = cutShort

        let tree = scenario.root.build()
        try Self.refuseSecureText(in: tree, events: events, session: id)
        var steps: [ScenarioStep] = []
        var invokers: [CallbackInvoker?] = []
        var inputs: [CallbackDescriptor?] = []
        invokers.reserveCapacity(events.count)
        inputs.reserveCapacity(events.count)
        // Found once per stored name, not once per event.
        var foundInvokers = IDTable<CallbackInvoker>()
        // By widget id: the tree is not driven here, so each id keeps its object.
        var objects = IDTable<AnyObject?>()
        // By widget id, then name id: input names belong to widget kinds.
        var foundInputs = IDTable<IDTable<InputAction>>()
        var widgetIDs: [String: Int32] = [:]
        var delegateInputs: [Int: ScenarioStep] = [:]
        let first = events.first?.seq ?? 1
        for (index, event) in events.enumerated() {
            if let path = event.widget, objects[event.widgetID] == nil {
                widgetIDs[path] = Int32(truncatingIfNeeded: event.widgetID)
                objects[event.widgetID] = .some(tree.auditedObject(atPath: path))
            }
            if event.kind == .input {
                // Input names belong to widget kinds (a slider's drag is not a scroll view's), so
                // the declaration is the one the widget at the event's path takes.
                let path = event.widget ?? ""
                // A widget missing from the initial tree was added during the session (by a
                // delegate): its input is found by the widget's recorded kind, and checked when
                // replay reaches it.
                let object = objects[event.widgetID] ?? nil
                let definition: InputAction
                if let found = foundInputs[event.widgetID]?[event.callbackID] {
                    definition = found
                } else {
                    let resolved: InputAction? =
                        object.map { catalog.input(named: event.callback, for: $0) }
                        ?? catalog.input(named: event.callback, kind: event.widgetKind ?? "")
                    guard let resolved else {
                        throw ReplayError.unknownCallback(session: id, seq: event.seq, name: event.callback)
                    }
                    definition = resolved
                    foundInputs[event.widgetID, default: IDTable()][event.callbackID] = resolved
                }
                let descriptor = definition.descriptor
                inputs.append(descriptor)
                invokers.append(nil)
                // Nested inputs are consequences of other events: replaying the top-level ones (touches
                // and timers at their times included) brings them about again. Those a delegate made
                // are kept as steps too, for the isolated mode.
                let madeByDelegate = event.parent.map { Int($0 - first) }.map {
                    events.indices.contains($0) && events[$0].kind == .callback
                }
                guard event.parent == nil || madeByDelegate == true else { continue }
                let step: ScenarioStep
                do {
                    step = try ScenarioStep(
                        recorded: definition, widget: path, arguments: event.arguments, object: object,
                        at: "input \(event.seq)")
                } catch {
                    throw ReplayError.unreplayableInput(session: id, seq: event.seq, reason: error.message)
                }
                if event.parent == nil { steps.append(step) } else { delegateInputs[index] = step }
            } else {
                guard
                    let invoker = foundInvokers[event.callbackID]
                        ?? catalog.invoker(protocolName: event.protocolName ?? "", name: event.callback)
                else {
                    let name = "\(event.protocolName ?? "").\(event.callback)"
                    throw ReplayError.unknownCallback(session: id, seq: event.seq, name: name)
                }
                foundInvokers[event.callbackID] = invoker
                invokers.append(invoker)
                inputs.append(nil)
            }
        }
        self.widgetIDs = widgetIDs
        self.delegateInputs = delegateInputs
        self.steps = steps
        self.invokers = invokers
        self.inputs = inputs
        callbacks = invokers.count(where: { $0 != nil })
    }

    /// A secure text view's text is stored only as a keyed hash, which cannot be typed or set
    /// again: a session that typed into one, or where one starts with a text, is not replayed.
    private static func refuseSecureText(in tree: View, events: [StoredEvent], session: Int64) throws {
        var secure: [(path: String, text: String)] = []
        tree.visit { view in
            if let textView = view as? TextView, textView.isSecureTextEntry {
                secure.append((view.path, textView.text))
            }
        }
        if let view = secure.first(where: { !$0.text.isEmpty }) {
            throw ReplayError.secureText(session: session, widget: view.path, seq: nil)
        }
        let typing: Set = [TextView.Inputs.type.name, TextView.Inputs.replace.name]
        let paths = Set(secure.map(\.path))
        if !paths.isEmpty,
            let event = events.first(where: {
                $0.kind == .input && typing.contains($0.callback) && paths.contains($0.widget ?? "")
            })
        {
            throw ReplayError.secureText(session: session, widget: event.widget ?? "", seq: event.seq)
        }
    }
}

/// Work done on a thread of the global queue; `value` waits for it.
/// Scenarios parsed from their stored text, kept for the sessions that store the same text (a
/// few dozen different texts at most: beyond, the oldest are dropped).
final class ParsedScenarios {
    private var parsed: [String: Result<Scenario, ScenarioError>] = [:]
    private var order: [String] = []
    static let limit = 32

    func scenario(_ source: String, _ parse: () -> Result<Scenario, ScenarioError>) -> Result<Scenario, ScenarioError> {
        if let known = parsed[source] { return known }
        let result = parse()
        if order.count == Self.limit { parsed[order.removeFirst()] = nil }
        order.append(source)
        parsed[source] = result
        return result
    }
}

final class Background<Value: Sendable>: Sendable {
    private let result = Mutex<Value?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () -> Value) {
        DispatchQueue.global().async { [self] in
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
    }

    /// The work's result, once it is done (read it once).
    var value: Value {
        done.wait()
        return result.withLock { $0! }
    }
}
