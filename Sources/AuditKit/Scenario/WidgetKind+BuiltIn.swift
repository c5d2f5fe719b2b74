import AuditModel
import AuditStorage

/// The package's own widget kinds, registered through the same public initializers as a user's:
/// `Codable` properties with a `check`, `Input`s, a delegate property and its callback table.
extension WidgetKind {
    /// A plain view. Every view takes touches (`touches`, `touch`) and carries gesture recognizers,
    /// so this kind also holds the recognizers' `gestureTimer` input. (The recognizers'
    /// `GestureRecognizerDelegate` is in every catalog: `WidgetCatalog`.)
    public static let view: WidgetKind = WidgetKind(
        "View", make: { id, frame in View(identifier: id, frame: frame) },
        inputs: [TouchDispatcher.Inputs.touches] + TouchDispatcher.Inputs.all
    ).exploring(InputGenerators.touches)

    public static let segmentedControl: WidgetKind = WidgetKind(
        "SegmentedControl", properties: SegmentedControlProperties.self,
        make: { id, frame, properties in
            SegmentedControl(
                identifier: id, frame: frame, segments: properties.segments,
                selectedSegmentIndex: properties.selected ?? SegmentedControl.noSegment)
        },
        describe: { SegmentedControlProperties(segments: $0.segments, selected: $0.selectedSegmentIndex) },
        check: { properties in
            guard !properties.segments.isEmpty else {
                return PropertyProblem("segments", "a segmented control needs at least one segment")
            }
            let selected = properties.selected ?? SegmentedControl.noSegment
            guard properties.segments.indices.contains(selected) || selected == SegmentedControl.noSegment else {
                return PropertyProblem(
                    "selected", "segment \(selected) is out of range 0..<\(properties.segments.count) (or -1 for none)")
            }
            return nil
        }, delegate: \.delegate, callbacks: SegmentedControl.callbacks, inputs: SegmentedControl.Inputs.all
    ).exploring(InputGenerators.segmentedControl)

    public static let textView: WidgetKind = WidgetKind(
        "TextView", properties: TextProperties.self,
        make: { id, frame, properties in
            properties.secure(TextView(identifier: id, frame: frame, text: properties.text ?? ""))
        },
        describe: { TextProperties(describing: $0) }, delegate: \TextView.delegate, callbacks: TextView.callbacks,
        inputs: TextView.Inputs.all
    ).exploring(InputGenerators.textView)

    public static let noteTextView: WidgetKind = WidgetKind(
        "NoteTextView", properties: NoteProperties.self,
        make: { id, frame, properties in
            properties.text.secure(
                NoteTextView(
                    identifier: id, frame: frame, text: properties.text.text ?? "",
                    characterLimit: properties.characterLimit))
        },
        describe: { NoteProperties(text: TextProperties(describing: $0), characterLimit: $0.characterLimit) },
        check: { properties in
            guard let limit = properties.characterLimit, limit < 0 else { return nil }
            return PropertyProblem("characterLimit", "must be at least 0")
        }, delegate: \NoteTextView.delegate, callbacks: TextView.callbacks, NoteTextView.noteCallbacks)

    public static let scrollView: WidgetKind = WidgetKind(
        "ScrollView", properties: ScrollProperties.self,
        make: { id, frame, properties -> ScrollView in
            let view = ScrollView(
                identifier: id, frame: frame,
                contentSize: Size(width: properties.contentSize[0], height: properties.contentSize[1]),
                contentOffset: properties.offset)
            view.scrollsToTop = properties.scrollsToTop ?? true
            return view
        },
        describe: { (view: ScrollView) in
            ScrollProperties(
                contentSize: [view.contentSize.width, view.contentSize.height],
                contentOffset: [view.contentOffset.x, view.contentOffset.y],
                scrollsToTop: view.scrollsToTop ? nil : false)
        },
        check: { properties in
            pairProblem("contentSize", properties.contentSize, nonNegative: true)
                ?? properties.contentOffset.flatMap { pairProblem("contentOffset", $0, nonNegative: false) }
        }, delegate: \ScrollView.delegate, callbacks: ScrollView.callbacks, inputs: ScrollView.Inputs.all
    ).exploring(InputGenerators.scrollView)

    public static let tableView: WidgetKind = WidgetKind(
        "TableView", properties: TableProperties.self,
        make: { id, frame, properties -> TableView in
            let view = TableView(
                identifier: id, frame: frame, rowsPerSection: properties.rows, rowHeight: properties.rowHeight ?? 44,
                contentOffset: properties.offset)
            view.scrollsToTop = properties.scrollsToTop ?? true
            return view
        },
        describe: { (table: TableView) in
            TableProperties(
                rows: table.rowsPerSection, rowHeight: table.rowHeight,
                contentOffset: [table.contentOffset.x, table.contentOffset.y],
                scrollsToTop: table.scrollsToTop ? nil : false)
        },
        check: { properties in
            guard properties.rows.count <= limits.sections else {
                return PropertyProblem("rows", "at most \(limits.sections) sections")
            }
            for (index, rows) in properties.rows.enumerated() {
                if rows < 0 { return PropertyProblem("rows[\(index)]", "must be at least 0") }
                if rows > limits.rowsPerSection {
                    return PropertyProblem("rows[\(index)]", "at most \(limits.rowsPerSection) rows in a section")
                }
            }
            let height = properties.rowHeight ?? 44
            guard height > 0, height <= limits.rowHeight else {
                return PropertyProblem("rowHeight", "must be more than 0 and at most \(limits.rowHeight)")
            }
            return properties.contentOffset.flatMap { pairProblem("contentOffset", $0, nonNegative: false) }
        }, delegate: \TableView.delegate, callbacks: ScrollView.callbacks, TableView.tableCallbacks,
        inputs: TableView.Inputs.all
    ).exploring(InputGenerators.tableView)

