/// The package's own widget kinds, registered as a user's would be (with the field checks of the
/// scenario format's reference written out by hand, for their exact messages).
extension WidgetKind {
    /// A plain view. Every view takes touches (`touches`, `touch`) and carries gesture recognizers,
    /// so this kind also holds the recognizers' `timer` input and `GestureRecognizerDelegate`.
    public static let view = WidgetKind(
        name: "View", inputs: InputActions.touches, callbacks: GestureRecognizer.callbacks.invokers,
        build: { fields, id, frame in { View(identifier: id, frame: frame) } }, describe: { _ in [:] }
    ).exploring(InputGenerators.touches)

    public static let segmentedControl = WidgetKind(
        name: "SegmentedControl", inputs: InputActions.segmentedControl, callbacks: SegmentedControl.callbacks.invokers,
        delegate: .property(\SegmentedControl.delegate),
        build: { fields, id, frame throws(ScenarioError) in
            let location = fields.location("segments")
            let segments = try fields.array("segments").enumerated().map { index, value throws(ScenarioError) in
                try FieldReader.string(value, at: "\(location)[\(index)]")
            }
            guard !segments.isEmpty else {
                throw ScenarioError(at: location, "a segmented control needs at least one segment")
            }
            var selected = SegmentedControl.noSegment
            if let value = fields.optional("selected") {
                selected = try FieldReader.int(value, at: fields.location("selected"))
                guard segments.indices.contains(selected) || selected == SegmentedControl.noSegment else {
                    throw ScenarioError(
                        at: fields.location("selected"),
                        "segment \(selected) is out of range 0..<\(segments.count) (or -1 for none)")
                }
            }
            let initial = selected
            return {
                SegmentedControl(identifier: id, frame: frame, segments: segments, selectedSegmentIndex: initial)
            }
        },
        describe: { view in
            guard let control = view as? SegmentedControl else { return [:] }
            return [
                "segments": .array(control.segments.map(AuditValue.string)),
                "selected": .int(control.selectedSegmentIndex),
            ]
        }
    ).exploring(InputGenerators.segmentedControl)

    public static let textView = WidgetKind(
        name: "TextView", inputs: InputActions.textView, callbacks: TextView.callbacks.invokers,
        delegate: .property(\TextView.delegate),
        build: { fields, id, frame throws(ScenarioError) in
            let (text, secure) = try textProperties(&fields)
            return {
                let view = TextView(identifier: id, frame: frame, text: text)
                view.isSecureTextEntry = secure
                return view
            }
        },
        describe: describeText
    ).exploring(InputGenerators.textView)

    public static let noteTextView = WidgetKind(
        name: "NoteTextView", inputs: [], callbacks: TextView.callbacks.invokers + NoteTextView.noteCallbacks.invokers,
        delegate: .property(\TextView.delegate),
        build: { fields, id, frame throws(ScenarioError) in
            let (text, secure) = try textProperties(&fields)
            let limit = try fields.optional("characterLimit").map { value throws(ScenarioError) in
                try FieldReader.int(value, at: fields.location("characterLimit"), atLeast: 0)
            }
            return {
                let view = NoteTextView(identifier: id, frame: frame, text: text, characterLimit: limit)
                view.isSecureTextEntry = secure
                return view
            }
        },
        describe: { view in
            var fields = describeText(view)
            if let limit = (view as? NoteTextView)?.characterLimit { fields["characterLimit"] = .int(limit) }
            return fields
        })

