import AuditKit
import AuditModel
import AuditReplay
import AuditStorage
import Foundation

/// Finds a smallest sequence of a session's inputs on which a candidate delegate still diverges
/// from the recording delegate in the same way (delta debugging, ddmin). A touch sequence, from
/// its first finger down to its last finger up, is kept or dropped whole, so every subsequence
/// tried lifts the fingers it puts down, as a scenario file must.
///
/// "The same way" is the first divergence's kind, widget, protocol and callback when the whole
/// session is replayed. Each test records the candidate subsequence twice — with a fresh recording
/// delegate and a fresh candidate — into a scratch database and diffs the two; a subsequence that
/// cannot run (a touch that never began, a range past the end of the text) is unresolved, never a
/// pass. Outcomes are cached by subsequence, and the number of tests is bounded.
public struct Minimizer: Sendable {
    public var databasePath: String
    public var registry: DelegateRegistry
    public var catalog: WidgetCatalog

    public init(databasePath: String, registry: DelegateRegistry, catalog: WidgetCatalog) {
        self.databasePath = databasePath
        self.registry = registry
        self.catalog = catalog
    }

    /// What minimizing found.
    public struct Result: Sendable {
        /// The smallest failing input sequence found, in order.
        public var steps: [ScenarioStep]
        /// The original number of inputs.
        public var originalCount: Int
        /// A scenario file (JSON) with the session's tree and `steps`, naming the delegate the session
        /// was recorded with (a session recorded in code too), which `record` and `replay` accept:
        /// `record` with no `--delegate` records it as the session was, and replaying that against
        /// the candidate shows the divergence.
        public var scenario: String
        /// What the divergence is: kind, widget and callback.
        public var divergence: String
        /// Tests run (each two recordings and a diff), answered from the cache, and unresolved.
        public var tests: Int
        public var cached: Int
        public var unresolved: Int
        /// True when the bound on tests stopped the search before it finished.
        public var stoppedAtBound: Bool
        /// Argument values made simpler once the inputs were minimal (a number toward zero, a text
        /// shorter), each while the divergence held.
        public var shrunkValues = 0
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case noDivergence(session: Int64, delegate: String)

        public var description: String {
            switch self {
            case .noDivergence(let session, let delegate):
                "\(delegate) behaves like the recording on session \(session): there is nothing to minimize"
            }
        }
    }

    private enum Outcome {
        case diverges
        case same
        case unresolved
    }

