import AuditModel
import AuditStorage

/// The fingers a scenario's touch steps put down and lift, followed through the file before it runs.
///
/// Which fingers are down depends only on the touch steps (a `touches` sequence must lift every
/// finger it puts down, and a `touch` step moves one finger), so every phase can be checked when the
/// file is parsed, each error naming the event by its path and the phase expected against the phase
/// given. A finger must be lifted by the end of the scenario, whichever kind of step put it down:
/// in UIKit a touch goes from `began` through `moved` to `ended` or `cancelled`, its last phase
/// (developer.apple.com/documentation/uikit/uitouch/phase-swift.enum), and a recognizer still
/// tracking a finger at the end would leave the run half done. Times are checked against the
/// clock by the dry run, which knows when the recognizers' timers moved it.
package struct FingerTracker {
    /// Each finger down from a `touch` step: the index and path of the step that put it down.
    private var down: [Int: (step: Int, path: String)] = [:]

    package init() {}

    /// Follows step `index` (at `path`) if it is a touch step; throws the first phase out of order.
    package mutating func follow(_ step: ScenarioStep, _ index: Int, at path: String) throws(ScenarioError) {
        if step.definition.performs(TouchDispatcher.Inputs.touches), case .array(let events)? = step.arguments.first {
            try followSequence(events, at: "\(path).events")
        } else if step.definition.performs(TouchDispatcher.Inputs.touch), let touch = step.arguments.first {
            let (id, phase, _) = Self.read(touch)
            let location = "\(path).touch.phase"
            switch phase {
            case .began:
                if let start = down[id] { throw ScenarioError(at: location, Self.alreadyDown(id, since: start.path)) }
                down[id] = (index, "\(path).touch")
            case .moved:
                guard down[id] != nil else { throw ScenarioError(at: location, Self.notDown(id, phase)) }
            case .ended, .cancelled:
                guard down.removeValue(forKey: id) != nil else {
                    throw ScenarioError(at: location, Self.notDown(id, phase))
                }
            }
        }
    }

    /// Fails when a finger is still down after the last step, naming the step that put it down.
    package func finish() throws(ScenarioError) {
        guard let (id, start) = down.min(by: { $0.value.step < $1.value.step }) else { return }
        throw ScenarioError(
            at: start.path,
            "touch \(id) began here and is still down at the end of the scenario; end it with a later touch whose "
                + "phase is 'ended' or 'cancelled' (every finger must be lifted, as in a touches sequence)")
    }

    private func followSequence(_ events: [AuditValue], at path: String) throws(ScenarioError) {
        var inSequence: [Int: Int] = [:]  // finger → index of the event that put it down
        var last = 0.0
        for (index, event) in events.enumerated() {
            let (id, phase, time) = Self.read(event)
            let location = "\(path)[\(index)]"
            guard time >= last else {
                throw ScenarioError(at: "\(location).t", "time goes back from \(last) s to \(time) s")
            }
            last = time
            if let start = down[id] {
                throw ScenarioError(
                    at: "\(location).id",
                    "touch \(id) is still down since \(start.path); a touches sequence needs a finger "
                        + "that is not down")
            }
            if phase == .began {
                if let start = inSequence[id] {
                    throw ScenarioError(at: "\(location).phase", Self.alreadyDown(id, since: "\(path)[\(start)]"))
                }
                inSequence[id] = index
            } else {
                guard inSequence[id] != nil else {
                    throw ScenarioError(at: "\(location).phase", Self.notDown(id, phase))
                }
                if phase != .moved { inSequence[id] = nil }
            }
        }
        if let (id, start) = inSequence.min(by: { $0.value < $1.value }) {
            throw ScenarioError(
                at: "\(path)[\(start)]",
                "touch \(id) began here and never ended; expected a later event of touch \(id) whose phase is "
                    + "'ended' or 'cancelled'")
        }
    }

    private static func alreadyDown(_ id: Int, since start: String) -> String {
        "touch \(id) is already down (since \(start)): expected 'moved', 'ended' or 'cancelled', not 'began'"
    }

    private static func notDown(_ id: Int, _ phase: Touch.Phase) -> String {
        "touch \(id) is not down: expected 'began', not '\(phase.rawValue)'"
    }

    /// The id, phase and time of a touch the step's shape has already checked.
    private static func read(_ value: AuditValue) -> (Int, Touch.Phase, Double) {
        guard case .int(let id)? = value["id"], case .string(let name)? = value["phase"],
            let phase = Touch.Phase(rawValue: name),
            let time = value["t"].flatMap({ ValueCoding<Double>.double.decode($0) })
        else { return (0, .began, 0) }
        return (id, phase, time)
    }
}
