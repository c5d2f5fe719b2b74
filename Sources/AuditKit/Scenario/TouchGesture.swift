import AuditModel
import AuditStorage

/// The touch sequences `explore` generates: what a finger does on a screen, timed on the virtual
/// clock, beginning on a view that receives it.
enum TouchGesture: CaseIterable {
    case tap
    case doubleTap
    case longPress
    /// A long press that then moves, as a reorder does.
    case pressAndDrag
    case pan
    case twoFingerTap
    /// Two fingers down together: one holds (about a long press's duration) while the other pans
    /// by threshold distances, then they lift in either order, as when a list's item is held
    /// while the screen's back pan starts.
    case overlappingFingers

    /// A random gesture beginning at a point of `view` where the hit test finds `view` or one of its
    /// subviews; nil when no recognizer of `view` or its ancestors can receive a touch, or no such
    /// point was found. Times count from 0 (a `touches` step starts on the current clock).
    static func random(on view: View, _ random: inout ExplorationRandom) -> [Touch]? {
        var chain: View? = view
        var thresholds = GestureThresholds()
        var recognizers = 0
        while let node = chain {
            recognizers += node.touchRecognizers.count
            for recognizer in node.touchRecognizers { thresholds.formUnion(recognizer.thresholds) }
            chain = node.superview
        }
        guard recognizers > 0, let start = point(on: view, &random) else { return nil }
        return allCases.randomElement(using: &random)!.events(at: start, meeting: thresholds, &random)
    }

    /// A point of `view`, in window coordinates, whose hit test lands on `view` or a subview.
    private static func point(on view: View, _ random: inout ExplorationRandom) -> Point? {
        let root = view.root
        let bounds = view.bounds
        guard bounds.width > 0, bounds.height > 0 else { return nil }
        for _ in 0..<4 {
            let local = Point(
                x: (bounds.x + Double.random(in: 0..<bounds.width, using: &random)).rounded(.down),
                y: (bounds.y + Double.random(in: 0..<bounds.height, using: &random)).rounded(.down))
            let window = view.convert(local, to: nil)
            if let hit = root.hitTest(root.convert(window, from: nil)), hit === view || hit.isDescendant(of: view) {
                return window
            }
        }
        return nil
    }

    private func events(at start: Point, meeting thresholds: GestureThresholds, _ random: inout ExplorationRandom)
        -> [Touch]
    {
        func touch(_ id: Int, _ point: Point, _ phase: Touch.Phase, _ time: Double) -> Touch {
            Touch(id: id, location: point, phase: phase, timestamp: time)
        }
        func moved(_ point: Point, by distance: Double) -> Point {
            Point(
                x: point.x + Double.random(in: -distance...distance, using: &random).rounded(),
                y: point.y + Double.random(in: -distance...distance, using: &random).rounded())
        }
        /// A time in `range`, or at or next to one of `boundaries`, in hundredths and never 0.
        func time(in range: ClosedRange<Double>, orNear boundaries: [Double]) -> Double {
            max(0.01, (random.value(in: range, orNear: boundaries, step: 0.01) * 100).rounded() / 100)
        }
        /// A whole distance along one axis in `range`, or at or next to one of the thresholds.
        func distance(in range: ClosedRange<Double>) -> Double {
            random.value(in: range, orNear: thresholds.distances.flatMap { [-$0, $0] }, step: 1).rounded()
        }
        let quick = time(in: 0.03...0.15, orNear: thresholds.durations)
        switch self {
        case .tap:
            return [touch(1, start, .began, 0), touch(1, start, .ended, quick)]
        case .doubleTap:
            let gap = time(in: 0.1...0.4, orNear: thresholds.intervals)
            let second = moved(start, by: 4)
            return [
                touch(1, start, .began, 0), touch(1, start, .ended, quick), touch(1, second, .began, quick + gap),
                touch(1, second, .ended, 2 * quick + gap),
            ]
        case .longPress:
            let hold = time(in: 0.3...1.2, orNear: thresholds.durations)
            let drift = random.chance(0.5) ? Point(x: distance(in: -3...3), y: 0) : Point(x: 0, y: distance(in: -3...3))
            return [
                touch(1, start, .began, 0), touch(1, Point(x: start.x + drift.x, y: start.y + drift.y), .ended, hold),
            ]
        case .pressAndDrag:
            let hold = time(in: 0.4...0.9, orNear: thresholds.durations)
            var point = start
            var events = [touch(2, start, .began, 0)]
            for index in 1...Int.random(in: 2...4, using: &random) {
                point = moved(point, by: 30)
                events.append(touch(2, point, .moved, hold + 0.1 * Double(index)))
            }
            events.append(touch(2, point, .ended, events[events.count - 1].timestamp + 0.1))
            return events
        case .pan:
            var point = start
            var time = 0.0
            var events = [touch(1, start, .began, 0)]
            // Along one axis or both; each axis's movement per event meets a threshold half the
            // time (a pan of exactly its minimum translation, a tap's allowable movement).
            let axes = Int.random(in: 0...2, using: &random)
            let step = Point(x: axes == 1 ? 0 : distance(in: -40...40), y: axes == 0 ? 0 : distance(in: -40...40))
            for _ in 1...Int.random(in: 2...6, using: &random) {
                time += Double.random(in: 0.02...0.08, using: &random)
                point = Point(x: point.x + step.x, y: point.y + step.y)
                events.append(touch(1, point, .moved, time))
            }
            events.append(touch(1, point, .ended, time + 0.02))
            return events
        case .overlappingFingers:
            let hold = time(in: 0.2...1.2, orNear: thresholds.durations)
            let step = Point(x: distance(in: -40...40), y: random.chance(0.5) ? 0 : distance(in: -40...40))
            var point = moved(start, by: 30)
            var events = [touch(1, start, .began, 0), touch(2, point, .began, time(in: 0.01...0.3, orNear: []))]
            for index in 1...Int.random(in: 2...5, using: &random) {
                point = Point(x: point.x + step.x, y: point.y + step.y)
                events.append(touch(2, point, .moved, events[1].timestamp + 0.05 * Double(index)))
            }
            let last = max(hold, events[events.count - 1].timestamp) + 0.02
            let firstLifts = random.chance(0.5)
            events.append(touch(firstLifts ? 1 : 2, firstLifts ? start : point, .ended, last))
            events.append(touch(firstLifts ? 2 : 1, firstLifts ? point : start, .ended, last + 0.02))
            return events
        case .twoFingerTap:
            let other = moved(start, by: 20)
            return [
                touch(1, start, .began, 0), touch(2, other, .began, 0.01), touch(1, start, .ended, quick),
                touch(2, other, .ended, quick + 0.01),
            ]
        }
    }
}
