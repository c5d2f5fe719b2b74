import AuditModel
import AuditStorage

/// The delegate of a `GestureRecognizer`: the seven questions the arbitration asks (the Gestures article).
///
/// All are optional; the extension below supplies UIKit's defaults and marks them, so the audit
/// records "not implemented, default used". In UIKit `canPrevent`/`canBePreventedBy` are methods a
/// recognizer subclass overrides (and private delegate methods); here they are delegate methods.
public protocol GestureRecognizerDelegate: AnyObject {
    /// Asked when the recognizer asks to leave `possible` (begin, or recognize if discrete),
    /// before its failure requirements are resolved. Return false to make it fail.
    func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool
    /// Asked when a touch begins in the recognizer's view or a subview. Return false and the
    /// recognizer never sees that touch.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool
    /// Return true to let both recognizers proceed; either delegate saying true is enough.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
    ) -> Bool
    /// Return true to make this recognizer wait until the other fails. Asked once per pair each
    /// time one of the two joins the touch sequence.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf otherGestureRecognizer: GestureRecognizer
    ) -> Bool
    /// Return true to make the other recognizer wait until this one fails. Asked once per pair
    /// each time one of the two joins the touch sequence.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, shouldBeRequiredToFailBy otherGestureRecognizer: GestureRecognizer
    ) -> Bool
    /// Return false and this recognizer, beginning, does not make the other fail.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, canPrevent preventedGestureRecognizer: GestureRecognizer
    ) -> Bool
    /// Return false and the other recognizer, beginning, does not make this one fail.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, canBePreventedBy preventingGestureRecognizer: GestureRecognizer
    ) -> Bool
}

extension GestureRecognizerDelegate {
    public func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
        GestureRecognizer.callbacks.shouldBegin.unimplemented(())
    }

    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
        GestureRecognizer.callbacks.shouldReceive.unimplemented(touch)
    }

    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        GestureRecognizer.callbacks.shouldRecognizeSimultaneously.unimplemented(otherGestureRecognizer)
    }

    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        GestureRecognizer.callbacks.shouldRequireFailure.unimplemented(otherGestureRecognizer)
    }

    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, shouldBeRequiredToFailBy otherGestureRecognizer: GestureRecognizer
    ) -> Bool {
        GestureRecognizer.callbacks.shouldBeRequiredToFail.unimplemented(otherGestureRecognizer)
    }

    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, canPrevent preventedGestureRecognizer: GestureRecognizer
    ) -> Bool {
        GestureRecognizer.callbacks.canPrevent.unimplemented(preventedGestureRecognizer)
    }

    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, canBePreventedBy preventingGestureRecognizer: GestureRecognizer
    ) -> Bool {
        GestureRecognizer.callbacks.canBePrevented.unimplemented(preventingGestureRecognizer)
    }
}

/// The callback table of `GestureRecognizerDelegate`: each callback declared once.
///
/// The other recognizer is recorded by its path (`root/scroll#pan`), a touch as
/// `{"id":1,"x":10.0,"y":20.0,"phase":"began","t":0.25}`. `vetoed` is true when the answer changed
/// what the recognizer would have done by default: false for the four questions whose default is
/// true, true for `shouldRecognizeSimultaneouslyWith`, `shouldRequireFailureOf` and
/// `shouldBeRequiredToFailBy` (default false).
public struct GestureRecognizerCallbacks: CallbackTable {
    public static let protocolName = "GestureRecognizerDelegate"

    public let shouldBegin = Callback<any GestureRecognizerDelegate, GestureRecognizer, Void, Bool>(
        "gestureRecognizerShouldBegin(_:)", arguments: .none, answer: .veto(),
        invoke: { delegate, recognizer, _ in delegate.gestureRecognizerShouldBegin(recognizer) })

    public let shouldReceive = Callback<any GestureRecognizerDelegate, GestureRecognizer, Touch, Bool>(
        "gestureRecognizer(_:shouldReceive:)", arguments: .one("touch", .touch), answer: .veto(),
        invoke: { $0.gestureRecognizer($1, shouldReceive: $2) })

