import AuditModel
import AuditStorage
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
    /// recognizer from them, `describe` reads them back off a live one, `check` says why properties
    /// cannot be used (nil when they can; run before `make`), as for a `WidgetKind`.
    public init<Recognizer: GestureRecognizer, Properties: Codable & Sendable>(
        _ name: String, properties: Properties.Type,
        make: @escaping @Sendable (_ identifier: String, _ properties: Properties) -> Recognizer,
        describe: @escaping @Sendable (Recognizer) -> Properties,
        check: @escaping @Sendable (Properties) -> PropertyProblem? = { _ in nil }
    ) {
        self.init(
            name: name,
            build: { fields, id throws(ScenarioError) in
                let properties = try CodableProperties.decode(Properties.self, fields.remaining(), at: fields.path)
                if let problem = check(properties) { throw ScenarioError(problem, at: fields.path) }
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
    public static let tap: GestureKind = GestureKind(
        "TapGestureRecognizer", properties: TapProperties.self,
        make: { id, properties -> TapGestureRecognizer in
            let tap = TapGestureRecognizer(identifier: id, numberOfTapsRequired: properties.taps ?? 1)
            if let movement = properties.allowableMovement { tap.allowableMovement = movement }
            return tap
        },
        describe: { TapProperties(taps: $0.numberOfTapsRequired, allowableMovement: $0.allowableMovement) },
        check: { properties in
            if let taps = properties.taps, taps < 1 { return PropertyProblem("taps", "must be at least 1") }
            return distanceProblem("allowableMovement", properties.allowableMovement)
        })

    /// `minimumPressDuration` (seconds, read to the nearest nanosecond: `VirtualTime`) and
    /// `allowableMovement`.
    public static let longPress: GestureKind = GestureKind(
        "LongPressGestureRecognizer", properties: LongPressProperties.self,
        make: { id, properties -> LongPressGestureRecognizer in
            let press = LongPressGestureRecognizer(identifier: id)
            if let duration = properties.minimumPressDuration.flatMap(VirtualTime.nanoseconds(fromSeconds:)) {
                press.minimumPressDurationNanoseconds = duration
            }
            if let movement = properties.allowableMovement { press.allowableMovement = movement }
            return press
        },
        describe: {
            LongPressProperties(minimumPressDuration: $0.minimumPressDuration, allowableMovement: $0.allowableMovement)
        },
        check: { properties in
            if let problem = distanceProblem("minimumPressDuration", properties.minimumPressDuration) {
                return problem
            }
            if let seconds = properties.minimumPressDuration, VirtualTime.nanoseconds(fromSeconds: seconds) == nil {
                return PropertyProblem("minimumPressDuration", "must be at most \(VirtualTime.maximumSeconds) s")
            }
            return distanceProblem("allowableMovement", properties.allowableMovement)
        })

    /// `minimumTranslation`.
    public static let pan: GestureKind = GestureKind(
        "PanGestureRecognizer", properties: PanProperties.self,
        make: { id, properties -> PanGestureRecognizer in
            let pan = PanGestureRecognizer(identifier: id)
            if let translation = properties.minimumTranslation { pan.minimumTranslation = translation }
            return pan
        },
        describe: { PanProperties(minimumTranslation: $0.minimumTranslation) },
        check: { distanceProblem("minimumTranslation", $0.minimumTranslation) })

    /// Why `value`, the optional field `key`, is not a number from 0 to
    /// `FieldReader.maximumMagnitude`. The sign is judged first, so that a number both negative
    /// and too large (-2e7) is told what -1 is told.
    static func distanceProblem(_ key: String, _ value: Double?) -> PropertyProblem? {
        guard let value else { return nil }
        if value < 0 { return PropertyProblem(key, "must not be negative") }
        if value > FieldReader.maximumMagnitude {
            return PropertyProblem(key, "must be at most \(Int(FieldReader.maximumMagnitude))")
        }
        return nil
    }
}

/// A tap recognizer's scenario fields.
struct TapProperties: Codable, Sendable {
    var taps: Int?
    var allowableMovement: Double?
}

/// A long-press recognizer's scenario fields.
struct LongPressProperties: Codable, Sendable {
    var minimumPressDuration: Double?
    var allowableMovement: Double?
}

/// A pan recognizer's scenario fields.
struct PanProperties: Codable, Sendable {
    var minimumTranslation: Double?
}