    /// Minimizes the inputs of session `id` to a smallest sequence on which `candidateName` still
    /// diverges from the recording delegate as on the whole session, then makes their values
    /// simpler while it still does, in at most `maximumTests` tests; `progress` is told the tests
    /// run and the inputs kept as the search narrows.
    ///
    /// - Complexity: O(*t*·*e*) for *t* tests of at most *e* events each: every test records a
    ///   subsequence of the session's inputs twice and diffs the two runs. Delta debugging needs
    ///   O(*u*²) tests in the worst case for *u* inputs (touch sequences count as one), O(log *u*)
    ///   when a single input reproduces; shrinking, for each number or text argument of the
    ///   minimal inputs, O(log *n*) tests per simpler value found for a number *n* (O(log² *n*)
    ///   in all) and five for a text, of which at most one per character is kept; then one test
    ///   per touch sequence, its moves snapped to the recognizers' thresholds; `maximumTests`
    ///   bounds *t*. Memory holds the cache of tests.
    public func minimize(
        session id: Int64, delegate candidateName: String, maximumTests: Int = 500,
        progress: (_ tests: Int, _ inputs: Int) -> Void = { _, _ in }
    ) throws -> Result {
        let candidate = try registry.entry(named: candidateName)
        let store = try AuditStore(path: databasePath, access: .read)
        let recordingName = try store.session(id).delegate
        let recording = try registry.entry(named: recordingName)
        let plan = try ReplayPlan(session: id, store: store, catalog: catalog)
        let scratch = FileManager.default.temporaryDirectory.appending(path: "auditctl-minimize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let database = scratch.appending(path: "scratch.sqlite").path

        func firstDivergence(_ steps: [ScenarioStep]) throws -> (Outcome, String?) {
            var scenario = plan.scenario
            scenario.steps = steps
            // A finger that begins and never lifts, or lifts without beginning, makes a scenario
            // file that `record` refuses: such a subsequence is no reproducer.
            guard Self.fingersLift(scenario.steps) else { return (.unresolved, nil) }
            let a: RecordingSummary
            let b: RecordingSummary
            do {
                a = try ScenarioRunner.record(
                    scenario, delegate: recording.make, named: "recording", databasePath: database)
                // The candidate skips an input it cannot take, as in a replay (where that shows as a
                // difference); a subsequence the recording delegate cannot run reproduces nothing.
                b = try ScenarioRunner.record(
                    scenario, delegate: candidate.make, named: "candidate", databasePath: database, invalid: .skip)
            } catch is ScenarioError {
                return (.unresolved, nil)
            }
            let diff = try SessionDiffer(AuditStore(path: database, access: .read)).diff(a.session, b.session)
            guard let first = ReplayReport.firstDifference(in: diff) else { return (.same, nil) }
            return (.diverges, Self.signature(first))
        }

        guard case (.diverges, let signature?) = try firstDivergence(plan.steps) else {
            throw Failure.noDivergence(session: id, delegate: candidateName)
        }
        var cache: [[Int]: Outcome] = [:]
        var tests = 1
        var cached = 0
        var unresolved = 0
        var stoppedAtBound = false
        // ddmin keeps or drops whole units: a touch sequence is one, so no subsequence leaves a finger down.
        let units = Self.units(plan.steps)
        func inputs(_ chosen: [Int]) -> [Int] { chosen.flatMap { units[$0] } }
        func test(_ indexes: [Int]) throws -> Outcome {
            if let known = cache[indexes] {
                cached += 1
                return known
            }
            guard tests < maximumTests else {
                stoppedAtBound = true
                return .unresolved
            }
            tests += 1
            let (outcome, found) = try firstDivergence(inputs(indexes).map { plan.steps[$0] })
            // Diverging in another way does not reproduce this divergence.
            let result: Outcome = outcome == .diverges && found != signature ? .same : outcome
            if result == .unresolved { unresolved += 1 }
            cache[indexes] = result
            return result
        }

        // ddmin: try chunks, then complements; refine the granularity when neither fails.
        var current = Array(units.indices)
        var granularity = 2
        while current.count >= 2 && !stoppedAtBound {
            progress(tests, inputs(current).count)
            let size = Int((Double(current.count) / Double(granularity)).rounded(.up))
            let chunks = stride(from: 0, to: current.count, by: size).map {
                Array(current[$0..<min(current.count, $0 + size)])
            }
            var reduced = false
            for chunk in chunks where try test(chunk) == .diverges {
                current = chunk
                granularity = 2
                reduced = true
                break
            }
            if !reduced && chunks.count > 2 {
                for chunk in chunks {
                    let complement = current.filter { !chunk.contains($0) }
                    if try test(complement) == .diverges {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                if granularity >= current.count { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        var steps = inputs(current).map { plan.steps[$0] }
        let name = plan.scenario.name + "-minimized"
        // Then the values: each scalar argument of each input but a touch, made simpler while the
        // divergence holds, with the same tests' budget. A simpler step must read back from the
        // scenario file, so the reproducer stays one that `record` takes.
        var shrunkValues = 0
        /// `trial` read back from its scenario file, when it diverges as the session does.
        func reproduces(_ trial: [ScenarioStep]) throws -> [ScenarioStep]? {
            guard tests < maximumTests else {
                stoppedAtBound = true
                return nil
            }
            tests += 1
            guard
                let text = try? plan.scenario.text(name: name, delegate: recordingName, steps: trial),
                let readBack = try? Scenario(data: Data(text.utf8), catalog: catalog).steps
            else {
                unresolved += 1
                return nil
            }
            let (outcome, found) = try firstDivergence(readBack)
            if outcome == .unresolved { unresolved += 1 }
            return outcome == .diverges && found == signature ? readBack : nil
        }
        /// Simpler values for argument `argument` of step `index` (`simpler(_:boundaries:)`).
        func simplerValues(_ index: Int, _ argument: Int) -> [AuditValue] {
            let value = steps[index].arguments[argument]
            guard Self.magnitude(value) > 0 else { return Self.simpler(value) }
            return Self.simpler(
                value,
                boundaries: boundaryValues(
                    of: steps, at: index, argument: argument, in: plan.scenario, recording: recording.make))
        }
        for index in steps.indices where !Self.touchActions.contains(steps[index].action) && !stoppedAtBound {
            for argument in steps[index].arguments.indices where !stoppedAtBound {
                var candidates = simplerValues(index, argument)
                while let candidate = candidates.first, !stoppedAtBound {
                    candidates.removeFirst()
                    var arguments = steps[index].arguments
                    arguments[argument] = candidate
                    var trial = steps
                    trial[index] = ScenarioStep(
                        definition: steps[index].definition, widget: steps[index].widget, arguments: arguments)
                    guard let readBack = try reproduces(trial) else { continue }
                    steps = readBack
                    shrunkValues += 1
                    candidates = simplerValues(index, argument)
                }
            }
        }
        // And each touch sequence's moves, made to meet the thresholds of the tree's recognizers
        // or to stay put (`snapped`), kept when the divergence holds.
        let thresholds = GestureThresholds(tree: plan.scenario.root.build())
        for unit in Self.units(steps) where !stoppedAtBound {
            let snapped = Self.snapped(steps, unit, to: thresholds)
            guard snapped != steps, let readBack = try reproduces(snapped) else { continue }
            shrunkValues += unit.count { steps[$0] != readBack[$0] }
            steps = readBack
        }
        return Result(
            steps: steps, originalCount: plan.steps.count,
            scenario: try plan.scenario.text(name: name, delegate: recordingName, steps: steps),
            divergence: signature, tests: tests, cached: cached, unresolved: unresolved, stoppedAtBound: stoppedAtBound,
            shrunkValues: shrunkValues)
    }

    /// The values argument `argument` of `steps[index]` takes at its widget's boundaries
    /// (`InputGenerator.boundaries`), in the state the steps before it leave with a delegate
    /// `recording` makes, the nearest to its value first.
    private func boundaryValues(
        of steps: [ScenarioStep], at index: Int, argument: Int, in scenario: Scenario, recording: () -> AnyObject
    ) -> [AuditValue] {
        let root = scenario.root.build()
        let delegate = recording()
        return withExtendedLifetime(delegate) {
            ScenarioRunner.adopt(delegate, in: root, catalog: catalog)
            guard (try? ScenarioRunner.drive(root, steps: Array(steps[..<index]), invalid: .skip)) != nil,
                let object = try? steps[index].target(in: root, at: "")
            else { return [] }
            var values: [AuditValue] = []
            for generator in catalog.kinds.flatMap(\.generators)
            where generator.input == steps[index].action && generator.accepts(object) {
                for arguments in generator.boundaries(object) where arguments.indices.contains(argument) {
                    if !values.contains(arguments[argument]) { values.append(arguments[argument]) }
                }
            }
            let value = steps[index].arguments[argument]
            return values.sorted { Self.distance($0, value) < Self.distance($1, value) }
        }
    }

    /// How far apart two values are: for numbers their difference, for objects the sum over
    /// their numeric fields; 0 for anything else (which keeps its order).
    static func distance(_ a: AuditValue, _ b: AuditValue) -> Double {
        switch (a, b) {
        case (.int(let x), .int(let y)): abs(Double(x) - Double(y))
        case (.double(let x), .double(let y)): abs(x - y)
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): abs(Double(x) - y)
        case (.object(let x), .object(let y)):
            x.reduce(0) { sum, field in sum + (y[field.key].map { distance(field.value, $0) } ?? 0) }
        default: 0
        }
    }

    /// Simpler values than `value`, given the values its widget's `boundaries` (nearest first).
    /// Zero (or the empty text) is the simplest; then a value at a boundary, the smaller the
    /// simpler; then any other, the smaller the simpler. So off a boundary: zero, the nearest
    /// boundary, then `simpler(_:)`'s; on one: zero and the smaller boundaries; at zero: none.
    /// Each value kept is simpler than the one before, so shrinking ends.
    static func simpler(_ value: AuditValue, boundaries: [AuditValue]) -> [AuditValue] {
        guard magnitude(value) > 0 else { return simpler(value) }
        guard boundaries.contains(value) else {
            var found = simpler(value)
            // Zero first (`simpler`'s first), then the nearest boundary, unless that is zero.
            if let nearest = boundaries.first, magnitude(nearest) > 0 {
                found.removeAll { $0 == nearest }
                found.insert(nearest, at: min(1, found.count))
            }
            return found
        }
        let smaller = boundaries.filter { magnitude($0) < magnitude(value) }.sorted { magnitude($0) < magnitude($1) }
        return (simpler(value).prefix(1) + smaller).reduce(into: []) { unique, candidate in
            if !unique.contains(candidate) { unique.append(candidate) }
        }
    }

    /// How far a value is from the simplest of its kind: a number's size, an object's numeric
    /// fields' sizes summed, a text's length in characters.
    static func magnitude(_ value: AuditValue) -> Double {
        switch value {
        case .int(let number): Double(number.magnitude)
        case .double(let number): abs(number)
        case .string(let text): Double(text.count)
        case .object(let fields): fields.values.reduce(0) { $0 + magnitude($1) }
        default: 0
        }
    }

    /// The inputs whose values do not shrink: touch sequences and their recorded forms, whose
    /// numbers only make sense together.
    static let touchActions: Set<String> = ["touches", "touch", "gestureTimer"]

    /// Simpler values than `value`, the simplest first: a number toward zero (zero, then ever
    /// nearer the number: half of it, three quarters, …, one step nearer zero; a fraction's whole
    /// part after zero), a text shorter (empty, either half, one character fewer at either end).
    /// None for anything else.
    static func simpler(_ value: AuditValue) -> [AuditValue] {
        var found: [AuditValue] = []
        func add(_ candidate: AuditValue) {
            if candidate != value, !found.contains(candidate) { found.append(candidate) }
        }
        switch value {
        case .int(let number) where number != 0:
            // Zero, then ever nearer the number: n/2, n - n/4, n - n/8, …, one step nearer zero.
            add(.int(0))
            var step = number / 2
            while step != 0 {
                add(.int(number - step))
                step /= 2
            }
            add(.int(number - number.signum()))
        case .double(let number) where number != 0 && number.isFinite:
            add(.double(0))
            add(.double(number.rounded(.towardZero)))
            var step = number / 2
            while abs(step) >= 0.01 {
                let hundredths: Double = ((number - step) * 100).rounded()
                add(.double(hundredths / 100))
                step /= 2
            }
        case .string(let text) where !text.isEmpty:
            let half = text.count / 2
            let candidates: [String] = [
                "", String(text.prefix(half)), String(text.suffix(half)), String(text.dropFirst()),
                String(text.dropLast()),
            ]
            for candidate in candidates { add(.string(candidate)) }
        default:
            break
        }
        return found
    }

    /// `steps` with the touches of `unit` moved by the nearest of 0 and `thresholds`' distances
    /// either way, on each axis, to the move each made (each finger starting where it did): a pan's
    /// random moves become moves of exactly a threshold, or none.
    static func snapped(_ steps: [ScenarioStep], _ unit: [Int], to thresholds: GestureThresholds) -> [ScenarioStep] {
        var steps = steps
        var fingers: [Int: (original: Point, snapped: Point)] = [:]
        for index in unit where steps[index].definition.performs(TouchDispatcher.Inputs.touch) {
            guard var touch = steps[index].arguments.first.flatMap({ ValueCoding<Touch>.touch.decode($0) }) else {
                continue
            }
            let original = touch.location
            if touch.phase != .began, let last = fingers[touch.id] {
                touch.location = Point(
                    x: last.snapped.x + thresholds.nearestDistance(to: original.x - last.original.x),
                    y: last.snapped.y + thresholds.nearestDistance(to: original.y - last.original.y))
            }
            fingers[touch.id] = (original, touch.location)
            steps[index] = ScenarioStep(
                definition: steps[index].definition, widget: steps[index].widget,
                arguments: [ValueCoding<Touch>.touch.encode(touch)])
        }
        return steps
    }

    /// The inputs of `steps` in the units ddmin keeps or drops whole, by index: a touch sequence,
    /// from its first finger down to its last finger up with the inputs between, is one unit (as a
    /// scenario's `touches` step is); every other input is one.
    static func units(_ steps: [ScenarioStep]) -> [[Int]] {
        var units: [[Int]] = []
        var down: Set<Int> = []
        for (index, step) in steps.enumerated() {
            if down.isEmpty { units.append([index]) } else { units[units.count - 1].append(index) }
            guard step.definition.performs(TouchDispatcher.Inputs.touch),
                let touch = step.arguments.first.flatMap({ ValueCoding<Touch>.touch.decode($0) })
            else { continue }
            switch touch.phase {
            case .began: down.insert(touch.id)
            case .moved: break
            case .ended, .cancelled: down.remove(touch.id)
            }
        }
        return units
    }

    /// Whether every touch of `steps` begins before it moves or ends, and ends, as a scenario file's must.
    private static func fingersLift(_ steps: [ScenarioStep]) -> Bool {
        var fingers = FingerTracker()
        do {
            for (index, step) in steps.enumerated() { try fingers.follow(step, index, at: "steps[\(index)]") }
            try fingers.finish()
            return true
        } catch {
            return false
        }
    }

    static func signature(_ difference: EventDifference) -> String {
        let event = difference.event
        return "\(difference.kind.rawValue) at \(event.widget ?? "-") "
            + "\(event.protocolName.map { $0 + "." } ?? "")\(event.callback)"
    }

}