    public let shouldRecognizeSimultaneously = Callback<
        any GestureRecognizerDelegate, GestureRecognizer, GestureRecognizer, Bool
    >(
        "gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:)",
        arguments: .one("otherGestureRecognizer", .gestureRecognizer), answer: Self.defaultFalse,
        invoke: { $0.gestureRecognizer($1, shouldRecognizeSimultaneouslyWith: $2) })

    public let shouldRequireFailure = Callback<
        any GestureRecognizerDelegate, GestureRecognizer, GestureRecognizer, Bool
    >(
        "gestureRecognizer(_:shouldRequireFailureOf:)",
        arguments: .one("otherGestureRecognizer", .gestureRecognizer), answer: Self.defaultFalse,
        invoke: { $0.gestureRecognizer($1, shouldRequireFailureOf: $2) })

    public let shouldBeRequiredToFail = Callback<
        any GestureRecognizerDelegate, GestureRecognizer, GestureRecognizer, Bool
    >(
        "gestureRecognizer(_:shouldBeRequiredToFailBy:)",
        arguments: .one("otherGestureRecognizer", .gestureRecognizer), answer: Self.defaultFalse,
        invoke: { $0.gestureRecognizer($1, shouldBeRequiredToFailBy: $2) })

    public let canPrevent = Callback<any GestureRecognizerDelegate, GestureRecognizer, GestureRecognizer, Bool>(
        "gestureRecognizer(_:canPrevent:)",
        arguments: .one("preventedGestureRecognizer", .gestureRecognizer), answer: .veto(),
        invoke: { $0.gestureRecognizer($1, canPrevent: $2) })

    public let canBePrevented = Callback<
        any GestureRecognizerDelegate, GestureRecognizer, GestureRecognizer, Bool
    >(
        "gestureRecognizer(_:canBePreventedBy:)",
        arguments: .one("preventingGestureRecognizer", .gestureRecognizer), answer: .veto(),
        invoke: { $0.gestureRecognizer($1, canBePreventedBy: $2) })

    /// A question whose default is false: a true answer overrides the default.
    private static var defaultFalse: Answer<GestureRecognizer, Bool> {
        .override(proposal: { _ in false }, coding: .bool, described: "false")
    }
}

extension ValueCoding where Value == Touch {
    /// `{"id":1,"x":10.0,"y":20.0,"phase":"began","t":0.25}`: window coordinates, seconds (read to
    /// the nearest nanosecond, `VirtualTime`).
    public static let touch: ValueCoding = ValueCoding(
        encode: { touch in
            .object([
                "id": .int(touch.id), "x": .double(touch.location.x), "y": .double(touch.location.y),
                "phase": .string(touch.phase.rawValue), "t": .double(touch.timestamp),
            ])
        },
        decode: { value in
            guard case .int(let id) = value["id"],
                let x = value["x"].flatMap({ ValueCoding<Double>.double.decode($0) }),
                let y = value["y"].flatMap({ ValueCoding<Double>.double.decode($0) }),
                case .string(let name) = value["phase"], let phase = Touch.Phase(rawValue: name),
                let seconds = value["t"].flatMap({ ValueCoding<Double>.double.decode($0) }),
                let time = VirtualTime.nanoseconds(fromSeconds: seconds)
            else { return nil }
            return Touch(id: id, location: Point(x: x, y: y), phase: phase, timestampNanoseconds: time)
        }, expected: FieldShape.touchShape, shape: .touch)
}

extension ValueCoding where Value == GestureRecognizer {
    /// A recognizer by its path (`root/scroll#pan`); read back by finding that path in the tree
    /// the replayer rebuilt.
    public static let gestureRecognizer: ValueCoding = ValueCoding(
        encode: { .string($0.path) },
        decodeIn: { value, root in
            guard case .string(let path) = value else { return nil }
            return root?.auditedObject(atPath: path) as? GestureRecognizer
        })
}
