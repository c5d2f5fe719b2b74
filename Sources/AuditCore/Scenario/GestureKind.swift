import Foundation

/// One kind of gesture recognizer, registered once, as `WidgetKind` registers a widget: how a
/// scenario's gesture object describes it beyond `kind`, `id`, `enabled` and `requireToFail`, and
/// how a live recognizer describes itself back (for a session recorded in code). Every recognizer
/// asks the same `GestureRecognizerDelegate`, so a kind declares no callbacks of its own.
///
/// ```swift
/// WidgetCatalog.builtIn.adding(gestures: GestureKind("SwipeGestureRecognizer", make: { id in
///     SwipeGestureRecognizer(identifier: id)
/// }))
/// ```
public struct GestureKind: Sendable {
    /// The name a scenario's gesture `kind` gives and a recognizer's `widgetKind` returns.
    public let name: String
    let build: Builder
    let describe: @Sendable (GestureRecognizer) -> [String: AuditValue]

    /// Reads the kind's own fields of a gesture object and returns how to make the recognizer.
    typealias Builder = @Sendable (inout FieldReader, String) throws(ScenarioError) -> @Sendable () -> GestureRecognizer

    init(
        name: String, build: @escaping Builder,
        describe: @escaping @Sendable (GestureRecognizer) -> [String: AuditValue]
    ) {
        self.name = name
        self.build = build
        self.describe = describe
    }

    /// A recognizer kind whose scenario properties are a `Codable` value: `make` builds the
    /// recognizer from them, `describe` reads them back off a live one.
    public init<Recognizer: GestureRecognizer, Properties: Codable & Sendable>(
        _ name: String, properties: Properties.Type,
        make: @escaping @Sendable (_ identifier: String, _ properties: Properties) -> Recognizer,
        describe: @escaping @Sendable (Recognizer) -> Properties
    ) {
        self.init(
            name: name,
            build: { fields, id throws(ScenarioError) in
                let properties = try CodableProperties.decode(Properties.self, fields.remaining(), at: fields.path)
                return { make(id, properties) }
            },
            describe: { recognizer in
                (recognizer as? Recognizer).map { CodableProperties.encode(describe($0)) } ?? [:]
            })
    }

    /// A recognizer kind with no properties of its own.
    public init<Recognizer: GestureRecognizer>(
        _ name: String, make: @escaping @Sendable (_ identifier: String) -> Recognizer
    ) {
        self.init(
            name: name,
            build: { fields, id throws(ScenarioError) in
                try fields.finish()
                return { make(id) }
            },
            describe: { _ in [:] })
    }
}

extension GestureKind {
    /// `taps` (at least 1) and `allowableMovement`.
    public static let tap = GestureKind(
        name: "TapGestureRecognizer",
        build: { fields, id throws(ScenarioError) in
            let taps = try fields.optional("taps").map { value throws(ScenarioError) in
                try FieldReader.int(value, at: fields.location("taps"), atLeast: 1)
            }
            let movement = try fields.nonNegative("allowableMovement")
            return {
                let tap = TapGestureRecognizer(identifier: id, numberOfTapsRequired: taps ?? 1)
                if let movement { tap.allowableMovement = movement }
                return tap
            }
        },
        describe: { recognizer in
            guard let tap = recognizer as? TapGestureRecognizer else { return [:] }
            return ["taps": .int(tap.numberOfTapsRequired), "allowableMovement": .double(tap.allowableMovement)]
        })

    /// `minimumPressDuration` and `allowableMovement`.
    public static let longPress = GestureKind(
        name: "LongPressGestureRecognizer",
        build: { fields, id throws(ScenarioError) in
            let duration = try fields.duration("minimumPressDuration")
            let movement = try fields.nonNegative("allowableMovement")
            return {
                let press = LongPressGestureRecognizer(identifier: id)
                if let duration { press.minimumPressDurationNanoseconds = duration }
                if let movement { press.allowableMovement = movement }
                return press
            }
        },
        describe: { recognizer in
            guard let press = recognizer as? LongPressGestureRecognizer else { return [:] }
            return [
                "minimumPressDuration": .double(press.minimumPressDuration),
                "allowableMovement": .double(press.allowableMovement),
            ]
        })

    /// `minimumTranslation`.
    public static let pan = GestureKind(
        name: "PanGestureRecognizer",
        build: { fields, id throws(ScenarioError) in
            let translation = try fields.nonNegative("minimumTranslation")
            return {
                let pan = PanGestureRecognizer(identifier: id)
                if let translation { pan.minimumTranslation = translation }
                return pan
            }
        },
        describe: { recognizer in
            guard let pan = recognizer as? PanGestureRecognizer else { return [:] }
            return ["minimumTranslation": .double(pan.minimumTranslation)]
        })
}

extension FieldReader {
    /// An optional number from 0 to `FieldReader.maximumMagnitude`. The sign is judged first, so
    /// that a number both negative and too large (-2e7) is told what -1 is told.
    mutating func nonNegative(_ key: String) throws(ScenarioError) -> Double? {
        try optional(key).map { value throws(ScenarioError) in
            let given: Double? =
                switch value {
                case .int(let number): Double(number)
                case .double(let number): number
                default: nil
                }
            if let given, given < 0 { throw ScenarioError(at: location(key), "must not be negative") }
            if let given, given > FieldReader.maximumMagnitude {
                throw ScenarioError(at: location(key), "must be at most \(Int(FieldReader.maximumMagnitude))")
            }
            return try FieldReader.number(value, at: location(key))  // not a number, or not finite
        }
    }

    /// An optional duration in seconds, not negative, read to the nearest nanosecond
    /// (`VirtualTime`).
    mutating func duration(_ key: String) throws(ScenarioError) -> Int64? {
        try nonNegative(key).map { seconds throws(ScenarioError) in
            guard let nanoseconds = VirtualTime.nanoseconds(fromSeconds: seconds) else {
                throw ScenarioError(at: location(key), "must be at most \(VirtualTime.maximumSeconds) s")
            }
            return nanoseconds
        }
    }
}