    public static let scrollView = WidgetKind(
        name: "ScrollView", inputs: InputActions.scrollView, callbacks: ScrollView.callbacks.invokers,
        delegate: .property(\ScrollView.delegate),
        build: { fields, id, frame throws(ScenarioError) in
            let size = try fields.pair("contentSize", nonNegative: true)
            let offset = fields.optional("contentOffset") == nil ? (0, 0) : try fields.pair("contentOffset")
            let scrollsToTop = try fields.bool("scrollsToTop", default: true)
            return {
                let view = ScrollView(
                    identifier: id, frame: frame, contentSize: Size(width: size.0, height: size.1),
                    contentOffset: Point(x: offset.0, y: offset.1))
                view.scrollsToTop = scrollsToTop
                return view
            }
        },
        describe: { view in
            guard let scroll = view as? ScrollView else { return [:] }
            return describeScrollsToTop(
                scroll,
                [
                    "contentSize": .array([.double(scroll.contentSize.width), .double(scroll.contentSize.height)]),
                    "contentOffset": .array([.double(scroll.contentOffset.x), .double(scroll.contentOffset.y)]),
                ])
        }
    ).exploring(InputGenerators.scrollView)

    /// `scrollsToTop` is described only when false, so a description without it reads as before.
    private static func describeScrollsToTop(_ view: ScrollView, _ fields: [String: AuditValue]) -> [String: AuditValue]
    {
        var fields = fields
        if !view.scrollsToTop { fields["scrollsToTop"] = .bool(false) }
        return fields
    }

    public static let tableView = WidgetKind(
        name: "TableView", inputs: InputActions.tableView,
        callbacks: ScrollView.callbacks.invokers + TableView.tableCallbacks.invokers,
        delegate: .property(\ScrollView.delegate),
        build: { fields, id, frame throws(ScenarioError) in
            let location = fields.location("rows")
            let sections = try fields.array("rows")
            guard sections.count <= limits.sections else {
                throw ScenarioError(at: location, "at most \(limits.sections) sections")
            }
            let rows = try sections.enumerated().map { index, value throws(ScenarioError) in
                let rows = try FieldReader.int(value, at: "\(location)[\(index)]", atLeast: 0)
                guard rows <= limits.rowsPerSection else {
                    throw ScenarioError(
                        at: "\(location)[\(index)]", "at most \(limits.rowsPerSection) rows in a section")
                }
                return rows
            }
            let height = try fields.optional("rowHeight").map { value throws(ScenarioError) in
                try FieldReader.number(value, at: fields.location("rowHeight"))
            }
            guard (height ?? 44) > 0, (height ?? 44) <= limits.rowHeight else {
                throw ScenarioError(
                    at: fields.location("rowHeight"), "must be more than 0 and at most \(limits.rowHeight)")
            }
            let offset = fields.optional("contentOffset") == nil ? (0, 0) : try fields.pair("contentOffset")
            let scrollsToTop = try fields.bool("scrollsToTop", default: true)
            return {
                let view = TableView(
                    identifier: id, frame: frame, rowsPerSection: rows, rowHeight: height ?? 44,
                    contentOffset: Point(x: offset.0, y: offset.1))
                view.scrollsToTop = scrollsToTop
                return view
            }
        },
        describe: { view in
            guard let table = view as? TableView else { return [:] }
            return describeScrollsToTop(
                table,
                [
                    "rows": .array(table.rowsPerSection.map(AuditValue.int)), "rowHeight": .double(table.rowHeight),
                    "contentOffset": .array([.double(table.contentOffset.x), .double(table.contentOffset.y)]),
                ])
        }
    ).exploring(InputGenerators.tableView)

    /// Bounds on sizes, so that no scenario can make a widget's geometry overflow.
    static let limits = (sections: 10_000, rowsPerSection: 1_000_000, rowHeight: 10_000.0)

    private static func textProperties(_ fields: inout FieldReader) throws(ScenarioError) -> (String, Bool) {
        let text = try fields.optional("text").map { value throws(ScenarioError) in
            try FieldReader.string(value, at: fields.location("text"))
        }
        return (text ?? "", try fields.bool("secure", default: false))
    }

    /// A secure text view's text is described as it is; the recorder hashes it before storing
    /// (`Scenario.recordedSource(hashing:)`), as for a scenario file.
    private static func describeText(_ view: View) -> [String: AuditValue] {
        guard let text = view as? TextView else { return [:] }
        var fields: [String: AuditValue] = ["text": .string(text.text)]
        if text.isSecureTextEntry { fields["secure"] = .bool(true) }
        return fields
    }
}