    /// A headless web view whose `NavigationDelegate` (or `AsyncNavigationDelegate`) decides each
    /// navigation later.
    public static let webView: WidgetKind = WidgetKind(
        "WebView", properties: WebViewProperties.self,
        make: { id, frame, properties in WebView(identifier: id, frame: frame, url: properties.url) },
        describe: { WebViewProperties(url: $0.url) },
        check: { properties in
            properties.url.flatMap(WebView.urlProblem).map { PropertyProblem("url", $0.message) }
        }, delegate: \WebView.navigationDelegate, callbacks: WebView.callbacks, WebView.asyncCallbacks,
        inputs: WebView.Inputs.all
    ).exploring(InputGenerators.webView)

    /// Bounds on sizes, so that no scenario can make a widget's geometry overflow.
    static let limits = (sections: 10_000, rowsPerSection: 1_000_000, rowHeight: 10_000.0)

    /// Why `values`, the field `key`, is not `[a, b]` of numbers within the scenario format's
    /// bounds (and not negative, for a size).
    private static func pairProblem(_ key: String, _ values: [Double], nonNegative: Bool) -> PropertyProblem? {
        guard values.count == 2 else { return PropertyProblem(key, "expected [a, b]") }
        for (index, value) in values.enumerated() {
            // The sign first, so that -2e7 is told what -1 is told.
            if nonNegative && value < 0 { return PropertyProblem("\(key)[\(index)]", "must not be negative") }
            if let problem = FieldReader.magnitudeProblem(value) { return PropertyProblem("\(key)[\(index)]", problem) }
        }
        return nil
    }
}

/// `segments` (at least one) and `selected` (-1 or absent for none).
struct SegmentedControlProperties: Codable, Sendable {
    var segments: [String]
    var selected: Int?
}

/// `text` and `secure` (described only when true, so a description without it reads as before).
/// A secure view's text is described as it is; the recorder hashes it before storing
/// (`Scenario.recordedSource(hashing:)`), as for a scenario file.
struct TextProperties: Codable, Sendable {
    var text: String?
    var secure: Bool?

    init(describing view: TextView) {
        text = view.text
        secure = view.isSecureTextEntry ? true : nil
    }

    /// `view` with secure entry as the properties say.
    func secure<Widget: TextView>(_ view: Widget) -> Widget {
        view.isSecureTextEntry = secure ?? false
        return view
    }
}

/// A text view's properties and `characterLimit` (at least 0; absent for none).
struct NoteProperties: Codable, Sendable {
    var text: TextProperties
    var characterLimit: Int?

    init(text: TextProperties, characterLimit: Int?) {
        self.text = text
        self.characterLimit = characterLimit
    }

    // The text's fields sit beside `characterLimit` in the widget's object.
    init(from decoder: any Decoder) throws {
        text = try TextProperties(from: decoder)
        characterLimit = try decoder.container(keyedBy: Keys.self).decodeIfPresent(Int.self, forKey: .characterLimit)
    }

    func encode(to encoder: any Encoder) throws {
        try text.encode(to: encoder)
        var fields = encoder.container(keyedBy: Keys.self)
        try fields.encodeIfPresent(characterLimit, forKey: .characterLimit)
    }

    private enum Keys: String, CodingKey { case characterLimit }
}

/// `contentSize` `[width, height]`, `contentOffset` `[x, y]` and `scrollsToTop` (described only
/// when false).
struct ScrollProperties: Codable, Sendable {
    var contentSize: [Double]
    var contentOffset: [Double]?
    var scrollsToTop: Bool?

    var offset: Point { contentOffset.map { Point(x: $0[0], y: $0[1]) } ?? Point(x: 0, y: 0) }
}

/// `url`: the page the web view shows when made (absent for none), committed with no navigation.
struct WebViewProperties: Codable, Sendable {
    var url: String?
}

/// `rows` per section, `rowHeight`, `contentOffset` `[x, y]` and `scrollsToTop`.
struct TableProperties: Codable, Sendable {
    var rows: [Int]
    var rowHeight: Double?
    var contentOffset: [Double]?
    var scrollsToTop: Bool?

    var offset: Point { contentOffset.map { Point(x: $0[0], y: $0[1]) } ?? Point(x: 0, y: 0) }
}
