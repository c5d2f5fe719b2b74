import AuditCore
import AuditExamples

/// The shipped checkout scenario with `count` random steps on its two segmented controls, the
/// same for the same seed: taps, and one time in four a programmatic selection that may notify
/// the delegate. As scenario file text.
public func randomCheckoutSource(seed: UInt64, count: Int) -> String {
    var random = SeededGenerator(seed: seed)
    let steps = (0..<count).map { _ -> String in
        let widget = Bool.random(using: &random) ? "checkout/shipping" : "checkout/payment"
        let segment = Int.random(in: 0..<3, using: &random)
        if Int.random(in: 0..<4, using: &random) == 0 {
            let notify = Bool.random(using: &random)
            return #"{"action":"selectSegment","widget":"\#(widget)","segment":\#(segment),"notify":\#(notify)}"#
        }
        return #"{"action":"tapSegment","widget":"\#(widget)","segment":\#(segment)}"#
    }
    let example = String(decoding: Examples.scenarios["checkout"]!, as: UTF8.self)
    let start = example.range(of: "\"steps\": [")!
    return example[..<start.upperBound] + steps.joined(separator: ",\n") + "]\n}\n"
}
