/// The inputs of the built-in widget kinds, as scenario actions (`WidgetKind+BuiltIn.swift`
/// registers them). A recorded input event is the step that caused it: the same name, the same
/// fields.
enum InputActions {
    private static let segment = ActionField.field("segment", .int, expected: "an integer")
    private static let point = #"{"x": number, "y": number}"#
    private static let indexPath = ActionField.field(
        "indexPath", .indexPath, expected: #"{"section": integer, "row": integer}"#, shape: .indexPath)

    private static func problem(_ field: String?, _ message: String?) -> StepProblem? {
        message.map { StepProblem(field: field, $0) }
    }

    static let segmentedControl: [InputAction] = [
        .on(
            SegmentedControl.self, SegmentedControl.Inputs.tap, segment, .int,
            staticCheck: { control, index in
                control.segments.indices.contains(index)
                    ? nil
                    : StepProblem(field: "segment", "segment \(index) is out of range 0..<\(control.numberOfSegments)")
            }, perform: { $0.tapSegment($1) }),
        .on(
            SegmentedControl.self, SegmentedControl.Inputs.select, segment, .int,
            .field("notify", .bool, expected: "true or false", default: true),
            .bool,
            staticCheck: { control, index, _ in
                control.segments.indices.contains(index) || index == SegmentedControl.noSegment
                    ? nil
                    : StepProblem(
                        field: "segment",
                        "segment \(index) is out of range 0..<\(control.numberOfSegments) (or -1 for none)")
            }, perform: { $0.setSelectedSegmentIndex($1, notify: $2) }),
    ]

    private static let range = ActionField.field(
        "range", .textRange, expected: #"{"location": integer, "length": integer}"#, shape: .textRange)
    private static let text = ActionField.field("text", .string, expected: "a string")

    static let textView: [InputAction] = [
        .on(TextView.self, TextView.Inputs.beginEditing) { $0.beginEditing() },
        .on(TextView.self, TextView.Inputs.type, text, .string) { $0.type($1) },
        .on(
            TextView.self, TextView.Inputs.replace, range, .textRange, text, .string,
            check: { view, range, _ in problem("range", view.validate(range)) }, perform: { $0.replace($1, with: $2) }),
        .on(
            TextView.self, TextView.Inputs.select, range, .textRange,
            check: { view, range in problem("range", view.validate(range)) }, perform: { $0.select($1) }),
        .on(TextView.self, TextView.Inputs.endEditing) { $0.endEditing() },
    ]

    static let scrollView: [InputAction] = [
        .on(ScrollView.self, ScrollView.Inputs.beginDrag, check: { problem(nil, $0.validateBeginDrag()) }) {
            $0.beginDrag()
        },
        .on(
            ScrollView.self, ScrollView.Inputs.drag, .field("translation", .point, expected: point, shape: .point),
            .point,
            check: { problem("translation", $0.validateDrag(by: $1)) }, perform: { $0.drag(by: $1) }),
        .on(
            ScrollView.self, ScrollView.Inputs.endDrag, .field("velocity", .point, expected: point, shape: .point),
            .point,
            check: { problem("velocity", $0.validateEndDrag(velocity: $1)) }, perform: { $0.endDrag(velocity: $1) }),
        .on(ScrollView.self, ScrollView.Inputs.tapStatusBar, check: { problem(nil, $0.validateTapStatusBar()) }) {
            $0.tapStatusBar()
        },
        .on(
            ScrollView.self, ScrollView.Inputs.setContentOffset,
            .field("contentOffset", .point, expected: point, shape: .point),
            .point,
            check: { problem("contentOffset", $0.validateSetContentOffset($1)) }, perform: { $0.setContentOffset($1) }),
    ]

    static let tableView: [InputAction] = [
        .on(
            TableView.self, TableView.Inputs.tapRow, indexPath, .indexPath,
            staticCheck: { problem("indexPath", $0.validate($1)) },
            check: { problem("indexPath", $0.validateTapRow($1)) },
            perform: { $0.tapRow($1) }),
        .on(
            TableView.self, TableView.Inputs.selectRow, indexPath, .indexPath,
            staticCheck: { problem("indexPath", $0.validate($1)) }, perform: { $0.selectRow($1) }),
        .on(
            TableView.self, TableView.Inputs.deselectRow, indexPath, .indexPath,
            staticCheck: { problem("indexPath", $0.validate($1)) }, perform: { $0.deselectRow($1) }),
    ]

    /// A scenario's raw touch sequence: not an input itself (never recorded), it sends each touch,
    /// which is recorded as a `touch` input, then lets the recognizers' timers run.
    static let touchSequence = CallbackDescriptor(input: "touches", of: "View", arguments: ["events"])

    private static let touchSequenceCoding = ValueCoding<[Touch]>(
        encode: { .array($0.map(ValueCoding<Touch>.touch.encode)) },
        decode: { value in
            guard case .array(let values) = value else { return nil }
            let touches = values.compactMap { ValueCoding<Touch>.touch.decode($0) }
            return touches.count == values.count ? touches : nil
        })

    private static let touchShape = FieldShape.touchShape

    /// The first event of `events` that begins where no view of `root`'s tree is, named by its index.
    private static func missedView(_ events: [Touch], in root: View) -> StepProblem? {
        for (index, event) in events.enumerated()
        where event.phase == .began && root.hitTest(root.convert(event.location, from: nil)) == nil {
            return StepProblem(
                field: "events[\(index)]",
                "touch \(event.id) at (\(event.location.x), \(event.location.y)) hits no view")
        }
        return nil
    }

    static let touches: [InputAction] = [
        .on(
            View.self, touchSequence,
            .field(
                "events", touchSequenceCoding, expected: "an array of \(touchShape)", shape: .touches),
            touchSequenceCoding,
            check: { view, events in
                missedView(events, in: view.root)
                    ?? problem("events", view.root.touchDispatcher.problem(performing: events))
            },
            perform: { view, events in view.root.touchDispatcher.perform(events) }),
        .on(
            View.self, TouchDispatcher.Inputs.touch, .field("touch", .touch, expected: touchShape, shape: .touch),
            .touch,
            check: { view, touch in problem("touch", view.root.touchDispatcher.problem(sending: touch)) },
            perform: { view, touch in view.root.touchDispatcher.send(touch) }),
        // A recognizer's timer, as recorded: replay fires the timers due by its time, as they fired
        // in the recording, and leaves the clock at the last one.
        .on(
            GestureRecognizer.self, TouchDispatcher.Inputs.timer, .field("timer", .string, expected: "a string"),
            .string,
            .field("t", .double, expected: "seconds on the clock"), .double,
            check: { recognizer, _, time in
                guard let root = recognizer.view?.root else { return StepProblem("the recognizer is on no view") }
                guard let nanoseconds = VirtualTime.nanoseconds(fromSeconds: time) else {
                    return StepProblem(field: "t", "\(time) s is not a time the virtual clock can hold")
                }
                return nanoseconds >= root.touchDispatcher.nowNanoseconds
                    ? nil : StepProblem(field: "t", "\(time) s is before the clock (\(root.touchDispatcher.now) s)")
            },
            perform: { recognizer, _, time in
                guard let nanoseconds = VirtualTime.nanoseconds(fromSeconds: time) else { return }
                recognizer.view?.root.touchDispatcher.fireTimers(throughNanoseconds: nanoseconds)
            }),
    ]
}
